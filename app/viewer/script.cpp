#include "app/viewer/script.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <GLFW/glfw3.h>

#include "render/error.h"
#include "render/image/image.h"
#include "render/strict_number.h"
#include "render/scene/input_file.h"
#include "render/scene/render_limits.h"

namespace pkrt::viewer {

namespace {

constexpr int kDragSteps = 16;  // intermediate cursor events per drag, like a real mouse's stream

// Numbers as every flag and file reads them (render/strict_number.h): decimal, whole, finite.
bool parse_int(const std::string& s, int* out) {
    int64_t v = 0;
    if (!parse_strict_integer(s, -1000000, 1000000, &v)) return false;
    *out = static_cast<int>(v);
    return true;
}

bool parse_float(const std::string& s, float* out) {
    double v = 0.0;
    if (!parse_strict_decimal(s, &v) || std::fabs(v) > 1e9) return false;
    *out = static_cast<float>(v);
    return true;
}

}  // namespace

int key_from_name(const std::string& name) {
    if (name.size() == 1) {
        char c = name[0];
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
        if (c >= 'A' && c <= 'Z') return GLFW_KEY_A + (c - 'A');
        if (c >= '0' && c <= '9') return GLFW_KEY_0 + (c - '0');
    }
    static const std::map<std::string, int> named = {{"SPACE", GLFW_KEY_SPACE},
                                                     {"ESCAPE", GLFW_KEY_ESCAPE},
                                                     {"ENTER", GLFW_KEY_ENTER},
                                                     {"TAB", GLFW_KEY_TAB},
                                                     {"LEFT_SHIFT", GLFW_KEY_LEFT_SHIFT},
                                                     {"RIGHT_SHIFT", GLFW_KEY_RIGHT_SHIFT},
                                                     {"LEFT", GLFW_KEY_LEFT},
                                                     {"RIGHT", GLFW_KEY_RIGHT},
                                                     {"UP", GLFW_KEY_UP},
                                                     {"DOWN", GLFW_KEY_DOWN},
                                                     {"F1", GLFW_KEY_F1},
                                                     {"F2", GLFW_KEY_F2},
                                                     {"F12", GLFW_KEY_F12}};
    auto it = named.find(name);
    return it == named.end() ? -1 : it->second;
}

std::vector<ScriptStep> parse_script(const std::string& path) {
    // Regular files only: a FIFO or /dev/zero named as the script must not hang the viewer.
    std::istringstream in(read_input_file(path, "cannot read the script (no such file)").bytes);
    std::vector<ScriptStep> steps;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream ls(line);
        std::vector<std::string> w;
        for (std::string t; ls >> t;) w.push_back(t);
        if (w.empty()) continue;
        auto fail = [&](const std::string& why) { return Error(path + ":" + std::to_string(number) + ": " + why); };
        ScriptStep s;
        s.line = number;
        const std::string& cmd = w[0];
        if (cmd == "frames") {
            s.kind = ScriptStep::Kind::kFrames;
            if (w.size() != 2 || !parse_int(w[1], &s.count) || s.count < 0)
                throw fail("expected 'frames N' with N >= 0");
        } else if (cmd == "drag") {
            s.kind = ScriptStep::Kind::kDrag;
            if (w.size() < 5 || w.size() > 7 || !parse_float(w[1], &s.x0) || !parse_float(w[2], &s.y0) ||
                !parse_float(w[3], &s.x1) || !parse_float(w[4], &s.y1))
                throw fail("expected 'drag X0 Y0 X1 Y1 [left|middle|right] [shift]'");
            s.button = GLFW_MOUSE_BUTTON_LEFT;
            for (size_t i = 5; i < w.size(); ++i) {
                if (w[i] == "left") s.button = GLFW_MOUSE_BUTTON_LEFT;
                else if (w[i] == "middle") s.button = GLFW_MOUSE_BUTTON_MIDDLE;
                else if (w[i] == "right") s.button = GLFW_MOUSE_BUTTON_RIGHT;
                else if (w[i] == "shift") s.mods |= GLFW_MOD_SHIFT;
                else throw fail("drag: unknown word '" + w[i] + "' (left, middle, right or shift)");
            }
        } else if (cmd == "click") {
            s.kind = ScriptStep::Kind::kClick;
            if (w.size() < 3 || w.size() > 6 || !parse_float(w[1], &s.x0) || !parse_float(w[2], &s.y0))
                throw fail("expected 'click X Y [left|middle|right] [shift] [ctrl]'");
            s.button = GLFW_MOUSE_BUTTON_LEFT;
            for (size_t i = 3; i < w.size(); ++i) {
                if (w[i] == "left") s.button = GLFW_MOUSE_BUTTON_LEFT;
                else if (w[i] == "middle") s.button = GLFW_MOUSE_BUTTON_MIDDLE;
                else if (w[i] == "right") s.button = GLFW_MOUSE_BUTTON_RIGHT;
                else if (w[i] == "shift") s.mods |= GLFW_MOD_SHIFT;
                else if (w[i] == "ctrl") s.mods |= GLFW_MOD_CONTROL;
                else throw fail("click: unknown word '" + w[i] + "' (left, middle, right, shift or ctrl)");
            }
        } else if (cmd == "key") {
            s.kind = ScriptStep::Kind::kKey;
            if (w.size() < 2 || w.size() > 5) throw fail("expected 'key NAME [FRAMES] [shift] [ctrl]'");
            s.key = key_from_name(w[1]);
            if (s.key < 0) throw fail("key: unknown key name '" + w[1] + "'");
            for (size_t i = 2; i < w.size(); ++i) {
                if (w[i] == "shift") s.mods |= GLFW_MOD_SHIFT;
                else if (w[i] == "ctrl") s.mods |= GLFW_MOD_CONTROL;
                else if (!parse_int(w[i], &s.count) || s.count < 0) throw fail("key: FRAMES must be a number >= 0");
            }
        } else if (cmd == "scroll") {
            s.kind = ScriptStep::Kind::kScroll;
            if ((w.size() != 2 && w.size() != 4) || !parse_float(w[1], &s.amount))
                throw fail("expected 'scroll DY [X Y]'");
            if (w.size() == 4) {
                if (!parse_float(w[2], &s.x0) || !parse_float(w[3], &s.y0))
                    throw fail("scroll: X and Y must be numbers");
                s.has_position = true;
            }
        } else if (cmd == "screenshot") {
            s.kind = ScriptStep::Kind::kScreenshot;
            if (w.size() < 2 || w.size() > 3 || (w.size() == 3 && w[2] != "ui"))
                throw fail("expected 'screenshot PATH [ui]'");
            s.text = w[1];
            s.with_ui = w.size() == 3;
            // The file is written as its extension says; "a.bmp" would have been a PNG by another name.
            const std::string ext = image_extension(s.text);
            if (ext != ".png" && ext != ".exr") throw fail("screenshot: PATH must end in .png or .exr");
            if (s.with_ui && ext != ".png") throw fail("screenshot PATH ui: the window as shown is a .png");
        } else if (cmd == "mode" || cmd == "open") {
            s.kind = cmd == "mode" ? ScriptStep::Kind::kMode : ScriptStep::Kind::kOpen;
            if (w.size() != 2) throw fail("expected '" + cmd + " " + (cmd == "mode" ? "NAME" : "PATH") + "'");
            s.text = w[1];
        } else if (cmd == "resize") {
            s.kind = ScriptStep::Kind::kResize;
            if (w.size() != 3 || !parse_int(w[1], &s.width) || !parse_int(w[2], &s.height) || s.width < 1 ||
                s.height < 1 || s.width > limits::kMaxImageSide || s.height > limits::kMaxImageSide)
                throw fail("expected 'resize W H' with sides between 1 and " + std::to_string(limits::kMaxImageSide));
        } else if (cmd == "compare") {
            s.kind = ScriptStep::Kind::kCompare;
            if (w.size() != 2 || !parse_int(w[1], &s.count) || s.count < 1 || s.count > 1000)
                throw fail("expected 'compare K' with K between 1 and 1000");
        } else {
            throw fail("unknown command '" + cmd +
                       "' (frames, drag, click, key, scroll, screenshot, mode, open, resize, compare)");
        }
        steps.push_back(std::move(s));
    }
    return steps;
}

