// The OpenGL entry points the viewer's own code calls (the display pass, the accumulation texture and
// its pixel buffer, screenshots), loaded through glfwGetProcAddress once the context is current.
//
// Why this and not GL_GLEXT_PROTOTYPES with libOpenGL: glvnd's libOpenGL exports every core function as a
// dispatch stub, so linking succeeds whatever the context supports, and a function the driver lacks
// crashes at its first call. Loading through the context's own GetProcAddress (the mechanism GLFW used to
// create it) checks every function we use once, at start-up, and turns a missing one into a one-line
// error. It also means the viewer links no GL library: GLFW and ImGui's OpenGL3 backend open libGL
// themselves. The pointers live in pkrt::gl, so they never collide with libGL's exported gl* symbols.
#pragma once

#include <string>

#include <GL/glcorearb.h>

namespace pkrt::gl {

#define PKRT_GL_FUNCTIONS(X)                               \
    X(PFNGLGETSTRINGPROC, GetString)                       \
    X(PFNGLGETINTEGERVPROC, GetIntegerv)                   \
    X(PFNGLGETERRORPROC, GetError)                         \
    X(PFNGLVIEWPORTPROC, Viewport)                         \
    X(PFNGLCLEARCOLORPROC, ClearColor)                     \
    X(PFNGLCLEARPROC, Clear)                               \
    X(PFNGLFINISHPROC, Finish)                             \
    X(PFNGLDISABLEPROC, Disable)                           \
    X(PFNGLGENTEXTURESPROC, GenTextures)                   \
    X(PFNGLDELETETEXTURESPROC, DeleteTextures)             \
    X(PFNGLBINDTEXTUREPROC, BindTexture)                   \
    X(PFNGLACTIVETEXTUREPROC, ActiveTexture)               \
    X(PFNGLTEXIMAGE2DPROC, TexImage2D)                     \
    X(PFNGLTEXSUBIMAGE2DPROC, TexSubImage2D)               \
    X(PFNGLTEXPARAMETERIPROC, TexParameteri)               \
    X(PFNGLPIXELSTOREIPROC, PixelStorei)                   \
    X(PFNGLREADBUFFERPROC, ReadBuffer)                     \
    X(PFNGLREADPIXELSPROC, ReadPixels)                     \
    X(PFNGLBINDFRAMEBUFFERPROC, BindFramebuffer)           \
    X(PFNGLGENBUFFERSPROC, GenBuffers)                     \
    X(PFNGLDELETEBUFFERSPROC, DeleteBuffers)               \
    X(PFNGLBINDBUFFERPROC, BindBuffer)                     \
    X(PFNGLBUFFERDATAPROC, BufferData)                     \
    X(PFNGLGETBUFFERSUBDATAPROC, GetBufferSubData)         \
    X(PFNGLFENCESYNCPROC, FenceSync)                       \
    X(PFNGLCLIENTWAITSYNCPROC, ClientWaitSync)             \
    X(PFNGLDELETESYNCPROC, DeleteSync)                     \
    X(PFNGLCREATESHADERPROC, CreateShader)                 \
    X(PFNGLSHADERSOURCEPROC, ShaderSource)                 \
    X(PFNGLCOMPILESHADERPROC, CompileShader)               \
    X(PFNGLGETSHADERIVPROC, GetShaderiv)                   \
    X(PFNGLGETSHADERINFOLOGPROC, GetShaderInfoLog)         \
    X(PFNGLDELETESHADERPROC, DeleteShader)                 \
    X(PFNGLCREATEPROGRAMPROC, CreateProgram)               \
    X(PFNGLATTACHSHADERPROC, AttachShader)                 \
    X(PFNGLLINKPROGRAMPROC, LinkProgram)                   \
    X(PFNGLGETPROGRAMIVPROC, GetProgramiv)                 \
    X(PFNGLGETPROGRAMINFOLOGPROC, GetProgramInfoLog)       \
    X(PFNGLDELETEPROGRAMPROC, DeleteProgram)               \
    X(PFNGLUSEPROGRAMPROC, UseProgram)                     \
    X(PFNGLGETUNIFORMLOCATIONPROC, GetUniformLocation)     \
    X(PFNGLUNIFORM1IPROC, Uniform1i)                       \
    X(PFNGLUNIFORM1FPROC, Uniform1f)                       \
    X(PFNGLGENVERTEXARRAYSPROC, GenVertexArrays)           \
    X(PFNGLDELETEVERTEXARRAYSPROC, DeleteVertexArrays)     \
    X(PFNGLBINDVERTEXARRAYPROC, BindVertexArray)           \
    X(PFNGLDRAWARRAYSPROC, DrawArrays)                     \
    X(PFNGLGENFRAMEBUFFERSPROC, GenFramebuffers)           \
    X(PFNGLDELETEFRAMEBUFFERSPROC, DeleteFramebuffers)     \
    X(PFNGLFRAMEBUFFERTEXTURE2DPROC, FramebufferTexture2D) \
    X(PFNGLCHECKFRAMEBUFFERSTATUSPROC, CheckFramebufferStatus)

#define PKRT_GL_DECLARE(type, name) extern type name;
PKRT_GL_FUNCTIONS(PKRT_GL_DECLARE)
#undef PKRT_GL_DECLARE

// Loads every function above from the current context. Returns false and names the first missing one.
bool load(std::string* missing);

// "4.5 (Core Profile) Mesa 22.3.6, llvmpipe (LLVM 15.0.6, 256 bits)": for the panel and the log.
std::string describe_context();

// A new 2D texture with `filter` (GL_LINEAR, GL_NEAREST) both ways, clamped at its edges; left unbound.
GLuint make_texture_2d(GLint filter);

}  // namespace pkrt::gl
