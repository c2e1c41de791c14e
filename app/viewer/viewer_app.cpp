#include "app/viewer/viewer_app.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <imgui_internal.h>

#include "app/viewer/display_pass.h"
#include "app/viewer/gl_interop.h"
#include "app/viewer/gl_loader.h"
#include "app/viewer/gl_window.h"
#include "kernels/traversal/bvh_traverse.h"
#include "render/devices.h"
#include "render/error.h"
#include "render/progress.h"
#include "app/viewer/screenshot.h"

namespace pkrt::viewer {

namespace {

constexpr double kScriptStepSeconds = 1.0 / 30.0;  // held keys in scripts: fixed steps, deterministic
constexpr int kMaxDefaultWindow = 1600;            // a scene's resolution bigger than this opens scaled down

ViewerApp* app_of(GLFWwindow* w) { return static_cast<ViewerApp*>(glfwGetWindowUserPointer(w)); }

// The GLFW callbacks only translate arguments and forward to the app's handlers, which scripts call too.
void on_mouse_button(GLFWwindow* w, int button, int action, int mods) {
    double x = 0, y = 0;
    glfwGetCursorPos(w, &x, &y);
    app_of(w)->input_mouse_button(button, action, mods, x, y);
}
void on_cursor(GLFWwindow* w, double x, double y) { app_of(w)->input_cursor(x, y); }
void on_scroll(GLFWwindow* w, double, double dy) {
    double x = 0, y = 0;
    glfwGetCursorPos(w, &x, &y);
    app_of(w)->input_scroll(dy, x, y);
}
void on_key(GLFWwindow* w, int key, int, int action, int mods) { app_of(w)->input_key(key, action, mods); }
void on_drop(GLFWwindow* w, int count, const char** paths) {
    std::vector<std::string> v(paths, paths + count);
    app_of(w)->input_drop(v);
}
void on_focus(GLFWwindow* w, int focused) { app_of(w)->input_focus(focused != 0); }

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace

ViewerApp::ViewerApp(const ViewerOptions& options) : options_(options) {
    batch_ = options_.frames > 0 || !options_.script.empty();

    // Everything that can fail without a window fails first: scene, backend, mode.
    const SetupOptions setup = setup_options(options_);  // the one set-up of render and bench (render/setup.h)
    std::string scene_path = options_.scene.empty() ? default_scene_path() : options_.scene;
    std::vector<std::string> warnings;
    scene_ = std::make_unique<Scene>(setup_scene(setup, scene_path, &warnings));
    for (const auto& warning : warnings) std::fprintf(stderr, "pkrt-viewer: warning: %s\n", warning.c_str());
    scene_name_ = file_name(scene_path);

    if (!options_.script.empty()) script_ = std::make_unique<ScriptRunner>(parse_script(options_.script));

    std::optional<SchedulerMode> mode;
    std::string why;
    backend_ = setup_backend(setup, &mode, &why);
    std::fprintf(stderr, "pkrt-viewer: %s\n", why.c_str());
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
    view_.max_depth = options_.max_depth >= 0 ? options_.max_depth : scene_->defaults.max_depth;
    view_.resolution_scale = options_.scale > 0 ? options_.scale : (cpu ? 0.5f : 1.0f);
    // Batch runs (tests, measurements) keep N frames N frames of samples unless a preview is asked for.
    progressive_.set_preview(options_.preview_set ? options_.preview : (batch_ ? 1 : 4));
    view_.exposure = options_.exposure;
    view_.tone_map = options_.tone_map == "clamp" ? ToneMap::kClamp : ToneMap::kAces;

    int w = options_.width, h = options_.height;
    if (w == 0) {
        w = scene_->defaults.width;
        h = scene_->defaults.height;
        float shrink = std::min(1.0f, static_cast<float>(kMaxDefaultWindow) / static_cast<float>(std::max(w, h)));
        w = std::max(16, static_cast<int>(w * shrink));
        h = std::max(16, static_cast<int>(h * shrink));
    }
    window_ = std::make_unique<GlWindow>(w, h, "pkrt-viewer - " + scene_name_, !batch_);
    GLFWwindow* win = window_->handle();
    std::fprintf(stderr, "pkrt-viewer: OpenGL %d.%d core: %s\n", window_->gl_major(), window_->gl_minor(),
                 window_->context_description().c_str());

    // Our callbacks first: ImGui's backend then installs its own and chains to these.
    glfwSetWindowUserPointer(win, this);
    glfwSetMouseButtonCallback(win, on_mouse_button);
    glfwSetCursorPosCallback(win, on_cursor);
    glfwSetScrollCallback(win, on_scroll);
    glfwSetKeyCallback(win, on_key);
    glfwSetDropCallback(win, on_drop);
    glfwSetWindowFocusCallback(win, on_focus);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini: every run (and every test) starts from the same layout
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(win, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    imgui_ready_ = true;

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

namespace {
double median_of(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
}  // namespace

int ViewerApp::run() {
    GLFWwindow* win = window_->handle();
    int frames = 0;
    // Batch runs report what a user would feel: frames per second of the whole loop (render, display
    // transfer, UI, swap), after a warm-up that lets graphs, buffers and clocks settle.
    const int warmup = options_.frames > 20 ? 10 : 0;
    std::vector<double> render_ms, upload_ms, wait_ms, map_ms, pack_ms, unmap_ms, gl_ms;
    std::chrono::steady_clock::time_point measure_start;
    while (!glfwWindowShouldClose(win)) {
        glfwPollEvents();
        if (script_) {
            if (!script_->before_frame(*this)) break;
        } else if (options_.frames > 0 && frames >= options_.frames) {
            break;
        }
        if (waiting_for_image()) {  // a queued-ahead frame is on its way: nothing new to show yet
            std::this_thread::sleep_for(std::chrono::microseconds(100));
            continue;
        }
        if (frames == warmup) {
            measure_start = std::chrono::steady_clock::now();
            launches_ = 0;
        }
        frame();
        ++frames;
        if (frames > warmup) {
            render_ms.push_back(frame_ms_);
            upload_ms.push_back(upload_ms_);
            wait_ms.push_back(wait_ms_);
            const UploadTiming& t = upload_->last_timing();
            map_ms.push_back(t.map);
            pack_ms.push_back(t.pack);
            unmap_ms.push_back(t.unmap);
            gl_ms.push_back(t.gl_copy);
        }
    }
    if (batch_ && !script_ && frames > warmup) {
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - measure_start).count();
        std::fprintf(stderr,
                     "pkrt-viewer: %d frames at %dx%d, %s mode: %.1f fps over the last %d (median render %.3f ms, "
                     "waited for it %.3f ms, display transfer %.3f ms via %s)\n",
                     frames, progressive_.width(), progressive_.height(),
                     backend_->mode_label(progressive_.settings()).c_str(), (frames - warmup) / seconds,
                     frames - warmup, median_of(render_ms), median_of(wait_ms), median_of(upload_ms),
                     upload_->path().c_str());
        std::fprintf(stderr,
                     "pkrt-viewer: display transfer, median ms: map %.3f, pack %.3f, unmap %.3f, GL copy %.3f\n",
                     median_of(map_ms), median_of(pack_ms), median_of(unmap_ms), median_of(gl_ms));
        std::fprintf(stderr, "pkrt-viewer: kernel launches per displayed frame: %.3f (%llu over %d)\n",
                     static_cast<double>(launches_) / (frames - warmup), launches_, frames - warmup);
    }
    if (batch_ && !view_latencies_ms_.empty()) {
        std::vector<double> v = view_latencies_ms_;
        std::sort(v.begin(), v.end());
        std::fprintf(
            stderr,
            "pkrt-viewer: camera change to its first image on screen: median %.3f ms, max %.3f ms over %zu changes "
            "(display frame %.3f ms); medians of its parts: %.3f ms until its frame is queued, %.3f ms until it is done\n",
            median_of(v), v.back(), v.size(), mean_dt_ * 1e3, median_of(view_queued_ms_), median_of(view_done_ms_));
    }
    if (!ui_screenshot_.empty() && !glfwWindowShouldClose(win)) frame();  // a script ended on 'screenshot PATH ui'
    if (batch_ && !options_.screenshot.empty()) {
        take_screenshot(options_.screenshot);
        std::fprintf(stderr, "pkrt-viewer: %d frames, %u spp at %dx%d; wrote %s\n", frames, progressive_.samples(),
                     progressive_.width(), progressive_.height(), options_.screenshot.c_str());
        if (progressive_.adaptive())
            std::fprintf(
                stderr,
                "pkrt-viewer: stop when converged: %s after %u rounds, %.1f%% of pixels at the target error %g or at max spp\n",
                progressive_.converged() ? "converged" : "still converging", progressive_.rounds(),
                100.0 * progressive_.converged_fraction(), static_cast<double>(view_.target_error));
        else if (progressive_.adaptive_refused())
            std::fprintf(stderr, "pkrt-viewer: stop when converged: not in resident mode; every pixel sampled alike\n");
    }
    return 0;
}

bool ViewerApp::wants_samples() const {
    if (progressive_.stale()) return true;  // a new image: at least its first frame
    if (view_.paused) return false;
    if (progressive_.adaptive()) return !progressive_.converged();
    return view_.spp_target <= 0 || progressive_.samples() < static_cast<uint32_t>(view_.spp_target);
}

bool ViewerApp::waiting_for_image() {
    if (!batch_ || !progressive_.pipelined() || compare_.running()) return false;
    // A change's first frame is queued by the pass itself, which cancels the frames in flight first:
    // waiting here for those would put a whole frame of the old view before the new one.
    if (progressive_.stale()) return false;
    if (view_change_pending_) {
        // Batch runs time the new view's first image: the replaced frames ahead of it end (cancelled,
        // drawing nothing) as they come, and the pass waits for that image, not for the queue's room.
        while (progressive_.ready() && progressive_.oldest_replaced())
            launches_ += progressive_.complete().stats.kernel_launches;
        return progressive_.in_flight() && !progressive_.ready();
    }
    // Otherwise only with the GPU's queue full: until then a pass queues another frame.
    return !progressive_.can_submit_more() && !progressive_.ready();
}

void ViewerApp::camera_changed() {
    progressive_.set_camera(camera_spec_);
    if (view_change_pending_) return;  // timed from the first change not yet on screen
    view_change_pending_ = true;
    view_change_generation_ = progressive_.generation() + 1;  // the image the next reset starts
    view_changed_at_ = std::chrono::steady_clock::now();
    view_queued_ = false;
}

double ViewerApp::ms_since_view_change() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - view_changed_at_).count();
}

void ViewerApp::frame() {
    auto now = std::chrono::steady_clock::now();
    double dt = std::chrono::duration<double>(now - last_frame_).count();
    last_frame_ = now;
    // Smooth the frame interval, not the rate: averaging 1/dt lets one short interval dominate.
    mean_dt_ = mean_dt_ > 0 ? 0.9 * mean_dt_ + 0.1 * dt : dt;
    fps_ = mean_dt_ > 0 ? 1.0 / mean_dt_ : 0.0;
    fly(batch_ ? kScriptStepSeconds : std::min(dt, 0.1));  // a stall must not throw the camera across the scene

    // The frame submitted last time rendered while that frame was drawn and presented: show it now.
    rendered_ = false;
    finish_frame();

    // UI first, so what the user changed this frame takes effect in this frame's render.
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    view_.aperture_radius = camera_spec_.aperture_radius;
    view_.focus_distance = make_camera_view(camera_spec_, 1, 1).focus_distance;
    ViewSettings before = view_;
    PanelRequests req;
    panels_.draw(view_, panel_data(), req);
    if (view_.spp_map) {
        int ww = 0, wh = 0;
        glfwGetWindowSize(window_->handle(), &ww, &wh);
        spp_overlay_.draw(static_cast<float>(ww), static_cast<float>(wh), view_.spp_map_opacity);
    }
    ImGui::Render();

    if (req.quit) glfwSetWindowShouldClose(window_->handle(), GLFW_TRUE);
    if (!req.open_path.empty()) input_drop({req.open_path});
    if (req.reset_camera) reset_camera();
    if (req.frame_scene) frame_scene();
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window_->handle(), &fb_w, &fb_h);
    apply_settings(before);
    if (compare_requested_) {
        req.start_compare = true;
        compare_requested_ = false;
    }
    if (req.start_compare) {
        finish_all_frames();  // the comparison's backends take the GPU (a resident grid among them)
        compare_.start(backend_->name(), backend_->modes(), *scene_, camera_spec_, progressive_.settings(),
                       static_cast<uint32_t>(view_.spp_per_frame), view_.compare_frames, scene_name_);
        if (!compare_.running()) report_comparison();  // it failed to start
    }
    if (req.cancel_compare) compare_.cancel();

