// The image pass: draws the accumulation texture (RGBA32F: radiance sum, sample count) over the whole
// viewport through shaders/display.{vert,frag}: mean, exposure, tone curve, sRGB, as render/image/look.h
// defines them for pkrt render's PNGs. And the metering for automatic exposure (shaders/exposure.frag).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/viewer/gl_loader.h"
#include "render/image/look.h"

namespace pkrt::viewer {

class DisplayPass {
public:
    // Compiles and links the shaders in `shader_dir`. Throws pkrt::Error with one line naming the file
    // and the compiler's first complaint.
    explicit DisplayPass(const std::string& shader_dir);
    ~DisplayPass();
    DisplayPass(const DisplayPass&) = delete;
    DisplayPass& operator=(const DisplayPass&) = delete;

    void draw(GLuint texture, int x, int y, int width, int height, float exposure_stops, ToneCurve curve);
    // The automatic exposure of the accumulation in `texture`, in stops (auto_exposure_stops of the mean
    // log luminance of its 8x8-pixel blocks). Leaves the default framebuffer bound. Drops a metering
    // started before (start_metering), whose older value would otherwise replace this one.
    float metered_stops(GLuint texture);
    // The same without waiting for GL: start_metering queues the pass and its read-back into a pixel
    // buffer, and poll_metering returns the value once GL has done both (nothing before), so that no
    // frame waits for the read-back (beside a resident grid, a wait for GL's time slice). One at a time.
    void start_metering(GLuint texture);
    std::optional<float> poll_metering();
    bool metering() const { return meter_fence_ != nullptr; }

private:
    void release();  // every GL object this holds (the destructor, a constructor that failed)
    // One full-screen triangle of `program` over a width x height viewport at (x, y) of the bound framebuffer,
    // reading `texture` as its u_accum; `set` sets the program's other uniforms.
    template <class Uniforms>
    void full_screen(GLuint program, GLint u_accum, GLuint texture, int x, int y, int width, int height, Uniforms set);
    void draw_meter(GLuint texture);                         // into meter_fbo_, left bound
    static float stops_of(const std::vector<float>& tiles);  // the exposure of the metering pass's tiles
    static constexpr int kMeterTiles = 32;                   // the metering target is kMeterTiles x kMeterTiles tiles
    GLuint program_ = 0, vao_ = 0;
    GLint u_accum_ = -1, u_exposure_ = -1, u_tone_map_ = -1;
    GLuint meter_program_ = 0, meter_texture_ = 0, meter_fbo_ = 0;
    GLint u_meter_accum_ = -1, u_meter_tiles_ = -1;
    GLuint meter_pbo_ = 0;          // start_metering's read-back
    GLsync meter_fence_ = nullptr;  // set while one is on its way
};

}  // namespace pkrt::viewer
