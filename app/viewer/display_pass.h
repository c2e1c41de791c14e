// The image pass: draws the accumulation texture (RGBA32F: radiance sum, sample count) over the whole
// viewport through shaders/display.{vert,frag}: mean, exposure, tone map, sRGB.
#pragma once

#include <string>

#include "app/viewer/gl_loader.h"

namespace pkrt::viewer {

enum class ToneMap : int { kAces = 0, kClamp = 1 };

class DisplayPass {
public:
    // Compiles and links the shaders in `shader_dir`. Throws pkrt::Error with one line naming the file
    // and the compiler's first complaint.
    explicit DisplayPass(const std::string& shader_dir);
    ~DisplayPass();
    DisplayPass(const DisplayPass&) = delete;
    DisplayPass& operator=(const DisplayPass&) = delete;

    void draw(GLuint texture, int viewport_width, int viewport_height, float exposure_stops, ToneMap tone_map);

private:
    GLuint program_ = 0, vao_ = 0;
    GLint u_accum_ = -1, u_exposure_ = -1, u_tone_map_ = -1;
};

}  // namespace pkrt::viewer