    if (fb_w <= 0 || fb_h <= 0) {  // minimised: nothing to draw into
        glfwWaitEventsTimeout(0.1);
        return;
    }
    int rw = std::max(1, static_cast<int>(std::lround(fb_w * view_.resolution_scale)));
    int rh = std::max(1, static_cast<int>(std::lround(fb_h * view_.resolution_scale)));
    progressive_.set_resolution(rw, rh);

    // Frames are queued before this pass draws, so the GPU renders while it draws and presents; but a
    // pass that shows a new view's first image presents it first: GL's work would otherwise wait for
    // the frames just queued (the two take turns on the GPU), and a preview would reach the screen
    // no sooner than a full frame.
    auto queue_frames = [&] {
        try {
            if (compare_.running()) {
                compare_.step();  // the comparison owns the GPU for its frames; the image stays as it was
                if (!compare_.running()) report_comparison();
            } else {
                // Renders on the GPU while this loop draws, presents and handles input; finished next frame
                // (queued-ahead modes keep the GPU's queue full and finish whichever frames are done).
                // A change that the frames in flight must finish before (another mode, a new size) waits
                // for them here: they were cancelled and end soon. Batch runs queue one frame per pass, so
                // a script's N frames are N frames of samples whatever the mode.
                if (progressive_.stale() && progressive_.in_flight() && !progressive_.can_submit()) finish_all_frames();
                if (progressive_.stale() && progressive_.pipelined() && !upload_->host_ready(rw, rh)) {
                    // Frames queued ahead at a new size (or for the first time): the display texture is
                    // registered with CUDA while no kernel runs (a resident one would never let it).
                    finish_all_frames();
                    backend_->drain();
                    upload_->prepare_host(rw, rh);
                }
                for (int n = 0; wants_samples() && progressive_.can_submit() && (n == 0 || !batch_); ++n) {
                    uint32_t spp = static_cast<uint32_t>(view_.spp_per_frame);
                    if (view_.spp_target > 0) {  // the last frame stops at the target exactly
                        uint32_t have = progressive_.stale() ? 0u : progressive_.samples();
                        spp = std::min(spp, static_cast<uint32_t>(view_.spp_target) - have);
                    }
                    progressive_.submit(spp);
                    submitted_mode_ = backend_->mode_label(progressive_.settings());
                    if (view_change_pending_ && !view_queued_ && progressive_.generation() >= view_change_generation_) {
                        view_queued_ = true;
                        view_queued_ms_.push_back(ms_since_view_change());
                    }
                }
            }
        } catch (const Error& e) {
            throw Error(std::string("rendering failed: ") + e.what());
        }
    };
    const bool present_first = view_shown_;
    if (!present_first) queue_frames();

