#include "app/viewer/viewer_app.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include "app/viewer/display_pass.h"
#include "app/viewer/gl_interop.h"
#include "app/viewer/gl_window.h"
#include "render/devices.h"
#include "render/log.h"
#include "render/error.h"

namespace pkrt::viewer {

namespace {

constexpr int kMaxDefaultWindow = 1600;  // a scene's resolution bigger than this opens scaled down

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace

ViewerApp::ViewerApp(const ViewerOptions& options) : options_(options) {
    batch_ = options_.frames > 0 || !options_.script.empty();

    // Everything that can fail without a window fails first: scene, backend, mode.
    const SetupOptions setup = setup_options(options_);  // the one set-up of render and bench (render/setup.h)
    std::string scene_path = options_.scene.empty() ? default_scene_path() : options_.scene;
    std::vector<std::string> warnings;
    scene_ = std::make_unique<Scene>(setup_scene(setup, scene_path, &warnings));
    for (const auto& warning : warnings) log_warning("%s", warning.c_str());
    scene_name_ = file_name(scene_path);
    outputs_.check(*scene_);  // the outputs' names against this run's inputs, before any window opens

    if (!options_.script.empty())
        script_ = std::make_unique<ScriptRunner>(parse_script(options_.script), options_.script);

    std::optional<SchedulerMode> mode;
    std::string why;
    backend_ = setup_backend(setup, &mode, &why);
    log_info("%s", why.c_str());
    backends_ = {"cpu"};
    std::string no_cuda;
    if (cuda_built() && !cuda_devices(&no_cuda).empty()) backends_.push_back("cuda");

    bool cpu = backend_->name() == "cpu";
    view_.backend = backend_->name();
    view_.mode = mode ? mode : default_mode(*backend_);
    view_.spp_per_frame = options_.spp_per_frame > 0 ? options_.spp_per_frame : (cpu ? 1 : 4);
    view_.spp_target = options_.spp_target;
    view_.stop_when_converged = options_.target_error > 0.0f;
    if (view_.stop_when_converged) view_.target_error = options_.target_error;
    view_.spp_map = options_.spp_map;
    view_.denoise = options_.denoise;
    denoised_.set_denoiser(options_.denoiser_choice);
    progressive_.set_features(view_.denoise);
    progressive_.set_seed(options_.seed);
    bookmarks_.load(options_.bookmarks);
    view_.max_depth = options_.max_depth >= 0 ? options_.max_depth : scene_->defaults.max_depth;
    view_.resolution_scale = options_.scale > 0 ? options_.scale : (cpu ? 0.5f : 1.0f);
    // Batch runs (tests, measurements) keep N frames N frames of samples unless a preview is asked for.
    progressive_.set_preview(options_.preview_set ? options_.preview : (batch_ ? 1 : 4));
    set_look();

    int w = options_.width, h = options_.height;
    if (w == 0) {
        w = scene_->defaults.width;
        h = scene_->defaults.height;
        float shrink = std::min(1.0f, static_cast<float>(kMaxDefaultWindow) / static_cast<float>(std::max(w, h)));
        w = std::max(16, static_cast<int>(w * shrink));
        h = std::max(16, static_cast<int>(h * shrink));
    }
    window_ = std::make_unique<GlWindow>(w, h, "pkrt-viewer - " + scene_name_, !batch_);
    area_ = ImageArea{0, 0, w, h};  // until the first frame lays the UI out
    log_info("OpenGL %d.%d core: %s", window_->gl_major(), window_->gl_minor(), window_->context_description().c_str());

    // Our callbacks first: ImGui's backend then installs its own and chains to these.
    install_input_callbacks();
    init_imgui();
    display_ = std::make_unique<DisplayPass>(options_.shaders);
    upload_ = std::make_unique<AccumulationUpload>(options_.interop == "buffer");

    camera_spec_ = scene_->camera;
    camera_.set_scene(camera_spec_, scene_bounds(scene_->tris));
    progressive_.set_scene(scene_.get());
    progressive_.set_backend(backend_.get());
    progressive_.set_mode(view_.mode);
    progressive_.set_max_depth(view_.max_depth);
    progressive_.set_adaptive(adaptive_settings());
    last_frame_ = std::chrono::steady_clock::now();
}

void ViewerApp::init_imgui() {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini: every run (and every test) starts from the same layout
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window_->handle(), true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    imgui_ready_ = true;
}

std::optional<AdaptiveSettings> ViewerApp::adaptive_settings() const {
    if (!view_.stop_when_converged) return std::nullopt;
    AdaptiveSettings a;
    a.target_error = view_.target_error;
    return a;
}

ViewerApp::~ViewerApp() {
    compare_.cancel();
    try {
        progressive_.drain();
    } catch (const std::exception&) {
        // Leaving anyway: the frame's failure was the reason or does not matter any more.
    }
    // The backend (and a resident grid) before the CUDA registrations it may be running beside; GL
    // objects (and the CUDA registration) before the context; ImGui before the window.
    try {
        progressive_.set_backend(nullptr);
    } catch (const std::exception&) {}
    backend_.reset();
    upload_.reset();
    display_.reset();
    spp_overlay_.clear();
    if (imgui_ready_) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
    }
    window_.reset();
}

void ViewerApp::switch_backend(const std::string& kind) {
    try {
        std::string why;
        BackendOptions bo;
        bo.kind = kind;
        bo.set = options_.set;
        if (kind != "cpu") bo.devices = options_.devices;
        auto b = make_backend(bo, &why);
        compare_.cancel();
        progressive_.set_backend(b.get());
        denoised_.reset();
        backend_ = std::move(b);  // the old one goes only once nothing points at it
        auto modes = backend_->modes();
        if (!view_.mode || std::find(modes.begin(), modes.end(), *view_.mode) == modes.end())
            view_.mode = default_mode(*backend_);
        progressive_.set_mode(view_.mode);
        set_status(why, false);
    } catch (const std::exception& e) {
        view_.backend = backend_->name();
        set_status(std::string("cannot switch backend: ") + e.what(), true);
    }
}

void ViewerApp::open_scene(const std::string& path) {
    std::vector<std::string> warnings;
    auto scene = std::make_unique<Scene>(setup_scene(setup_options(options_), path, &warnings));
    for (const auto& warning : warnings) log_warning("%s", warning.c_str());
    compare_.cancel();
    progressive_.set_scene(scene.get());  // the backend moves to the new scene before the old one is freed
    scene_ = std::move(scene);
    scene_name_ = file_name(path);
    camera_spec_ = scene_->camera;
    camera_.set_scene(camera_spec_, scene_bounds(scene_->tris));
    view_.max_depth = options_.max_depth >= 0 ? options_.max_depth : scene_->defaults.max_depth;
    progressive_.set_max_depth(view_.max_depth);
    set_look();
    history_.clear();
    glfwSetWindowTitle(window_->handle(), ("pkrt-viewer - " + scene_name_).c_str());
    set_status("opened " + path + " (" + std::to_string(scene_->source_triangles) + " triangles)", false);
}

void ViewerApp::set_look() {
    Look look = setup_look(setup_options(options_), *scene_);
    view_.exposure = look.exposure_stops;
    view_.auto_exposure = look.auto_exposure;
    view_.tone_map = look.curve;
    metered_ = false;  // a new scene's first frames are metered at once
}

float ViewerApp::display_stops(bool fresh) {
    if (!view_.auto_exposure) return view_.exposure;
    // Screenshots, and a scene's first frames, are metered at once, waiting for GL's read-back.
    // Otherwise a metering is queued every kMeterEveryFrames frames and its value taken up once GL has
    // done it: the exposure drifts slowly as samples accumulate, and no frame waits for the read-back
    // (beside a resident grid, a wait for GL's time slice).
    if (fresh || !metered_) {
        view_.metered_stops = display_->metered_stops(upload_->texture());
        metered_ = true;
        log_debug("exposure metered, waited for: %+.5f stops", view_.metered_stops);
        return view_.metered_stops;
    }
    if (std::optional<float> stops = display_->poll_metering()) {
        view_.metered_stops = *stops;
        log_debug("exposure metered: %+.5f stops", view_.metered_stops);
    }
    if (!display_->metering() && meter_age_++ % kMeterEveryFrames == 0) display_->start_metering(upload_->texture());
    return view_.metered_stops;
}

void ViewerApp::set_status(const std::string& message, bool warn) {
    status_ = message;
    if (warn) log_warning("%s", message.c_str());
}

void ViewerApp::window_size(int* width, int* height) const { glfwGetWindowSize(window_->handle(), width, height); }

PanelData ViewerApp::panel_data() const {
    PanelData d;
    d.backends = backends_;
    d.modes = backend_->modes();
    d.device = backend_->name() + ": " + backend_->device();
    d.gl_context = window_->context_description();
    d.scene_name = scene_name_;
    glfwGetWindowSize(window_->handle(), &d.window_width, &d.window_height);
    d.render_width = progressive_.width();
    d.render_height = progressive_.height();
    d.samples = progressive_.samples();
    d.adaptive = progressive_.adaptive();
    d.adaptive_refused = progressive_.adaptive_refused();
    d.converged = progressive_.converged();
    d.converged_fraction = progressive_.converged_fraction();
    d.rounds = progressive_.rounds();
    d.frame_ms = frame_ms_;
    d.wall_ms = wall_ms_;
    d.gpu_timed = gpu_timed_;
    d.upload_ms = upload_ms_;
    d.upload_path = upload_->path();
    d.fps = fps_;
    d.rendered = rendered_;
    d.last = have_stats_ ? &last_stats_ : nullptr;
    d.history = &history_;
    d.compare = &compare_;
    d.status = status_;
    if (!denoised_.why().empty()) d.denoise_note = denoised_.why();
    else if (!denoised_.device().empty()) {
        char note[160];
        std::snprintf(note, sizeof note, ": %.1f ms a refresh, of which %.1f ms filtering", denoised_.ms(),
                      denoised_.filter_ms());
        d.denoise_note = "on the " + denoised_.device() + note +
                         (view_.temporal ? ", " + std::to_string(static_cast<int>(100.0 * denoised_.reused() + 0.5)) +
                                               "% of pixels from the views before"
                                         : "");
    }
    d.scene_radius = camera_.bounds().radius();
    return d;
}

}  // namespace pkrt::viewer
