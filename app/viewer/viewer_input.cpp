// The input handlers: GLFW's callbacks and --script both call them, so a scripted test drives exactly the
// code a person does. Mouse drags orbit, pan and dolly; held keys fly; Ctrl+click focuses the lens.
#include <cmath>
#include <cstdio>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_internal.h>

#include "app/viewer/gl_window.h"
#include "app/viewer/screenshot.h"
#include "app/viewer/viewer_app.h"
#include "kernels/traversal/bvh_traverse.h"
#include "render/log.h"

namespace pkrt::viewer {

namespace {

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

}  // namespace

void ViewerApp::install_input_callbacks() {
    GLFWwindow* win = window_->handle();
    glfwSetWindowUserPointer(win, this);
    glfwSetMouseButtonCallback(win, on_mouse_button);
    glfwSetCursorPosCallback(win, on_cursor);
    glfwSetScrollCallback(win, on_scroll);
    glfwSetKeyCallback(win, on_key);
    glfwSetDropCallback(win, on_drop);
    glfwSetWindowFocusCallback(win, on_focus);
}

void ViewerApp::camera_changed() {
    progressive_.set_camera(camera_spec_);
    view_change_.changed(progressive_.generation() + 1);  // the image the next reset starts
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
    const int h = area_.height;
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
    if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) {
        bookmark_key(key - GLFW_KEY_0, (mods & GLFW_MOD_CONTROL) != 0);
        return;
    }
    switch (key) {
        case GLFW_KEY_R: reset_camera(); break;
        case GLFW_KEY_F: frame_scene(); break;
        case GLFW_KEY_N: view_.denoise = !view_.denoise; break;  // apply_settings follows this frame
        case GLFW_KEY_P: {                                       // Shift+P: the linear image as EXR
            const bool exr = (mods & GLFW_MOD_SHIFT) || held_keys_.count(GLFW_KEY_LEFT_SHIFT) ||
                             held_keys_.count(GLFW_KEY_RIGHT_SHIFT);
            const std::string ext = exr ? ".exr" : ".png";
            bool named = !options_.screenshot.empty() && image_extension(options_.screenshot) == ext;
            take_screenshot(named ? options_.screenshot : next_screenshot_name(".", ext));
            break;
        }
        case GLFW_KEY_TAB: ui_hidden_ = !ui_hidden_; break;
        case GLFW_KEY_F1: help_open_ = !help_open_; break;
        case GLFW_KEY_ESCAPE: glfwSetWindowShouldClose(window_->handle(), GLFW_TRUE); break;
        default: break;
    }
}

void ViewerApp::bookmark_key(int slot, bool save) {
    try {
        if (save) {
            write_output("--bookmarks", bookmarks_.path(), bookmarks_.save(slot, camera_spec_));
            set_status("bookmark " + std::to_string(slot) + " saved to " + bookmarks_.path(), false);
        } else if (const auto& c = bookmarks_.get(slot)) {
            camera_spec_ = *c;
            camera_changed();
            set_status("bookmark " + std::to_string(slot), false);
        } else {
            set_status("no bookmark " + std::to_string(slot) + " (Ctrl+" + std::to_string(slot) + " saves one)", false);
        }
    } catch (const Error& e) {
        set_status(e.what(), true);
    }
}

void ViewerApp::draw_help() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    if (ImGui::Begin("Keys (F1)", &help_open_, ImGuiWindowFlags_AlwaysAutoResize)) {
        static const char* const keys[][2] = {
            {"left drag", "orbit"},
            {"middle drag, Shift+left drag", "pan"},
            {"wheel, right drag", "dolly"},
            {"W A S D, Q E (Shift: faster)", "fly"},
            {"Ctrl+click", "focus the thin lens there"},
            {"R / F", "the scene's camera / frame the scene"},
            {"1..9 / Ctrl+1..9", "recall / save a camera bookmark"},
            {"N", "denoised view on or off"},
            {"P / Shift+P", "screenshot: PNG as shown / EXR, linear"},
            {"Tab", "hide or show the panels"},
            {"F1", "this help"},
            {"Esc", "quit"},
        };
        if (ImGui::BeginTable("keys", 2)) {
            for (const auto& k : keys) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(k[0]);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(k[1]);
            }
            ImGui::EndTable();
        }
        ImGui::TextDisabled("bookmarks: %s", bookmarks_.path().c_str());
    }
    ImGui::End();
}

void ViewerApp::reset_camera() {
    if (camera_.reset(camera_spec_)) camera_changed();
}

void ViewerApp::frame_scene() {
    const int w = area_.width, h = area_.height;
    if (h > 0 && camera_.frame(camera_spec_, static_cast<float>(w) / static_cast<float>(h))) camera_changed();
}

void ViewerApp::focus_at(double x, double y) {
    // The point in the image area, whose view it is.
    const int w = area_.width, h = area_.height;
    x -= area_.x;
    y -= area_.y;
    if (w <= 0 || h <= 0 || x < 0 || y < 0 || x >= w || y >= h) return;
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
    log_info("%s", msg);
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

}  // namespace pkrt::viewer