    gl::BindFramebuffer(GL_FRAMEBUFFER, 0);
    gl::Viewport(0, 0, fb_w, fb_h);
    gl::ClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    gl::Clear(GL_COLOR_BUFFER_BIT);
    display_->draw(upload_->texture(), fb_w, fb_h, view_.exposure, view_.tone_map);
    if (req.screenshot) {
        // --screenshot names P's file (overwritten on each press); otherwise a fresh numbered name.
        take_screenshot(options_.screenshot.empty() ? next_screenshot_name() : options_.screenshot);
    }
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (!ui_screenshot_.empty()) {
        save_back_buffer_png(ui_screenshot_, fb_w, fb_h);
        set_status("saved " + ui_screenshot_, false);
        ui_screenshot_.clear();
    }
    glfwSwapBuffers(window_->handle());
    if (view_shown_) {
        if (batch_) view_latencies_ms_.push_back(ms_since_view_change());
        view_shown_ = false;
    }
    if (present_first) queue_frames();
}

void ViewerApp::finish_frame() {
    if (!progressive_.in_flight()) return;
    try {
        auto t0 = std::chrono::steady_clock::now();
        bool show = false;
        uint32_t generation = 0;
        // One frame, waited for; or, queued ahead, every frame already done (never waiting).
        const bool wait_for_one = !progressive_.pipelined();
        while (progressive_.in_flight() && (wait_for_one || progressive_.ready())) {
            FrameResult f = progressive_.complete();
            launches_ += f.stats.kernel_launches;
            show = f.current;  // the last one ended is what the backend holds for display
            if (!f.current) continue;
            generation = f.generation;
            frame_ms_ = f.ms;
            wall_ms_ = f.wall_ms;
            gpu_timed_ = f.gpu_timed;
            last_stats_ = std::move(f.stats);
            have_stats_ = true;
            history_.add(submitted_mode_, frame_ms_, static_cast<double>(last_stats_.total_rays()));
            if (wait_for_one) break;
        }
        wait_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!show) return;
        rendered_ = true;
        if (view_change_pending_ && generation >= view_change_generation_) {
            view_change_pending_ = false;
            view_shown_ = true;
            view_done_ms_.push_back(ms_since_view_change());
        }
        upload_->configure(progressive_.width(), progressive_.height(), backend_->output_on_device());
        upload_ms_ = upload_->upload(*backend_);
        if (view_.spp_map) update_spp_map();
    } catch (const Error& e) {
        // A backend failure mid-run (out of device memory at a large size, say) is fatal: the
        // accumulation can no longer be trusted. Report it the usual way.
        throw Error(std::string("rendering failed: ") + e.what());
    }
}

