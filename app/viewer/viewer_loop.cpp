// The frame loop: each pass finishes the frame the GPU rendered meanwhile, draws the panels, acts on what
// they (or a script) asked for, queues the next frames and presents the image.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include "app/viewer/display_pass.h"
#include "app/viewer/gl_interop.h"
#include "app/viewer/gl_loader.h"
#include "app/viewer/gl_window.h"
#include "app/viewer/screenshot.h"
#include "app/viewer/viewer_app.h"
#include "render/error.h"
#include "render/log.h"

namespace pkrt::viewer {

namespace {

constexpr double kScriptStepSeconds = 1.0 / 30.0;  // held keys in scripts: fixed steps, deterministic

}  // namespace

int ViewerApp::run() {
    GLFWwindow* win = window_->handle();
    int frames = 0;
    // Batch runs report what a user would feel: frames per second of the whole loop (render, display
    // transfer, UI, swap), after a warm-up that lets graphs, buffers and clocks settle.
    const int warmup = options_.frames > 20 ? 10 : 0;
    FrameTimes times;
    std::chrono::steady_clock::time_point measure_start;
    while (!glfwWindowShouldClose(win)) {
        glfwPollEvents();
        // A queued-ahead frame is on its way: nothing new to show yet. Before the script's next step,
        // which counts frames: a wait that took one would let a script's 'frames N' pass without them
        // (in resident mode a drag's new view was then cancelled by the next drag before it was shown).
        if (waiting_for_image()) {
            std::this_thread::sleep_for(std::chrono::microseconds(100));
            continue;
        }
        if (script_) {
            if (!script_->before_frame(*this)) break;
        } else if (options_.frames > 0 && frames >= options_.frames) {
            break;
        }
        if (frames == warmup) {
            measure_start = std::chrono::steady_clock::now();
            launches_ = 0;
        }
        frame();
        ++frames;
        if (frames > warmup) {
            times.render.push_back(frame_ms_);
            times.upload.push_back(upload_ms_);
            times.wait.push_back(wait_ms_);
            const UploadTiming& t = upload_->last_timing();
            times.map.push_back(t.map);
            times.pack.push_back(t.pack);
            times.unmap.push_back(t.unmap);
            times.gl_copy.push_back(t.gl_copy);
            times.present.push_back(present_ms_);
        }
    }
    if (batch_ && !script_ && frames > warmup) {
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - measure_start).count();
        report_batch_run(frames, warmup, seconds, times);
    }
    if (batch_) view_change_.print(mean_dt_ * 1e3);                       // prints nothing without a timed change
    if (!ui_screenshot_.empty() && !glfwWindowShouldClose(win)) frame();  // a script ended on 'screenshot PATH ui'
    if (batch_ && !options_.screenshot.empty()) finish_batch_run(frames);
    return 0;
}

void ViewerApp::report_batch_run(int frames, int warmup, double seconds, const FrameTimes& times) const {
    log_info(
        "%d frames at %dx%d, %s mode: %.1f fps over the last %d (median render %.3f ms, "
        "waited for it %.3f ms, display transfer %.3f ms via %s)",
        frames, progressive_.width(), progressive_.height(), backend_->mode_label(progressive_.settings()).c_str(),
        (frames - warmup) / seconds, frames - warmup, median_of(times.render), median_of(times.wait),
        median_of(times.upload), upload_->path().c_str());
    log_info("display transfer, median ms: map %.3f, pack %.3f, unmap %.3f, GL copy %.3f; draw and present %.3f ms",
             median_of(times.map), median_of(times.pack), median_of(times.unmap), median_of(times.gl_copy),
             median_of(times.present));
    log_info("kernel launches per displayed frame: %.3f (%llu over %d)",
             static_cast<double>(launches_) / (frames - warmup), launches_, frames - warmup);
    if (!denoise_ms_.empty())
        log_info(
            "denoised view: %zu refreshes, median %.3f ms each (resolve, temporal reuse, filter, display upload), "
            "of which %.3f ms filtering and %.3f ms the display's upload; filtered on the %s",
            denoise_ms_.size(), median_of(denoise_ms_), median_of(filter_ms_), median_of(denoise_upload_ms_),
            denoised_.device().c_str());
}

