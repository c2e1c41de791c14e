// The viewer: owns the window, the scene, the backend and the passes, runs the frame loop, and holds
// the input handlers. GLFW's callbacks and --script call the same handlers (input_*), so a scripted
// test drives exactly the code a person does. Its member functions live by concern in viewer_app.cpp
// (set-up, switching scene and backend), viewer_loop.cpp (the frame loop), viewer_input.cpp (input,
// camera) and viewer_script.cpp (script commands, screenshots, comparison report).
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/viewer/camera_controller.h"
#include "app/viewer/bookmarks.h"
#include "app/viewer/compare.h"
#include "app/viewer/denoised_view.h"
#include "app/viewer/frame_timing.h"
#include "app/viewer/options.h"
#include "app/viewer/panels.h"
#include "app/viewer/progressive.h"
#include "render/backend.h"
#include "render/scene/scene.h"
#include "app/viewer/script.h"
#include "app/viewer/spp_overlay.h"
#include "app/viewer/stats_history.h"
#include "app/viewer/viewer_outputs.h"

namespace pkrt::viewer {

class GlWindow;
class DisplayPass;
class AccumulationUpload;

class ViewerApp final : public ScriptTarget {
public:
    // Loads the scene, makes the backend, opens the window, compiles the shaders. Throws pkrt::Error.
    explicit ViewerApp(const ViewerOptions& options);
    ~ViewerApp() override;

    // The frame loop; returns the exit code.
    int run();

    // Input handlers, in window coordinates (the GLFW callbacks and scripts call these).
    void input_mouse_button(int button, int action, int mods, double x, double y) override;
    void input_cursor(double x, double y) override;
    void input_scroll(double dy, double x, double y) override;
    void input_key(int key, int action, int mods) override;
    void input_drop(const std::vector<std::string>& paths) override;
    void input_focus(bool focused);

    void script_screenshot(const std::string& path, bool with_ui) override;
    void script_mode(const std::string& mode) override;
    void script_resize(int width, int height) override;
    void script_compare(int frames) override;
    bool busy() const override { return compare_requested_ || compare_.running(); }
    void window_size(int* width, int* height) const override;

private:
    // The parts of the constructor that need the window (viewer_input.cpp holds the callbacks).
    void install_input_callbacks();
    void init_imgui();
    // Batch runs: the loop's measurements, then what a script or --screenshot asked for at the end.
    void report_batch_run(int frames, int warmup, double seconds, const FrameTimes& times) const;
    void finish_batch_run(int frames);

    void frame();
    // The frame's steps (viewer_loop.cpp): the clock and flying, the panels, what they asked for, the
    // frames queued for the GPU and the image drawn and presented.
    void advance_clock();
    PanelRequests draw_ui(ViewSettings* before);
    void handle_requests(const PanelRequests& req);
    void handle_comparison(PanelRequests& req);
    void queue_frames(int rw, int rh);  // the render resolution
    std::pair<int, int> render_size() const;
    // The image and the panels drawn into the back buffer; the buffer presented.
    void draw_frame(const PanelRequests& req, int fb_w, int fb_h);
    void swap();
    // Completes the frame in flight (if any), records its statistics and uploads it for display. Where
    // frames queue ahead (resident mode) it takes only those already done and never waits.
    void finish_frame();
    void finish_all_frames();
    // More samples are wanted: not paused, and short of the sample target (or a new image starts).
    bool wants_samples() const;
    // Batch runs of a queued-ahead mode: nothing is done yet, and there is nothing new to draw.
    bool waiting_for_image();  // ends the replaced frames that are done on its way
    void open_scene(const std::string& path);
    void switch_backend(const std::string& kind);
    void apply_settings(const ViewSettings& before);
    // Stop when converged, as the panel or --target-error set it.
    std::optional<AdaptiveSettings> adaptive_settings() const;
    // The samples-per-pixel map of the image shown (after its upload).
    void update_spp_map();
    void bookmark_key(int slot, bool save);
    void draw_help();
    // The denoised view in the display texture in place of the accumulation of `generation`: refreshed
    // when due, else the last refresh left there. False where it cannot be shown (upload the accumulation).
    bool show_denoised(uint32_t generation);
    void camera_changed();
    void reset_camera();
    void frame_scene();
    // Focuses the thin lens on what the window pixel (x, y) sees.
    void focus_at(double x, double y);
    void fly(double seconds);
    void take_screenshot(const std::string& path);  // a failure ends a batch run, else is the status line
    void save_screenshot(const std::string& path);
    void write_output(const std::string& flag, const std::string& path, const std::string& bytes) const;
    void report_comparison();
    bool ui_captures_mouse(double x, double y) const;
    PanelData panel_data() const;
    void set_status(const std::string& message, bool warn);
    // The exposure and tone curve of the scene, unless --exposure or --tone-map gave them (render/setup.h).
    void set_look();
    // The exposure to display the image with: the fixed stops, or metered from the accumulation (every
    // kMeterEveryFrames frames without waiting for it, or now if `fresh`).
    float display_stops(bool fresh = false);
    static constexpr unsigned kMeterEveryFrames = 4;
    unsigned meter_age_ = 0;
    bool metered_ = false;  // the scene's exposure has been metered once

