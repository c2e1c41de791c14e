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

// The program of the full-screen vertex shader and the fragment shader `fs_path`. Throws Error.
GLuint link_program(const std::string& shader_dir, const std::string& fs_path) {
    std::string vs_path = shader_dir + "/display.vert";
    GLuint vs = compile(GL_VERTEX_SHADER, vs_path);
    GLuint fs = 0;
    try {
        fs = compile(GL_FRAGMENT_SHADER, fs_path);
    } catch (...) {
        gl::DeleteShader(vs);
        throw;
    }
    GLuint program = gl::CreateProgram();
    gl::AttachShader(program, vs);
    gl::AttachShader(program, fs);
    gl::LinkProgram(program);
    gl::DeleteShader(vs);  // flagged for deletion; they live as long as the program
    gl::DeleteShader(fs);
    GLint ok = 0;
    gl::GetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        std::string why = info_log_line(program, gl::GetProgramiv, gl::GetProgramInfoLog);
        gl::DeleteProgram(program);
        throw Error(fs_path + ": shaders do not link: " + why);
    }
    return program;
}

}  // namespace

DisplayPass::DisplayPass(const std::string& shader_dir) {
    std::string fs_path = shader_dir + "/display.frag", meter_path = shader_dir + "/exposure.frag";
    try {
        program_ = link_program(shader_dir, fs_path);
        u_accum_ = gl::GetUniformLocation(program_, "u_accum");
        u_exposure_ = gl::GetUniformLocation(program_, "u_exposure_scale");
        u_tone_map_ = gl::GetUniformLocation(program_, "u_tone_map");
        // A shader edited into something that compiles but no longer reads these would show garbage silently.
        if (u_accum_ < 0 || u_exposure_ < 0 || u_tone_map_ < 0)
            throw Error(fs_path +
                        ": the display shader must use the uniforms u_accum, u_exposure_scale and u_tone_map");
        meter_program_ = link_program(shader_dir, meter_path);
        u_meter_accum_ = gl::GetUniformLocation(meter_program_, "u_accum");
        u_meter_tiles_ = gl::GetUniformLocation(meter_program_, "u_tiles");
        if (u_meter_accum_ < 0 || u_meter_tiles_ < 0)
            throw Error(meter_path + ": the metering shader must use the uniforms u_accum and u_tiles");
        // Its target: one RG32F texel a tile (sum, blocks), float sums the host adds up in double.
        meter_texture_ = gl::make_texture_2d(GL_NEAREST);
        gl::BindTexture(GL_TEXTURE_2D, meter_texture_);
        gl::TexImage2D(GL_TEXTURE_2D, 0, GL_RG32F, kMeterTiles, kMeterTiles, 0, GL_RG, GL_FLOAT, nullptr);
        gl::BindTexture(GL_TEXTURE_2D, 0);
        gl::GenFramebuffers(1, &meter_fbo_);
        gl::BindFramebuffer(GL_FRAMEBUFFER, meter_fbo_);
        gl::FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, meter_texture_, 0);
        GLenum status = gl::CheckFramebufferStatus(GL_FRAMEBUFFER);
        gl::BindFramebuffer(GL_FRAMEBUFFER, 0);
        if (status != GL_FRAMEBUFFER_COMPLETE)
            throw Error("the GL context cannot render to an RG32F texture (automatic exposure's metering)");
    } catch (...) {
        release();
        throw;
    }
    // Core profiles draw nothing without a bound vertex array, even one with no attributes.
    gl::GenVertexArrays(1, &vao_);
}

DisplayPass::~DisplayPass() { release(); }

void DisplayPass::release() {
    if (vao_) gl::DeleteVertexArrays(1, &vao_);
    if (program_) gl::DeleteProgram(program_);
    if (meter_program_) gl::DeleteProgram(meter_program_);
    if (meter_fbo_) gl::DeleteFramebuffers(1, &meter_fbo_);
    if (meter_texture_) gl::DeleteTextures(1, &meter_texture_);
    if (meter_pbo_) gl::DeleteBuffers(1, &meter_pbo_);
    if (meter_fence_) gl::DeleteSync(meter_fence_);
    vao_ = program_ = meter_program_ = meter_fbo_ = meter_texture_ = meter_pbo_ = 0;
    meter_fence_ = nullptr;
}

