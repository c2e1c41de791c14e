// The ImGui user interface: a File/View menu bar and one side window with the Render, Statistics and
// Compare sections. Panels only read what they show (PanelData) and edit ViewSettings; anything with
// side effects (open a file, take a screenshot, start a comparison) comes back as a PanelRequests flag
// for the app to carry out, so the panels never touch the backend.
#pragma once

#include <string>
#include <vector>

#include <optional>

#include "app/viewer/compare.h"
#include "app/viewer/display_pass.h"
#include "render/stats.h"
#include "app/viewer/stats_history.h"

namespace pkrt::viewer {

// What the user can change; the app compares it with the previous frame's copy to see what to restart.
struct ViewSettings {
    std::string backend;                // "cpu" or "cuda"
    std::optional<SchedulerMode> mode;  // scheduler mode (one of the backend's modes(); none on the CPU)
    int spp_per_frame = 1;
    int max_depth = 8;
    float resolution_scale = 1.0f;
    float exposure = 0.0f;       // stops, unless automatic
    bool auto_exposure = false;  // stops metered from the image every few frames (render/image/look.h)
    float metered_stops = 0.0f;  // the last metered exposure, for the panel
    ToneCurve tone_map = kDefaultToneCurve;
    bool paused = false;
    int spp_target = 0;  // stop accumulating at this many samples per pixel; 0: never
    // Stop when converged: adaptive rounds (kernels/adaptive.h) until every pixel is at the target
    // relative error or at max_spp; the samples-per-pixel map over the image.
    bool stop_when_converged = false;
    float target_error = 0.02f;
    bool spp_map = false;
    float spp_map_opacity = 0.75f;
    bool denoise = false;
    bool temporal = true;  // the denoised view reuses the views before while the camera moves (docs/denoising.md)
    int compare_frames = 20;
    // The thin lens: copied from the view's camera before the panels draw, written back if edited.
    float aperture_radius = 0.0f;  // 0: pinhole
    float focus_distance = 1.0f;   // along the view direction
};

struct PanelData {
    std::vector<std::string> backends;  // choosable backends
    std::vector<SchedulerMode> modes;   // the current backend's modes
    std::string device, gl_context, scene_name;
    int window_width = 0, window_height = 0, render_width = 0, render_height = 0;
    unsigned samples = 0;  // per pixel so far (their mean in adaptive rounds)
    bool adaptive = false, adaptive_refused = false,
         converged = false;         // stop when converged: running, refused (mode), done
    double converged_fraction = 0;  // of the pixels, after the last round
    unsigned rounds = 0;
    double frame_ms = 0, wall_ms = 0;  // last frame: GPU (or wall) time of accumulate, wall time of accumulate
    bool gpu_timed = false;
    double upload_ms = 0;
    std::string upload_path;
    double fps = 0;
    bool rendered = false;              // did the last frame add samples
    std::string denoise_note;           // the denoised view: where it ran and how long, or why it did not
    const RenderStats* last = nullptr;  // the last rendered frame's statistics
    const StatsHistory* history = nullptr;
    const ModeComparison* compare = nullptr;
    std::string status;         // last message (a file that failed to open, a screenshot saved)
    float scene_radius = 1.0f;  // of the scene's bounding sphere: the lens sliders' scale
};

struct PanelRequests {
    bool screenshot = false, reset_camera = false, frame_scene = false;
    bool start_compare = false, cancel_compare = false, quit = false;
    std::string open_path;
    // Where the UI sits this frame (window coordinates): the menu bar's height, and the left edge of the
    // panel docked at the window's right edge (the window's width where the panel is collapsed).
    float menu_height = 0.0f, panel_left = 0.0f;
};

class Panels {
public:
    void draw(ViewSettings& settings, const PanelData& data, PanelRequests& requests);

private:
    void menu_bar(const PanelData& data, PanelRequests& requests);
    void render_section(ViewSettings& settings, const PanelData& data);
    void camera_section(ViewSettings& settings, const PanelData& data);
    void statistics_section(const PanelData& data);
    void compare_section(ViewSettings& settings, const PanelData& data, PanelRequests& requests);
    void compare_window(const PanelData& data);

    std::string open_path_;  // the File > Open text field
    bool open_popup_ = false;
};

}  // namespace pkrt::viewer