void ViewerApp::finish_batch_run(int frames) {
    take_screenshot(options_.screenshot);
    log_info("%d frames, %u spp at %dx%d; wrote %s", frames, progressive_.samples(), progressive_.width(),
             progressive_.height(), options_.screenshot.c_str());
    if (progressive_.adaptive())
        log_info("stop when converged: %s after %u rounds, %.1f%% of pixels at the target error %g or at max spp",
                 progressive_.converged() ? "converged" : "still converging", progressive_.rounds(),
                 100.0 * progressive_.converged_fraction(), static_cast<double>(view_.target_error));
    else if (progressive_.adaptive_refused())
        log_info("stop when converged: not in resident mode; every pixel sampled alike");
}

void ViewerApp::frame() {
    advance_clock();

    // A camera moved by input since the last pass: the old view's frames are stopped and the new view's
    // first frame queued before anything else, so that neither showing an old frame nor this pass's GL
    // work delays it (beside a resident grid every wait for GL is a wait for GL's time slice).
    // (Only at the size the image has: the panels' layout, and so the image's size, is settled below.)
    queued_this_pass_ = 0;
    if (view_change_.awaiting_frame() && !compare_.running()) {
        auto [rw, rh] = render_size();
        if (rw == progressive_.width() && rh == progressive_.height()) queue_frames(rw, rh);
    }

    // The frame submitted last time rendered while that frame was drawn and presented: show it now.
    rendered_ = false;
    finish_frame();

    // UI first, so what the user changed this frame takes effect in this frame's render.
    ViewSettings before;
    PanelRequests req = draw_ui(&before);
    handle_requests(req);
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window_->handle(), &fb_w, &fb_h);
    apply_settings(before);
    handle_comparison(req);

    if (fb_w <= 0 || fb_h <= 0) {  // minimised: nothing to draw into
        glfwWaitEventsTimeout(0.1);
        return;
    }
    auto [rw, rh] = render_size();
    progressive_.set_resolution(rw, rh);

    // Frames are queued before this pass draws, so the GPU renders while it draws and presents; but a
    // pass that shows a new view's first image presents it first: GL's work would otherwise wait for
    // the frames just queued (the two take turns on the GPU), and a preview would reach the screen
    // no sooner than a full frame. (Drawing, or drawing and presenting, before every frame's queueing
    // measured no faster, and slower in resident mode: BENCHMARKS.md, session 29.)
    const bool present_first = view_change_.showing();
    if (!present_first) queue_frames(rw, rh);
    auto t0 = std::chrono::steady_clock::now();
    draw_frame(req, fb_w, fb_h);
    swap();
    present_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (present_first) queue_frames(rw, rh);
}

// The render resolution: the image area at the resolution scale.
std::pair<int, int> ViewerApp::render_size() const {
    const ImageArea fa = framebuffer_area();
    return {std::max(1, static_cast<int>(std::lround(fa.width * view_.resolution_scale))),
            std::max(1, static_cast<int>(std::lround(fa.height * view_.resolution_scale)))};
}

void ViewerApp::advance_clock() {
    auto now = std::chrono::steady_clock::now();
    double dt = std::chrono::duration<double>(now - last_frame_).count();
    last_frame_ = now;
    // Smooth the frame interval, not the rate: averaging 1/dt lets one short interval dominate.
    mean_dt_ = mean_dt_ > 0 ? 0.9 * mean_dt_ + 0.1 * dt : dt;
    fps_ = mean_dt_ > 0 ? 1.0 / mean_dt_ : 0.0;
    fly(batch_ ? kScriptStepSeconds : std::min(dt, 0.1));  // a stall must not throw the camera across the scene
}