template <class Uniforms>
void DisplayPass::full_screen(GLuint program, GLint u_accum, GLuint texture, int x, int y, int width, int height,
                              Uniforms set) {
    gl::Viewport(x, y, width, height);
    gl::Disable(GL_BLEND);
    gl::Disable(GL_DEPTH_TEST);
    gl::Disable(GL_SCISSOR_TEST);
    gl::Disable(GL_CULL_FACE);
    gl::UseProgram(program);
    gl::ActiveTexture(GL_TEXTURE0);
    gl::BindTexture(GL_TEXTURE_2D, texture);
    gl::Uniform1i(u_accum, 0);
    set();
    gl::BindVertexArray(vao_);
    gl::DrawArrays(GL_TRIANGLES, 0, 3);
    gl::BindVertexArray(0);
    gl::UseProgram(0);
}

void DisplayPass::draw_meter(GLuint texture) {
    gl::BindFramebuffer(GL_FRAMEBUFFER, meter_fbo_);
    full_screen(meter_program_, u_meter_accum_, texture, 0, 0, kMeterTiles, kMeterTiles,
                [&] { gl::Uniform1i(u_meter_tiles_, kMeterTiles); });
    gl::PixelStorei(GL_PACK_ALIGNMENT, 4);
    gl::ReadBuffer(GL_COLOR_ATTACHMENT0);
}

float DisplayPass::stops_of(const std::vector<float>& tiles) {
    double sum = 0, blocks = 0;
    for (size_t i = 0; i < tiles.size(); i += 2) sum += tiles[i], blocks += tiles[i + 1];
    return auto_exposure_stops(sum, blocks);
}

float DisplayPass::metered_stops(GLuint texture) {
    if (meter_fence_) {  // a metering still on its way is of an older image: it would land after this one
        gl::DeleteSync(meter_fence_);
        meter_fence_ = nullptr;
    }
    draw_meter(texture);
    std::vector<float> tiles(2 * kMeterTiles * kMeterTiles);
    gl::ReadPixels(0, 0, kMeterTiles, kMeterTiles, GL_RG, GL_FLOAT, tiles.data());
    gl::BindFramebuffer(GL_FRAMEBUFFER, 0);
    return stops_of(tiles);
}

void DisplayPass::start_metering(GLuint texture) {
    if (meter_fence_) return;
    const GLsizeiptr bytes = 2 * kMeterTiles * kMeterTiles * static_cast<GLsizeiptr>(sizeof(float));
    if (!meter_pbo_) {
        gl::GenBuffers(1, &meter_pbo_);
        gl::BindBuffer(GL_PIXEL_PACK_BUFFER, meter_pbo_);
        gl::BufferData(GL_PIXEL_PACK_BUFFER, bytes, nullptr, GL_STREAM_READ);
    } else {
        gl::BindBuffer(GL_PIXEL_PACK_BUFFER, meter_pbo_);
    }
    draw_meter(texture);
    gl::ReadPixels(0, 0, kMeterTiles, kMeterTiles, GL_RG, GL_FLOAT, nullptr);  // into the buffer, offset 0
    gl::BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    gl::BindFramebuffer(GL_FRAMEBUFFER, 0);
    meter_fence_ = gl::FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

std::optional<float> DisplayPass::poll_metering() {
    if (!meter_fence_) return std::nullopt;
    GLenum state = gl::ClientWaitSync(meter_fence_, GL_SYNC_FLUSH_COMMANDS_BIT, 0);
    if (state == GL_TIMEOUT_EXPIRED) return std::nullopt;
    gl::DeleteSync(meter_fence_);
    meter_fence_ = nullptr;
    if (state == GL_WAIT_FAILED) return std::nullopt;
    std::vector<float> tiles(2 * kMeterTiles * kMeterTiles);
    gl::BindBuffer(GL_PIXEL_PACK_BUFFER, meter_pbo_);
    gl::GetBufferSubData(GL_PIXEL_PACK_BUFFER, 0, static_cast<GLsizeiptr>(tiles.size() * sizeof(float)), tiles.data());
    gl::BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    return stops_of(tiles);
}

void DisplayPass::draw(GLuint texture, int x, int y, int width, int height, float exposure_stops, ToneCurve curve) {
    full_screen(program_, u_accum_, texture, x, y, width, height, [&] {
        gl::Uniform1f(u_exposure_, std::exp2(exposure_stops));
        gl::Uniform1i(u_tone_map_, static_cast<int>(curve));
    });
}

}  // namespace pkrt::viewer
