// The samples-per-pixel map over the image (the Render panel's "samples per pixel map"): the
// accumulation's counts as a false-colour texture (render/adaptive.h: spp_map_rgba), drawn by ImGui
// behind its windows and over the image, as transparent as the panel says.
#pragma once

#include <cstdint>
#include <vector>

#include "app/viewer/gl_loader.h"

namespace pkrt::viewer {

class SppOverlay {
public:
    SppOverlay() = default;
    ~SppOverlay();
    SppOverlay(const SppOverlay&) = delete;
    SppOverlay& operator=(const SppOverlay&) = delete;

    // The map of a width x height image's counts, coloured from min_spp to max_spp.
    void update(int width, int height, const std::vector<uint32_t>& counts, int min_spp, int max_spp);
    // Between ImGui::NewFrame and ImGui::Render: the map over the whole window (as the image is drawn).
    void draw(float x, float y, float width, float height, float opacity) const;
    void clear();

private:
    GLuint texture_ = 0;
    int width_ = 0, height_ = 0;
};

}  // namespace pkrt::viewer