// Returns what the panels asked for; *before is the view as it was before they changed it.
PanelRequests ViewerApp::draw_ui(ViewSettings* before) {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    view_.aperture_radius = camera_spec_.aperture_radius;
    view_.focus_distance = make_camera_view(camera_spec_, 1, 1).focus_distance;
    *before = view_;
    PanelRequests req;
    if (!ui_hidden_) panels_.draw(view_, panel_data(), req);
    update_image_area(req);
    if (help_open_) draw_help();
    if (view_.spp_map)
        spp_overlay_.draw(static_cast<float>(area_.x), static_cast<float>(area_.y), static_cast<float>(area_.width),
                          static_cast<float>(area_.height), view_.spp_map_opacity);
    ImGui::Render();
    return req;
}

void ViewerApp::handle_requests(const PanelRequests& req) {
    if (req.quit) glfwSetWindowShouldClose(window_->handle(), GLFW_TRUE);
    if (!req.open_path.empty()) input_drop({req.open_path});
    if (req.reset_camera) reset_camera();
    if (req.frame_scene) frame_scene();
}

// A script's 'compare K' starts the comparison as the panel's button does.
void ViewerApp::handle_comparison(PanelRequests& req) {
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
}

void ViewerApp::queue_frames(int rw, int rh) {
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
            while (wants_samples() && progressive_.can_submit() && (queued_this_pass_ == 0 || !batch_)) {
                uint32_t spp = static_cast<uint32_t>(view_.spp_per_frame);
                if (view_.spp_target > 0) {  // the last frame stops at the target exactly
                    uint32_t have = progressive_.stale() ? 0u : progressive_.samples();
                    spp = std::min(spp, static_cast<uint32_t>(view_.spp_target) - have);
                }
                progressive_.submit(spp);
                ++queued_this_pass_;
                submitted_mode_ = backend_->mode_label(progressive_.settings());
                view_change_.queued(progressive_.generation());
            }
        }
    } catch (const Error& e) {
        throw Error(std::string("rendering failed: ") + e.what());
    }
}

void ViewerApp::draw_frame(const PanelRequests& req, int fb_w, int fb_h) {
    float stops = display_stops();  // before the default framebuffer is set up: metering renders elsewhere
    gl::BindFramebuffer(GL_FRAMEBUFFER, 0);
    gl::Viewport(0, 0, fb_w, fb_h);
    gl::ClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    gl::Clear(GL_COLOR_BUFFER_BIT);
    const ImageArea fa = framebuffer_area();
    display_->draw(upload_->texture(), fa.x, fa.y, fa.width, fa.height, stops, view_.tone_map);
    if (req.screenshot) {
        // --screenshot names P's file (overwritten on each press); otherwise a fresh numbered name.
        take_screenshot(options_.screenshot.empty() ? next_screenshot_name() : options_.screenshot);
    }
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (!ui_screenshot_.empty()) {
        write_output("", ui_screenshot_, back_buffer_png(fb_w, fb_h));
        set_status("saved " + ui_screenshot_, false);
        ui_screenshot_.clear();
    }
}

void ViewerApp::swap() {
    view_change_.presenting();
    glfwSwapBuffers(window_->handle());
    view_change_.presented(batch_);
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
    if (view_change_.pending()) {
        // Batch runs time the new view's first image: the replaced frames ahead of it end (cancelled,
        // drawing nothing) as they come, and the pass waits for that image, not for the queue's room.
        while (progressive_.ready() && progressive_.oldest_replaced())
            launches_ += progressive_.complete().stats.kernel_launches;
        return progressive_.in_flight() && !progressive_.ready();
    }
    // Otherwise only with the GPU's queue full: until then a pass queues another frame.
    return !progressive_.can_submit_more() && !progressive_.ready();
}