void ViewerApp::apply_settings(const ViewSettings& before) {
    if (view_.aperture_radius != before.aperture_radius || view_.focus_distance != before.focus_distance) {
        if (valid_aperture_radius(view_.aperture_radius)) camera_spec_.aperture_radius = view_.aperture_radius;
        if (view_.focus_distance != before.focus_distance && valid_focus_distance(view_.focus_distance))
            camera_spec_.focus_distance = view_.focus_distance;
        camera_changed();
    }
    if (view_.backend != before.backend) switch_backend(view_.backend);
    if (view_.mode != before.mode) progressive_.set_mode(view_.mode);
    progressive_.set_max_depth(view_.max_depth);
    progressive_.set_adaptive(adaptive_settings());
    // spp per frame, exposure and tone map need no restart: sample indices keep counting, and the
    // display pass re-reads the accumulation every frame.
}

// The map's scale: the adaptive rounds' min_spp to max_spp; otherwise 1 to the most any pixel has.
void ViewerApp::update_spp_map() {
    std::vector<uint32_t> counts = backend_->sample_counts();
    int lo = 1, hi = 2;
    if (const auto& a = progressive_.adaptive_settings(); a && progressive_.adaptive()) {
        AdaptiveRule rule = a->rule();
        lo = static_cast<int>(rule.min_spp);
        hi = static_cast<int>(rule.max_spp);
    } else {
        for (uint32_t c : counts) hi = std::max(hi, static_cast<int>(std::min<uint32_t>(c, 1u << 30)));
    }
    spp_overlay_.update(progressive_.width(), progressive_.height(), counts, lo, hi);
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
    for (const auto& warning : warnings) std::fprintf(stderr, "pkrt-viewer: warning: %s\n", warning.c_str());
    compare_.cancel();
    progressive_.set_scene(scene.get());  // the backend moves to the new scene before the old one is freed
    scene_ = std::move(scene);
    scene_name_ = file_name(path);
    camera_spec_ = scene_->camera;
    camera_.set_scene(camera_spec_, scene_bounds(scene_->tris));
    view_.max_depth = options_.max_depth >= 0 ? options_.max_depth : scene_->defaults.max_depth;
    progressive_.set_max_depth(view_.max_depth);
    history_.clear();
    glfwSetWindowTitle(window_->handle(), ("pkrt-viewer - " + scene_name_).c_str());
    set_status("opened " + path + " (" + std::to_string(scene_->source_triangles) + " triangles)", false);
}