bool ScriptRunner::before_frame(ScriptTarget& t) {
    if (t.busy()) return true;
    if (frames_left_ > 0) {
        --frames_left_;
        return true;
    }
    if (held_key_ >= 0) {
        t.input_key(held_key_, GLFW_RELEASE, held_mods_);
        if (held_mods_ & GLFW_MOD_SHIFT) t.input_key(GLFW_KEY_LEFT_SHIFT, GLFW_RELEASE, 0);
        held_key_ = -1;
    }
    while (next_ < steps_.size()) {
        const ScriptStep& s = steps_[next_++];
        try {
            if (run_step(t, s)) return true;
        } catch (const Error& e) {
            throw Error(path_ + ":" + std::to_string(s.line) + ": " + e.what());
        }
    }
    return false;
}

bool ScriptRunner::run_step(ScriptTarget& t, const ScriptStep& s) {
    switch (s.kind) {
        case ScriptStep::Kind::kFrames:
            if (s.count > 0) {
                frames_left_ = s.count - 1;  // this frame is the first of them
                return true;
            }
            break;
        case ScriptStep::Kind::kDrag: {
            t.input_cursor(s.x0, s.y0);
            t.input_mouse_button(s.button, GLFW_PRESS, s.mods, s.x0, s.y0);
            for (int i = 1; i <= kDragSteps; ++i) {
                float f = static_cast<float>(i) / kDragSteps;
                t.input_cursor(s.x0 + (s.x1 - s.x0) * f, s.y0 + (s.y1 - s.y0) * f);
            }
            t.input_mouse_button(s.button, GLFW_RELEASE, s.mods, s.x1, s.y1);
            break;
        }
        case ScriptStep::Kind::kClick:
            t.input_cursor(s.x0, s.y0);
            t.input_mouse_button(s.button, GLFW_PRESS, s.mods, s.x0, s.y0);
            t.input_mouse_button(s.button, GLFW_RELEASE, s.mods, s.x0, s.y0);
            break;
        case ScriptStep::Kind::kKey:
            if (s.mods & GLFW_MOD_SHIFT) t.input_key(GLFW_KEY_LEFT_SHIFT, GLFW_PRESS, GLFW_MOD_SHIFT);
            t.input_key(s.key, GLFW_PRESS, s.mods);
            if (s.count > 0) {
                // Held through the next `count` frames, released before the one after.
                held_key_ = s.key;
                held_mods_ = s.mods;
                frames_left_ = s.count - 1;
                return true;
            }
            t.input_key(s.key, GLFW_RELEASE, s.mods);
            if (s.mods & GLFW_MOD_SHIFT) t.input_key(GLFW_KEY_LEFT_SHIFT, GLFW_RELEASE, 0);
            break;
        case ScriptStep::Kind::kScroll: {
            int w = 0, h = 0;
            t.window_size(&w, &h);
            t.input_scroll(s.amount, s.has_position ? s.x0 : w * 0.5, s.has_position ? s.y0 : h * 0.5);
            break;
        }
        case ScriptStep::Kind::kScreenshot: t.script_screenshot(s.text, s.with_ui); break;
        case ScriptStep::Kind::kMode: t.script_mode(s.text); break;
        case ScriptStep::Kind::kOpen: t.input_drop({s.text}); break;
        case ScriptStep::Kind::kResize: t.script_resize(s.width, s.height); break;
        case ScriptStep::Kind::kCompare:
            t.script_compare(s.count);
            return true;  // starts in this frame; busy() holds the script until it is done
    }
    return false;
}

}  // namespace pkrt::viewer