void ViewerApp::finish_frame() {
    if (!progressive_.in_flight()) return;
    try {
        auto t0 = std::chrono::steady_clock::now();
        bool show = false;
        uint32_t generation = 0;
        // One frame, waited for; or, queued ahead, every frame already done, and a new view's first frame
        // waited for: it shows in the next displayed frame, as in the modes that run a frame at a time
        // (not waiting, it showed a displayed frame later: BENCHMARKS.md, session 22).
        const bool wait_for_one = !progressive_.pipelined();
        bool new_view = !wait_for_one && shown_generation_ != progressive_.generation();
        while (progressive_.in_flight() && (wait_for_one || new_view || progressive_.ready())) {
            FrameResult f = progressive_.complete();
            launches_ += f.stats.kernel_launches;
            show = f.current;  // the last one ended is what the backend holds for display
            if (!f.current) continue;
            new_view = false;
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
        view_change_.done(generation);
        shown_generation_ = generation;
        upload_->configure(progressive_.width(), progressive_.height(), backend_->output_on_device());
        if (!view_.denoise || !show_denoised(generation)) upload_ms_ = upload_->upload(*backend_);
        view_change_.uploaded();
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
    progressive_.set_features(view_.denoise);  // turned on, the image starts again with its features
    if (!view_.denoise) denoised_up_ = false;
    // spp per frame, exposure and tone map need no restart: sample indices keep counting, and the
    // display pass re-reads the accumulation every frame.
}

void ViewerApp::update_image_area(const PanelRequests& req) {
    int w = 0, h = 0;
    glfwGetWindowSize(window_->handle(), &w, &h);
    area_ = ImageArea{0, 0, w, h};
    if (ui_hidden_ || (batch_ && !script_)) return;  // a batch's frames are the window's size
    int top = static_cast<int>(std::lround(req.menu_height));
    int right = std::clamp(static_cast<int>(std::lround(req.panel_left)), 1, std::max(1, w));
    area_ = ImageArea{0, std::min(top, h - 1), right, std::max(1, h - top)};
}

ViewerApp::ImageArea ViewerApp::framebuffer_area() const {
    int w = 0, h = 0, fb_w = 0, fb_h = 0;
    glfwGetWindowSize(window_->handle(), &w, &h);
    glfwGetFramebufferSize(window_->handle(), &fb_w, &fb_h);
    if (w <= 0 || h <= 0 || area_.width <= 0) return ImageArea{0, 0, fb_w, fb_h};
    double sx = static_cast<double>(fb_w) / w, sy = static_cast<double>(fb_h) / h;
    int x0 = static_cast<int>(std::lround(area_.x * sx)),
        x1 = static_cast<int>(std::lround((area_.x + area_.width) * sx));
    int top = static_cast<int>(std::lround(area_.y * sy)),
        bottom = static_cast<int>(std::lround((area_.y + area_.height) * sy));
    return ImageArea{x0, fb_h - std::min(bottom, fb_h), std::max(1, x1 - x0), std::max(1, bottom - top)};
}

bool ViewerApp::show_denoised(uint32_t generation) {
    bool fits = denoised_.width() == upload_->width() && denoised_.height() == upload_->height();
    if (denoised_up_ && fits && !denoised_.due(generation)) return true;
    denoised_.set_temporal(view_.temporal);
    denoised_up_ = denoised_.refresh(*backend_, generation, progressive_.image_camera(), progressive_.content());
    if (denoised_up_) {
        const double upload_ms = upload_->upload(denoised_.image());
        if (batch_) {  // for report_batch_run; an interactive session would only grow the lists
            denoise_ms_.push_back(denoised_.ms() + upload_ms);
            filter_ms_.push_back(denoised_.filter_ms());
            denoise_upload_ms_.push_back(upload_ms);
        }
    }
    return denoised_up_;
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

void ViewerApp::finish_all_frames() {
    while (progressive_.in_flight()) {
        if (progressive_.pipelined() && !progressive_.ready())
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        else finish_frame();
    }
}

}  // namespace pkrt::viewer