void ViewerApp::set_status(const std::string& message, bool warn) {
    status_ = message;
    if (warn) std::fprintf(stderr, "pkrt-viewer: warning: %s\n", message.c_str());
}

void ViewerApp::finish_all_frames() {
    while (progressive_.in_flight()) {
        if (progressive_.pipelined() && !progressive_.ready())
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        else finish_frame();
    }
}

void ViewerApp::take_screenshot(const std::string& path) {
    finish_all_frames();  // every frame asked for so far is in the picture
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window_->handle(), &fb_w, &fb_h);
    // Redraw the image pass alone into the back buffer and read it: the PNG is the tone-mapped render
    // as the window shows it, without the panels. The next frame overwrites the back buffer anyway.
    gl::BindFramebuffer(GL_FRAMEBUFFER, 0);
    gl::Viewport(0, 0, fb_w, fb_h);
    gl::ClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    gl::Clear(GL_COLOR_BUFFER_BIT);
    display_->draw(upload_->texture(), fb_w, fb_h, view_.exposure, view_.tone_map);
    save_back_buffer_png(path, fb_w, fb_h);
    set_status("saved " + path, false);
}

bool ViewerApp::ui_captures_mouse(double x, double y) const {
    if (!imgui_ready_) return false;
    // Decided from where the event is, not from ImGui's idea of the pointer (WantCaptureMouse), so a
    // scripted event at (x, y) is treated exactly like a real one there. Uses the windows of the last
    // frame: panels, menus, popups and tooltips are all ImGui windows.
    const ImGuiContext& g = *GImGui;
    if (g.ActiveId != 0 || g.MovingWindow != nullptr) return true;  // dragging a slider or a window
    ImVec2 p(static_cast<float>(x), static_cast<float>(y));
    for (const ImGuiWindow* w : g.Windows) {
        if (!w->WasActive || w->Hidden || w->IsFallbackWindow || (w->Flags & ImGuiWindowFlags_NoMouseInputs)) continue;
        if (w->Rect().Contains(p)) return true;
    }
    return false;
}

