// The GLFW window and its OpenGL context: asks for 4.5 core and steps down through older core
// versions (to 3.3, which the shaders need) when the driver refuses; loads the viewer's GL functions.
#pragma once

#include <string>

struct GLFWwindow;

namespace pkrt::viewer {

class GlWindow {
public:
    // Throws pkrt::Error with GLFW's own reason (no display, no suitable context, ...).
    GlWindow(int width, int height, const std::string& title, bool vsync);
    ~GlWindow();
    GlWindow(const GlWindow&) = delete;
    GlWindow& operator=(const GlWindow&) = delete;

    GLFWwindow* handle() const { return window_; }
    const std::string& context_description() const { return context_; }
    int gl_major() const { return major_; }
    int gl_minor() const { return minor_; }

private:
    GLFWwindow* window_ = nullptr;
    std::string context_;
    int major_ = 0, minor_ = 0;
};

// The last GLFW error message (GLFW reports errors through a callback, not return values).
std::string last_glfw_error();

}  // namespace pkrt::viewer
