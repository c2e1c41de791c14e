#include "app/viewer/panels.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>

#include <imgui.h>
#include <imgui_stdlib.h>

#include "render/progress.h"
#include "render/scene/render_limits.h"

namespace pkrt::viewer {

namespace {

constexpr float kPanelWidth = 380.0f;
const char* const kPhaseNames[] = {"control", "shadow batch", "fetch",      "idle",
                                   "trace",   "shade",        "shadow out", "path out"};

std::string rate(double per_second) { return Progress::format_rate(per_second); }

// The timeline is sampled by warps when they look at the clock, so its points are not evenly spaced;
// PlotLines assumes they are. Resample onto an even time grid so the x axis is time.
std::vector<float> resample(const std::vector<RenderStats::TimelinePoint>& tl, int which, int n) {
    std::vector<float> out(static_cast<size_t>(n), 0.0f);
    if (tl.empty()) return out;
    double t0 = tl.front().t_us, t1 = tl.back().t_us;
    auto value = [which](const RenderStats::TimelinePoint& p) {
        return static_cast<float>(which == 0 ? p.path_queue : which == 1 ? p.shadow_queue : p.in_flight);
    };
    size_t j = 0;
    for (int i = 0; i < n; ++i) {
        double t = t1 > t0 ? t0 + (t1 - t0) * i / (n - 1) : t0;
        while (j + 1 < tl.size() && tl[j + 1].t_us < t) ++j;
        if (j + 1 >= tl.size()) {
            out[i] = value(tl.back());
        } else {
            double a = tl[j].t_us, b = tl[j + 1].t_us;
            float f = b > a ? static_cast<float>((t - a) / (b - a)) : 0.0f;
            out[i] = value(tl[j]) * (1.0f - f) + value(tl[j + 1]) * f;
        }
    }
    return out;
}

float max_of(const std::vector<float>& v) { return v.empty() ? 0.0f : *std::max_element(v.begin(), v.end()); }

// ImGui 1.86's plots take a literal size (unlike other widgets, -1 does not mean "to the right edge").
ImVec2 plot_size(float height) { return ImVec2(ImGui::GetContentRegionAvail().x, height); }

void help_marker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

}  // namespace

void Panels::draw(ViewSettings& s, const PanelData& d, PanelRequests& r) {
    menu_bar(d, r);
    // Docked at the right edge, beside the image rather than over it (the viewer draws the image in
    // what is left); its title bar's arrow collapses it, and Tab hides all of the UI.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    float width = std::min(kPanelWidth, vp->WorkSize.x * 0.5f);
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - width, vp->WorkPos.y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(width, vp->WorkSize.y), ImGuiCond_Always);
    bool open = ImGui::Begin("pkrt", nullptr, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize);
    r.panel_left = open ? vp->WorkPos.x + vp->WorkSize.x - width : vp->WorkPos.x + vp->WorkSize.x;
    if (open) {
        if (ImGui::CollapsingHeader("Render", ImGuiTreeNodeFlags_DefaultOpen)) render_section(s, d);
        if (ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) camera_section(s, d);
        if (ImGui::CollapsingHeader("Statistics", ImGuiTreeNodeFlags_DefaultOpen)) statistics_section(d);
        if (ImGui::CollapsingHeader("Compare", ImGuiTreeNodeFlags_DefaultOpen)) compare_section(s, d, r);
        if (!d.status.empty()) {
            ImGui::Separator();
            ImGui::TextWrapped("%s", d.status.c_str());
        }
    }
    ImGui::End();
    compare_window(d);
}