void ViewerApp::input_mouse_button(int button, int action, int mods, double x, double y) {
    cursor_x_ = x;
    cursor_y_ = y;
    if (action == GLFW_RELEASE) {
        if (button == drag_button_) drag_button_ = -1;
        return;
    }
    if (action != GLFW_PRESS || drag_button_ >= 0 || ui_captures_mouse(x, y)) return;
    if (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_CONTROL)) {
        focus_at(x, y);  // a click, not a drag
        return;
    }
    drag_button_ = button;
    drag_pan_ = button == GLFW_MOUSE_BUTTON_MIDDLE || (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_SHIFT));
}

void ViewerApp::input_cursor(double x, double y) {
    double dx = x - cursor_x_, dy = y - cursor_y_;
    cursor_x_ = x;
    cursor_y_ = y;
    if (drag_button_ < 0) return;
    int w = 0, h = 0;
    window_size(&w, &h);
    CameraSpec& cam = camera_spec_;
    bool changed = false;
    if (drag_pan_) changed = camera_.pan(cam, static_cast<float>(dx), static_cast<float>(dy), static_cast<float>(h));
    else if (drag_button_ == GLFW_MOUSE_BUTTON_LEFT)
        changed = camera_.orbit(cam, static_cast<float>(dx), static_cast<float>(dy));
    else if (drag_button_ == GLFW_MOUSE_BUTTON_RIGHT) changed = camera_.dolly(cam, static_cast<float>(-dy) * 0.02f);
    if (changed) camera_changed();
}

void ViewerApp::input_scroll(double dy, double x, double y) {
    if (ui_captures_mouse(x, y)) return;
    if (camera_.dolly(camera_spec_, static_cast<float>(dy))) camera_changed();
}

void ViewerApp::input_key(int key, int action, int mods) {
    (void)mods;
    if (action == GLFW_PRESS) held_keys_.insert(key);
    else if (action == GLFW_RELEASE) held_keys_.erase(key);
    if (action != GLFW_PRESS || (imgui_ready_ && ImGui::GetIO().WantTextInput)) return;  // typing a path
    // Carried out at once, in event order: a reset followed by a wheel notch in the same batch of
    // events must dolly from the reset camera, not be undone by a reset applied later.
    switch (key) {
        case GLFW_KEY_R: reset_camera(); break;
        case GLFW_KEY_F: frame_scene(); break;
        case GLFW_KEY_P:
            take_screenshot(options_.screenshot.empty() ? next_screenshot_name() : options_.screenshot);
            break;
        case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(window_->handle(), GLFW_TRUE); break;
        default: break;
    }
}

void ViewerApp::reset_camera() {
    if (camera_.reset(camera_spec_)) camera_changed();
}

void ViewerApp::frame_scene() {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_->handle(), &w, &h);
    if (h > 0 && camera_.frame(camera_spec_, static_cast<float>(w) / static_cast<float>(h))) camera_changed();
}

