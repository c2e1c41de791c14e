#include "app/viewer/display_pass.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "render/error.h"
#include "render/scene/input_file.h"

namespace pkrt::viewer {

namespace {

std::string read_file(const std::string& path) {
    return read_input_file(path, "cannot read shader (use --shaders DIR to point at the shaders/ directory)").bytes;
}

// The first non-empty line of a GL info log: drivers write several lines, the first says what and where.
std::string first_line(const std::string& log) {
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (!line.empty()) return line;
    }
    return "no message from the driver";
}

// The first line of a shader's or program's info log (get_iv / get_log: the shader or program pair).
template <class GetIv, class GetLog> std::string info_log_line(GLuint object, GetIv get_iv, GetLog get_log) {
    GLint len = 0;
    get_iv(object, GL_INFO_LOG_LENGTH, &len);
    std::vector<char> log(static_cast<size_t>(std::max(len, 1)));
    get_log(object, len, nullptr, log.data());
    return first_line(log.data());
}

GLuint compile(GLenum type, const std::string& path) {
    std::string src = read_file(path);
    GLuint s = gl::CreateShader(type);
    const char* text = src.c_str();
    gl::ShaderSource(s, 1, &text, nullptr);
    gl::CompileShader(s);
    GLint ok = 0;
    gl::GetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        std::string why = info_log_line(s, gl::GetShaderiv, gl::GetShaderInfoLog);
        gl::DeleteShader(s);
        throw Error(path + ": shader does not compile: " + why);
    }
    return s;
}

}  // namespace

DisplayPass::DisplayPass(const std::string& shader_dir) {
    std::string vs_path = shader_dir + "/display.vert", fs_path = shader_dir + "/display.frag";
    GLuint vs = compile(GL_VERTEX_SHADER, vs_path);
    GLuint fs = 0;
    try {
        fs = compile(GL_FRAGMENT_SHADER, fs_path);
    } catch (...) {
        gl::DeleteShader(vs);
        throw;
    }
    program_ = gl::CreateProgram();
    gl::AttachShader(program_, vs);
    gl::AttachShader(program_, fs);
    gl::LinkProgram(program_);
    gl::DeleteShader(vs);  // flagged for deletion; they live as long as the program
    gl::DeleteShader(fs);
    GLint ok = 0;
    gl::GetProgramiv(program_, GL_LINK_STATUS, &ok);
    if (!ok) {
        std::string why = info_log_line(program_, gl::GetProgramiv, gl::GetProgramInfoLog);
        gl::DeleteProgram(program_);
        program_ = 0;
        throw Error(shader_dir + ": display shaders do not link: " + why);
    }
    u_accum_ = gl::GetUniformLocation(program_, "u_accum");
    u_exposure_ = gl::GetUniformLocation(program_, "u_exposure_scale");
    u_tone_map_ = gl::GetUniformLocation(program_, "u_tone_map");
    // A shader edited into something that compiles but no longer reads these would show garbage silently.
    if (u_accum_ < 0 || u_exposure_ < 0 || u_tone_map_ < 0) {
        gl::DeleteProgram(program_);
        program_ = 0;
        throw Error(fs_path + ": the display shader must use the uniforms u_accum, u_exposure_scale and u_tone_map");
    }
    // Core profiles draw nothing without a bound vertex array, even one with no attributes.
    gl::GenVertexArrays(1, &vao_);
}

DisplayPass::~DisplayPass() {
    if (vao_) gl::DeleteVertexArrays(1, &vao_);
    if (program_) gl::DeleteProgram(program_);
}

void DisplayPass::draw(GLuint texture, int viewport_width, int viewport_height, float exposure_stops,
                       ToneMap tone_map) {
    gl::Viewport(0, 0, viewport_width, viewport_height);
    gl::Disable(GL_BLEND);
    gl::Disable(GL_DEPTH_TEST);
    gl::Disable(GL_SCISSOR_TEST);
    gl::Disable(GL_CULL_FACE);
    gl::UseProgram(program_);
    gl::ActiveTexture(GL_TEXTURE0);
    gl::BindTexture(GL_TEXTURE_2D, texture);
    gl::Uniform1i(u_accum_, 0);
    gl::Uniform1f(u_exposure_, std::exp2(exposure_stops));
    gl::Uniform1i(u_tone_map_, static_cast<int>(tone_map));
    gl::BindVertexArray(vao_);
    gl::DrawArrays(GL_TRIANGLES, 0, 3);
    gl::BindVertexArray(0);
    gl::UseProgram(0);
}

}  // namespace pkrt::viewer