void Panels::menu_bar(const PanelData& d, PanelRequests& r) {
    if (ImGui::BeginMainMenuBar()) {
        r.menu_height = ImGui::GetWindowHeight();
        if (ImGui::BeginMenu("File")) {
            if (ImGui::MenuItem("Open...", "drop a file")) open_popup_ = true;
            if (ImGui::MenuItem("Screenshot", "P")) r.screenshot = true;
            ImGui::Separator();
            if (ImGui::MenuItem("Quit", "Esc")) r.quit = true;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("View")) {
            if (ImGui::MenuItem("Reset camera", "R")) r.reset_camera = true;
            if (ImGui::MenuItem("Frame scene", "F")) r.frame_scene = true;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("Help")) {
            ImGui::TextUnformatted(
                "Left drag: orbit around the target\n"
                "Middle drag or Shift+left drag: pan\n"
                "Wheel: dolly towards the target\n"
                "W A S D: fly, Q / E: down / up, Shift: faster\n"
                "Ctrl+left click: focus the lens on the point under the cursor\n"
                "R: reset to the scene's camera   F: frame the scene\n"
                "P: screenshot (image only)   Esc: quit\n"
                "Drop a .json, .obj, .ply, .gltf or .glb file on the window to open it");
            ImGui::EndMenu();
        }
        ImGui::TextDisabled("  %s  %dx%d  %u spp", d.scene_name.c_str(), d.render_width, d.render_height, d.samples);
        ImGui::EndMainMenuBar();
    }
    if (open_popup_) {
        ImGui::OpenPopup("Open scene");
        open_popup_ = false;
    }
    if (ImGui::BeginPopupModal("Open scene", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::TextUnformatted("Path of a .json scene, an .obj or .ply mesh or a .gltf/.glb model:");
        ImGui::SetNextItemWidth(420.0f);
        if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
        bool enter = ImGui::InputText("##path", &open_path_, ImGuiInputTextFlags_EnterReturnsTrue);
        if ((ImGui::Button("Open") || enter) && !open_path_.empty()) {
            r.open_path = open_path_;
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

void Panels::render_section(ViewSettings& s, const PanelData& d) {
    ImGui::Text("Device: %s", d.device.c_str());
    if (d.backends.size() > 1 && ImGui::BeginCombo("backend", s.backend.c_str())) {
        for (const auto& b : d.backends)
            if (ImGui::Selectable(b.c_str(), b == s.backend)) s.backend = b;
        ImGui::EndCombo();
    } else if (d.backends.size() <= 1) {
        ImGui::Text("Backend: %s", s.backend.c_str());
    }
    if (!s.mode) {
        ImGui::Text("Mode: cpu-threads");
    } else if (ImGui::BeginCombo("mode", mode_name(*s.mode))) {
        for (SchedulerMode m : d.modes)
            if (ImGui::Selectable(mode_name(m), m == *s.mode)) s.mode = m;
        ImGui::EndCombo();
    }
    ImGui::SliderInt("spp / frame", &s.spp_per_frame, 1, 64, "%d", ImGuiSliderFlags_AlwaysClamp);
    ImGui::SliderInt("max depth", &s.max_depth, 0, limits::kMaxDepth, "%d",
                     ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic);  // the useful depths are small
    ImGui::SliderFloat("resolution", &s.resolution_scale, 0.05f, 1.0f, "%.3f x window", ImGuiSliderFlags_AlwaysClamp);
    help_marker(
        "Render resolution as a fraction of the window. The CPU backend starts at 0.5 so the window stays responsive.");
    if (s.auto_exposure) ImGui::Text("exposure %+.2f stops (auto)", s.metered_stops);
    else ImGui::SliderFloat("exposure", &s.exposure, -8.0f, 8.0f, "%+.2f stops");
    ImGui::Checkbox("auto exposure", &s.auto_exposure);
    help_marker("The image's log-average luminance to mid grey (0.18), as pkrt render --exposure auto.");
    int tm = static_cast<int>(s.tone_map);
    ImGui::Combo("tone map", &tm, "clamp\0ACES fitted\0AgX\0");  // ToneCurve's order
    s.tone_map = static_cast<ToneCurve>(tm);
    ImGui::Checkbox("pause accumulation", &s.paused);
    ImGui::InputInt("stop at spp", &s.spp_target, 16, 256);
    s.spp_target = std::clamp(s.spp_target, 0, limits::kMaxSppTarget);
    help_marker(
        "Accumulation stops once every pixel has this many samples (0: never). The image then stays; any change starts again.");
    ImGui::Checkbox("stop when converged", &s.stop_when_converged);
    help_marker(
        "Adaptive sampling: rounds of samples go to the 8x8 tiles whose pixels' estimated relative error is above the "
        "target, until none is (or they reach 4096 spp). Not in resident mode.");
    if (s.stop_when_converged) {
        ImGui::SliderFloat("target error", &s.target_error, 0.002f, 0.5f, "%.3f",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        if (d.adaptive_refused)
            ImGui::TextColored(ImVec4(1.0f, 0.7f, 0.3f, 1.0f),
                               "resident mode samples uniformly here (pkrt render runs it)");
        else if (d.adaptive)
            ImGui::Text("%s: %.1f%% of pixels, %u rounds", d.converged ? "converged" : "converging",
                        100.0 * d.converged_fraction, d.rounds);
    }
    ImGui::Checkbox("denoise (N)", &s.denoise);
    help_marker(
        "Shows the accumulation denoised: a-trous guided by albedo, normal and depth, as pkrt render --denoise. The "
        "samples keep adding to the accumulation; the denoised image is refreshed from it as often as its cost "
        "allows (a fifth of the time, at least every 100 ms), and at once for a new view.");
    if (s.denoise) {
        ImGui::Checkbox("temporal reuse", &s.temporal);
        help_marker(
            "While the camera moves, each new view's few samples are blended with the views before it, carried to the "
            "pixels that show the same surface (SVGF's temporal step). Off: each view is denoised from its own samples alone.");
    }
    if (s.denoise && !d.denoise_note.empty()) ImGui::TextWrapped("%s", d.denoise_note.c_str());
    ImGui::Checkbox("samples per pixel map", &s.spp_map);
    help_marker(
        "Samples per pixel over the image, viridis on a log scale from the fewest (dark blue) to max spp (yellow).");
    if (s.spp_map)
        ImGui::SliderFloat("map opacity", &s.spp_map_opacity, 0.0f, 1.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
    ImGui::Text("Render %dx%d in a %dx%d window, %u spp", d.render_width, d.render_height, d.window_width,
                d.window_height, d.samples);
    ImGui::TextDisabled("%s", d.gl_context.c_str());
}

void Panels::camera_section(ViewSettings& s, const PanelData& d) {
    // Logarithmic: a lens radius of a thousandth of the scene is as useful as one of a tenth.
    float radius = std::max(d.scene_radius, 1e-6f);
    ImGui::SliderFloat("aperture", &s.aperture_radius, 0.0f, std::max(0.25f * radius, s.aperture_radius), "%.4g",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    help_marker("Lens radius in scene units; 0 is a pinhole, everything sharp.");
    ImGui::SliderFloat("focus distance", &s.focus_distance, 1e-3f * radius, std::max(10.0f * radius, s.focus_distance),
                       "%.4g", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    help_marker("Distance of the sharp plane along the view. Ctrl+left click on the image focuses on what it shows.");
}

void Panels::statistics_section(const PanelData& d) {
    if (d.gpu_timed)
        ImGui::Text("Frame: %.2f ms GPU (accumulate %.2f ms wall), %.1f fps", d.frame_ms, d.wall_ms, d.fps);
    else ImGui::Text("Frame: %.2f ms (accumulate, wall clock), %.1f fps", d.frame_ms, d.fps);
    ImGui::Text("Display upload: %.3f ms", d.upload_ms);
    help_marker("Map + copy_accumulation + unmap + glTexSubImage2D, closed by glFinish.");
    ImGui::TextWrapped("via %s", d.upload_path.c_str());

    // Per-mode histories: each mode keeps its own curve, so switching modes live compares them.
    if (d.history) {
        for (const auto& [mode, series] : d.history->series()) {
            if (series.ms.empty()) continue;
            char overlay[96];
            std::snprintf(overlay, sizeof overlay, "%s: %.2f ms", mode.c_str(), series.ms.back());
            ImGui::PlotLines(("##ms" + mode).c_str(), series.ms.data(), static_cast<int>(series.ms.size()), 0, overlay,
                             0.0f, FLT_MAX, plot_size(40));
            std::snprintf(overlay, sizeof overlay, "%s: %.1f Mrays/s", mode.c_str(), series.mrays_per_s.back());
            ImGui::PlotLines(("##rays" + mode).c_str(), series.mrays_per_s.data(),
                             static_cast<int>(series.mrays_per_s.size()), 0, overlay, 0.0f, FLT_MAX, plot_size(40));
        }
    }
    const RenderStats* st = d.last;
    if (!st) return;
    double seconds = d.frame_ms * 1e-3;
    ImGui::Text("Rays: %s (%s extension + %s shadow), %s rays/s", rate(static_cast<double>(st->total_rays())).c_str(),
                rate(static_cast<double>(st->extension_rays)).c_str(),
                rate(static_cast<double>(st->shadow_rays)).c_str(),
                rate(seconds > 0 ? st->total_rays() / seconds : 0).c_str());
    if (!st->extension_rays_by_depth.empty()) {
        std::vector<float> depth(st->extension_rays_by_depth.begin(), st->extension_rays_by_depth.end());
        ImGui::TextUnformatted("Extension rays by bounce depth (0 = camera rays)");
        ImGui::PlotHistogram("##depth", depth.data(), static_cast<int>(depth.size()), 0, nullptr, 0.0f, FLT_MAX,
                             plot_size(50));
    }
    bool gpu = st->frames > 0;
    if (!gpu) {
        ImGui::TextDisabled("Scheduler statistics: GPU backends only");
        return;
    }
    ImGui::Text("Launches per frame: %.1f", static_cast<double>(st->kernel_launches) / static_cast<double>(st->frames));
    double idle =
        st->warp_iterations ? static_cast<double>(st->idle_iterations) / static_cast<double>(st->warp_iterations) : 0.0;
    ImGui::Text("Idle share: %.1f%% of %s warp iterations", 100.0 * idle,
                rate(static_cast<double>(st->warp_iterations)).c_str());
    ImGui::Text("Queue: peak %llu, mean %.0f, capacity %d; grid %d x %d",
                static_cast<unsigned long long>(st->peak_queue), st->mean_queue, st->queue_capacity, st->grid_blocks,
                st->block_threads);
    if (st->shadows_queued >= 0) {
        // The persistent kernel's scheduling policy for this view (render/policy_tuner.h).
        const char* stragglers = st->stragglers_sorted ? "sorted" : "kept in lanes";
        ImGui::Text("Policy%s: %d blocks/SM, shadow rays %s, stragglers %s", st->policy_trial ? " (trying)" : "",
                    st->blocks_per_sm, st->shadows_queued ? "queued" : "traced where cast", stragglers);
        uint64_t overflow = st->shadows_queued ? st->inline_shadows : 0;  // in place by policy is not overflow
        if (st->kept_paths || overflow)
            ImGui::Text("Queue full: %llu paths kept in lanes, %llu shadow rays traced inline",
                        static_cast<unsigned long long>(st->kept_paths), static_cast<unsigned long long>(overflow));
    } else if (st->kept_paths || st->inline_shadows) {
        ImGui::Text("Queue full: %llu paths kept in lanes, %llu shadow rays traced inline",
                    static_cast<unsigned long long>(st->kept_paths),
                    static_cast<unsigned long long>(st->inline_shadows));
    }
    if (!st->timeline.empty()) {
        constexpr int kPoints = 200;
        std::vector<float> path = resample(st->timeline, 0, kPoints), shadow = resample(st->timeline, 1, kPoints),
                           flight = resample(st->timeline, 2, kPoints);
        float top = std::max({max_of(path), max_of(shadow), 1.0f});
        ImGui::Text("Queue depth over the last frame (%.0f us)", st->timeline.back().t_us - st->timeline.front().t_us);
        char overlay[64];
        std::snprintf(overlay, sizeof overlay, "path queue (peak %.0f)", max_of(path));
        ImGui::PlotLines("##pq", path.data(), kPoints, 0, overlay, 0.0f, top, plot_size(45));
        std::snprintf(overlay, sizeof overlay, "shadow queue (peak %.0f)", max_of(shadow));
        ImGui::PlotLines("##sq", shadow.data(), kPoints, 0, overlay, 0.0f, top, plot_size(45));
        std::snprintf(overlay, sizeof overlay, "paths in flight (peak %.0f)", max_of(flight));
        ImGui::PlotLines("##fl", flight.data(), kPoints, 0, overlay, 0.0f, FLT_MAX, plot_size(45));
    }
    if (!st->devices.empty()) {  // --devices: each GPU's share of the frame's paths (work is stolen, so they differ)
        ImGui::Text("GPUs: %s", st->work_sharing.c_str());
        if (ImGui::BeginTable("gpus", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
            ImGui::TableSetupColumn("GPU");
            ImGui::TableSetupColumn("share of the paths");
            ImGui::TableSetupColumn("GPU ms");
            ImGui::TableHeadersRow();
            uint64_t total = 0;
            for (const auto& d : st->devices) total += d.samples;
            for (const auto& d : st->devices) {
                float share = total ? static_cast<float>(static_cast<double>(d.samples) / total) : 0.0f;
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::Text("%d: %s", d.index, d.device.c_str());
                ImGui::TableNextColumn();
                char label[48];
                std::snprintf(label, sizeof label, "%.1f%% (%llu chunks)", 100.0f * share,
                              static_cast<unsigned long long>(d.chunks));
                ImGui::ProgressBar(share, ImVec2(-1, 0), label);
                ImGui::TableNextColumn();
                ImGui::Text("%.2f", d.gpu_ms);
            }
            ImGui::EndTable();
        }
    }
    if (!st->rays_per_sm.empty()) {
        std::vector<float> sm(st->rays_per_sm.begin(), st->rays_per_sm.end());
        float mx = max_of(sm), mn = *std::min_element(sm.begin(), sm.end());
        double mean = 0;
        for (float v : sm) mean += v;
        mean /= sm.size();
        ImGui::Text("Rays per SM (%zu SMs): min %s, max %s, max/mean %.2f", sm.size(), rate(mn).c_str(),
                    rate(mx).c_str(), mean > 0 ? mx / mean : 0.0);
        ImGui::PlotHistogram("##sm", sm.data(), static_cast<int>(sm.size()), 0, nullptr, 0.0f, mx * 1.05f,
                             plot_size(50));
    }
    if (!st->phase_cycles.empty()) {
        double total = 0;
        for (auto c : st->phase_cycles) total += static_cast<double>(c);
        if (total > 0 && ImGui::BeginTable("phases", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
            ImGui::TableSetupColumn("persistent phase");
            ImGui::TableSetupColumn("share of SM cycles");
            ImGui::TableHeadersRow();
            for (size_t i = 0; i < st->phase_cycles.size() && i < 8; ++i) {
                float share = static_cast<float>(st->phase_cycles[i] / total);
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(kPhaseNames[i]);
                ImGui::TableNextColumn();
                char label[32];
                std::snprintf(label, sizeof label, "%.1f%%", 100.0f * share);
                ImGui::ProgressBar(share, ImVec2(-1, 0), label);
            }
            ImGui::EndTable();
        }
    }
}

void Panels::compare_section(ViewSettings& s, const PanelData& d, PanelRequests& r) {
    ImGui::SliderInt("frames per mode", &s.compare_frames, 1, 200, "%d", ImGuiSliderFlags_AlwaysClamp);
    const ModeComparison* c = d.compare;
    if (c && c->running()) {
        ImGui::ProgressBar(c->progress(), ImVec2(-1, 0), "comparing modes...");
        if (ImGui::Button("Cancel")) r.cancel_compare = true;
    } else if (ImGui::Button("Compare modes")) {
        r.start_compare = true;
    }
    help_marker(
        "Renders the current view for K frames in each mode, interleaved A B C D like `pkrt bench`, each mode "
        "on its own backend. Times are GPU times (CUDA events) on the GPU, wall times on the CPU.");
    if (!c) return;
    if (!c->error().empty()) ImGui::TextWrapped("Comparison failed: %s", c->error().c_str());
    if (!c->result()) return;
    ImGui::TextDisabled("Results: the Mode comparison window");
}

void Panels::compare_window(const PanelData& d) {
    const ModeComparison* c = d.compare;
    if (!c || !c->result()) return;
    // Its own window, wide enough for the table, at the bottom left; it stays until the next comparison.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + 8, vp->WorkPos.y + vp->WorkSize.y - 8), ImGuiCond_Appearing,
                            ImVec2(0, 1));
    if (!ImGui::Begin("Mode comparison", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::End();
        return;
    }
    const CompareResult& res = *c->result();
    ImGui::TextUnformatted(res.description.c_str());
    std::string speed_header = "speedup of " + res.base_mode;
    if (ImGui::BeginTable("compare", 6,
                          ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("mode");
        ImGui::TableSetupColumn(res.gpu_timed ? "median ms (GPU)" : "median ms (wall)");
        ImGui::TableSetupColumn("min-max ms");
        ImGui::TableSetupColumn("rays/s");
        ImGui::TableSetupColumn("launches/frame");
        ImGui::TableSetupColumn(speed_header.c_str());
        ImGui::TableHeadersRow();
        for (const auto& row : res.rows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.mode.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", row.median_ms);
            ImGui::TableNextColumn();
            ImGui::Text("%.3f - %.3f", row.min_ms, row.max_ms);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(rate(row.rays_per_s).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.0f", row.launches_per_frame);
            ImGui::TableNextColumn();
            ImGui::Text("%.2fx", row.speedup_of_base);
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("speedup = mode's median time / %s's: above 1, %s is faster", res.base_mode.c_str(),
                        res.base_mode.c_str());
    ImGui::End();
}

}  // namespace pkrt::viewer
