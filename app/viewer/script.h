// --script FILE: drives the viewer for tests and demos by feeding its own input handlers the events a
// person would make (the same functions the GLFW callbacks call), one command per line:
//   frames N                      render N frames
//   drag X0 Y0 X1 Y1 [left|middle|right] [shift]
//                                 press at (X0,Y0), move to (X1,Y1) in steps, release (window pixels)
//   click X Y [left|middle|right] [shift] [ctrl]
//                                 press and release at (X,Y) (ctrl+left: focus the thin lens there)
//   key NAME [FRAMES] [shift]     press a key (W, A, R, F, P, LEFT_SHIFT, ...), hold it for FRAMES frames
//   scroll DY [X Y]               wheel notches (positive: towards the target) at (X,Y), default centre
//   screenshot PATH [ui]          save the image (no UI): a .png as shown, an .exr of the accumulation;
//                                 with 'ui', the next frame as shown, panels included (a .png)
//   mode NAME                     switch the scheduler mode, as the Render panel's combo does
//   open PATH                     open a scene, as dropping the file on the window does
//   resize W H                    resize the window
//   compare K                     run the Compare panel's mode comparison, K frames per mode, and wait
//                                 for it (the table also goes to stderr)
// '#' starts a comment. Held keys move the camera by a fixed 1/30 s per frame so a script is
// deterministic whatever the frame rate.
#pragma once

#include <string>
#include <vector>

namespace pkrt::viewer {

struct ScriptStep {
    enum class Kind { kFrames, kDrag, kClick, kKey, kScroll, kScreenshot, kMode, kOpen, kResize, kCompare };
    Kind kind = Kind::kFrames;
    int line = 0;
    int count = 0;                         // frames; key: frames held
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // drag; click and scroll positions in x0, y0
    bool has_position = false;             // scroll
    float amount = 0;                      // scroll notches
    int button = 0;                        // GLFW mouse button
    int key = 0;                           // GLFW key code
    int mods = 0;                          // GLFW modifier bits
    int width = 0, height = 0;             // resize
    std::string text;                      // screenshot path, mode, scene path
    bool with_ui = false;                  // screenshot: the whole window, panels included
};

// Throws pkrt::Error "FILE:LINE: ..." on the first bad line.
std::vector<ScriptStep> parse_script(const std::string& path);

// GLFW key code for a name ("W", "F1", "LEFT_SHIFT", "SPACE", "ESCAPE"), or -1.
int key_from_name(const std::string& name);

// What the script drives: implemented by the viewer with its real input handlers.
class ScriptTarget {
public:
    virtual ~ScriptTarget() = default;
    virtual void input_mouse_button(int button, int action, int mods, double x, double y) = 0;
    virtual void input_cursor(double x, double y) = 0;
    virtual void input_scroll(double dy, double x, double y) = 0;
    virtual void input_key(int key, int action, int mods) = 0;
    virtual void input_drop(const std::vector<std::string>& paths) = 0;
    virtual void script_screenshot(const std::string& path, bool with_ui) = 0;
    virtual void script_mode(const std::string& mode) = 0;
    virtual void script_resize(int width, int height) = 0;
    virtual void script_compare(int frames) = 0;
    // True while work started by a command is still running (a comparison): the script waits.
    virtual bool busy() const = 0;
    virtual void window_size(int* width, int* height) const = 0;
};

class ScriptRunner {
public:
    // `path`: the script's file, which an error of a command as it runs names with the command's line.
    ScriptRunner(std::vector<ScriptStep> steps, std::string path) : steps_(std::move(steps)), path_(std::move(path)) {}
    // Called once before each frame: runs commands until one asks for frames. Returns false when the
    // script has finished (nothing left to run and no frames pending).
    bool before_frame(ScriptTarget& target);

private:
    bool run_step(ScriptTarget& target, const ScriptStep& step);  // true: the frame is the step's

    std::vector<ScriptStep> steps_;
    std::string path_;
    size_t next_ = 0;
    int frames_left_ = 0;
    int held_key_ = -1, held_mods_ = 0;
    bool started_ = false;
};

}  // namespace pkrt::viewer
