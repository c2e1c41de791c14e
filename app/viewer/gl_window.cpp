#include "app/viewer/gl_window.h"

#include <cstdlib>

#include <GLFW/glfw3.h>

#include "app/viewer/gl_loader.h"
#include "render/error.h"

namespace pkrt::viewer {

namespace {

std::string g_last_error;

void on_glfw_error(int code, const char* description) {
    g_last_error =
        std::string(description ? description : "unknown error") + " (GLFW error " + std::to_string(code) + ")";
}

}  // namespace

std::string last_glfw_error() { return g_last_error.empty() ? std::string("no reason given") : g_last_error; }

GlWindow::GlWindow(int width, int height, const std::string& title, bool vsync) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit())
        throw Error("cannot open a window: " + last_glfw_error() +
                    (std::getenv("DISPLAY") ? "" : "; DISPLAY is not set"));
    // Newest first: 4.5 is what the viewer is written against; older core contexts still run it (the
    // shaders are GLSL 330), and Mesa's llvmpipe under Xvfb gives 4.5 core.
    static const int versions[][2] = {{4, 5}, {4, 4}, {4, 3}, {4, 2}, {4, 1}, {4, 0}, {3, 3}};
    std::string first_error;
    for (const auto& v : versions) {
        glfwDefaultWindowHints();
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, v[0]);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, v[1]);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
        glfwWindowHint(GLFW_DOUBLEBUFFER, GLFW_TRUE);
        window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
        if (window_) break;
        if (first_error.empty()) first_error = last_glfw_error();
    }
    if (!window_) {
        glfwTerminate();
        throw Error("cannot create an OpenGL 3.3+ core context: " + first_error);
    }
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(vsync ? 1 : 0);
    std::string missing;
    if (!gl::load(&missing)) {
        glfwDestroyWindow(window_);
        glfwTerminate();
        throw Error("the OpenGL driver lacks " + missing);
    }
    major_ = glfwGetWindowAttrib(window_, GLFW_CONTEXT_VERSION_MAJOR);
    minor_ = glfwGetWindowAttrib(window_, GLFW_CONTEXT_VERSION_MINOR);
    context_ = gl::describe_context();
}

GlWindow::~GlWindow() {
    if (window_) glfwDestroyWindow(window_);
    glfwTerminate();
}

}  // namespace pkrt::viewer
