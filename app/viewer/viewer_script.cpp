// What --script asks for beyond input events (screenshots, a mode, a window size, a comparison), the
// screenshot itself, and the comparison's report.
#include <chrono>
#include <cstdio>
#include <thread>

#include <GLFW/glfw3.h>

#include "app/viewer/display_pass.h"
#include "app/viewer/gl_interop.h"
#include "app/viewer/gl_loader.h"
#include "app/viewer/gl_window.h"
#include "app/viewer/screenshot.h"
#include "app/viewer/viewer_app.h"
#include "render/progress.h"
#include "render/log.h"

namespace pkrt::viewer {

void ViewerApp::write_output(const std::string& flag, const std::string& path, const std::string& bytes) const {
    outputs_.write(flag, path, bytes, *scene_);
}

void ViewerApp::take_screenshot(const std::string& path) {
    try {
        save_screenshot(path);
        set_status("saved " + path, false);
    } catch (const Error& e) {
        if (batch_) throw;  // --frames and scripts end on it, with one error line
        set_status(e.what(), true);
    }
}

void ViewerApp::save_screenshot(const std::string& path) {
    finish_all_frames();                    // every frame asked for so far is in the picture
    if (image_extension(path) == ".exr") {  // the accumulation itself, linear (denoised as the view is)
        write_output("", path, accumulation_exr(*backend_, view_.denoise ? &denoised_.denoiser(*backend_) : nullptr));
        return;
    }
    if (view_.denoise) {  // and denoised as it now is, not as the last refresh found it
        denoised_up_ = false;
        show_denoised(shown_generation_);
    }
    // Redraw the image pass alone into the back buffer and read it: the PNG is the tone-mapped render
    // as the window shows it, without the panels, at the size of the window's image area. The next
    // frame overwrites the back buffer anyway.
    const ImageArea fa = framebuffer_area();
    float stops = display_stops(true);  // the picture of exactly this accumulation
    gl::BindFramebuffer(GL_FRAMEBUFFER, 0);
    gl::Viewport(0, 0, fa.width, fa.height);
    gl::ClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    gl::Clear(GL_COLOR_BUFFER_BIT);
    display_->draw(upload_->texture(), 0, 0, fa.width, fa.height, stops, view_.tone_map);
    write_output("", path, back_buffer_png(fa.width, fa.height));
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
    log_info("compare: %s", res.description.c_str());
    log_info("  %-11s %12s %19s %10s %10s %12s", "mode", res.gpu_timed ? "median GPU ms" : "median ms", "min-max ms",
             "rays/s", "launches", ("vs " + res.base_mode).c_str());
    for (const auto& row : res.rows)
        log_info("  %-11s %12.3f %9.3f-%-9.3f %10s %10.0f %11.2fx", row.mode.c_str(), row.median_ms, row.min_ms,
                 row.max_ms, Progress::format_rate(row.rays_per_s).c_str(), row.launches_per_frame,
                 row.speedup_of_base);
    set_status("comparison done", false);
}

}  // namespace pkrt::viewer