void ViewerApp::focus_at(double x, double y) {
    int w = 0, h = 0;
    window_size(&w, &h);
    if (w <= 0 || h <= 0) return;
    // The pinhole ray through the point (the lens centre's ray), traced on the host against the scene's
    // BVH; the render resolution does not matter, the view's angles are the window's.
    CameraView view = make_camera_view(camera_spec_, w, h);
    view.lens_radius = 0.0f;
    double fx = std::floor(x), fy = std::floor(y);
    Ray ray = camera_ray(view, w, h, static_cast<int>(fx), static_cast<int>(fy), static_cast<float>(x - fx),
                         static_cast<float>(y - fy), 0.5f, 0.5f);
    Hit hit = intersect_closest(view_scene(*scene_).bvh, ray);
    if (hit.prim < 0) {
        set_status("focus: nothing under the cursor", false);
        return;
    }
    // The plane of focus is perpendicular to the view direction: its distance along it, not along the ray.
    float distance = hit.t * dot(ray.d, view.forward);
    if (!valid_focus_distance(distance)) return;
    camera_spec_.focus_distance = distance;
    camera_changed();
    char msg[96];
    std::snprintf(msg, sizeof msg, "focus distance %.6g", static_cast<double>(distance));
    std::fprintf(stderr, "pkrt-viewer: %s\n", msg);
    set_status(msg, false);
}

void ViewerApp::input_focus(bool focused) {
    // Key releases that happen in another window never reach us: forget held keys so flying stops.
    if (!focused) held_keys_.clear();
}

void ViewerApp::fly(double seconds) {
    if (held_keys_.empty() || (imgui_ready_ && ImGui::GetIO().WantTextInput)) return;
    auto held = [this](int k) { return held_keys_.count(k) ? 1.0f : 0.0f; };
    float right = held(GLFW_KEY_D) - held(GLFW_KEY_A);
    float forward = held(GLFW_KEY_W) - held(GLFW_KEY_S);
    float up = held(GLFW_KEY_E) - held(GLFW_KEY_Q);
    bool fast = held(GLFW_KEY_LEFT_SHIFT) > 0 || held(GLFW_KEY_RIGHT_SHIFT) > 0;
    if (camera_.fly(camera_spec_, right, up, forward, static_cast<float>(seconds), fast)) camera_changed();
}

void ViewerApp::input_drop(const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    if (paths.size() > 1) set_status("several files dropped: opening the first", false);
    try {
        open_scene(paths[0]);
    } catch (const std::exception& e) {
        // A bad file must not end the session: say why and keep the current scene.
        set_status(std::string("cannot open ") + e.what(), true);
    }
}

void ViewerApp::script_screenshot(const std::string& path, bool with_ui) {
    if (with_ui) ui_screenshot_ = path;
    else take_screenshot(path);
}

void ViewerApp::script_mode(const std::string& name) {
    SchedulerMode mode = parse_mode(name, "script: mode");
    check_mode(*backend_, mode, "script: mode");
    view_.mode = mode;
    progressive_.set_mode(mode);
}

void ViewerApp::script_resize(int width, int height) {
    GLFWwindow* win = window_->handle();
    glfwSetWindowSize(win, width, height);
    // The X server applies the size asynchronously; wait (briefly) until GLFW reports it.
    for (int i = 0; i < 200; ++i) {
        glfwPollEvents();
        int w = 0, h = 0;
        glfwGetWindowSize(win, &w, &h);
        if (w == width && h == height) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    set_status("the window manager did not grant " + std::to_string(width) + "x" + std::to_string(height), true);
}

void ViewerApp::script_compare(int frames) {
    view_.compare_frames = frames;
    compare_requested_ = true;
}

void ViewerApp::report_comparison() {
    if (!compare_.error().empty()) {
        set_status("comparison failed: " + compare_.error(), true);
        return;
    }
    if (!compare_.result()) return;
    const CompareResult& res = *compare_.result();
    std::fprintf(stderr, "pkrt-viewer: compare: %s\n", res.description.c_str());
    std::fprintf(stderr, "pkrt-viewer:   %-11s %12s %19s %10s %10s %12s\n", "mode",
                 res.gpu_timed ? "median GPU ms" : "median ms", "min-max ms", "rays/s", "launches",
                 ("vs " + res.base_mode).c_str());
    for (const auto& row : res.rows)
        std::fprintf(stderr, "pkrt-viewer:   %-11s %12.3f %9.3f-%-9.3f %10s %10.0f %11.2fx\n", row.mode.c_str(),
                     row.median_ms, row.min_ms, row.max_ms, Progress::format_rate(row.rays_per_s).c_str(),
                     row.launches_per_frame, row.speedup_of_base);
    set_status("comparison done", false);
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
    d.scene_radius = camera_.bounds().radius();
    return d;
}

}  // namespace pkrt::viewer
