#include "app/viewer/gl_loader.h"

#include <GLFW/glfw3.h>

namespace pkrt::gl {

#define PKRT_GL_DEFINE(type, name) type name = nullptr;
PKRT_GL_FUNCTIONS(PKRT_GL_DEFINE)
#undef PKRT_GL_DEFINE

bool load(std::string* missing) {
#define PKRT_GL_LOAD(type, name)                                   \
    name = reinterpret_cast<type>(glfwGetProcAddress("gl" #name)); \
    if (!name) {                                                   \
        if (missing) *missing = "gl" #name;                        \
        return false;                                              \
    }
    PKRT_GL_FUNCTIONS(PKRT_GL_LOAD)
#undef PKRT_GL_LOAD
    return true;
}

std::string describe_context() {
    auto str = [](GLenum e) {
        const GLubyte* s = GetString(e);
        return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
    };
    return str(GL_VERSION) + ", " + str(GL_RENDERER);
}

GLuint make_texture_2d(GLint filter) {
    GLuint t = 0;
    GenTextures(1, &t);
    BindTexture(GL_TEXTURE_2D, t);
    TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    BindTexture(GL_TEXTURE_2D, 0);
    return t;
}

}  // namespace pkrt::gl