    ViewerOptions options_;
    ViewerOutputs outputs_{options_};  // every file written, never over an input
    bool batch_ = false;               // --frames or --script: no vsync, fixed time steps
    std::unique_ptr<ScriptRunner> script_;
    std::unique_ptr<Scene> scene_;
    std::string scene_name_;
    std::unique_ptr<Backend> backend_;
    std::vector<std::string> backends_;

    std::unique_ptr<GlWindow> window_;
    bool imgui_ready_ = false;
    std::unique_ptr<DisplayPass> display_;
    std::unique_ptr<AccumulationUpload> upload_;
    SppOverlay spp_overlay_;
    DenoisedView denoised_;
    // batch runs: each denoised-view refresh, in all, its filter and its upload to the display
    std::vector<double> denoise_ms_, filter_ms_, denoise_upload_ms_;
    // The part of the window the image is drawn in (window coordinates, y down): all of it where the UI
    // is hidden or the run is a batch of frames; else what the menu bar and the docked panel leave.
    struct ImageArea {
        int x = 0, y = 0, width = 0, height = 0;
    };
    ImageArea area_;
    void update_image_area(const PanelRequests& req);
    // The area in framebuffer pixels (GL's origin at the bottom left).
    ImageArea framebuffer_area() const;
    Bookmarks bookmarks_;
    bool ui_hidden_ = false;         // Tab: the image alone
    bool help_open_ = false;         // F1: the keys
    bool denoised_up_ = false;       // the display texture holds the denoised view
    uint32_t shown_generation_ = 0;  // of the image the display texture holds

    ProgressiveRenderer progressive_;
    CameraController camera_;
    CameraSpec camera_spec_;  // the view's camera; the scene keeps the one it was loaded with
    StatsHistory history_;
    ModeComparison compare_;
    Panels panels_;
    ViewSettings view_;

    // Last frame, for the panels.
    RenderStats last_stats_;
    bool have_stats_ = false, rendered_ = false;
    int queued_this_pass_ = 0;    // frames queue_frames submitted in this pass (batch runs: one a pass)
    std::string submitted_mode_;  // mode of the frame in flight
    double frame_ms_ = 0, wall_ms_ = 0, upload_ms_ = 0, fps_ = 0, mean_dt_ = 0;
    double wait_ms_ = 0;     // how long finish_frame() blocked on the frame in flight
    double present_ms_ = 0;  // this pass's draw and swap on the CPU
    bool gpu_timed_ = false;
    std::chrono::steady_clock::time_point last_frame_;
    std::string status_;
    bool compare_requested_ = false;
    std::string ui_screenshot_;  // saved at the end of the next frame, panels included

    ViewChangeTimer view_change_;
    unsigned long long launches_ = 0;  // kernel launches of the frames displayed

    // Mouse drag and held keys.
    int drag_button_ = -1;
    bool drag_pan_ = false;
    double cursor_x_ = 0, cursor_y_ = 0;
    std::set<int> held_keys_;
};

}  // namespace pkrt::viewer
