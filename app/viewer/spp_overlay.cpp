#include "app/viewer/spp_overlay.h"

#include <cstdint>

#include <imgui.h>

#include "render/adaptive.h"

namespace pkrt::viewer {

SppOverlay::~SppOverlay() { clear(); }

void SppOverlay::clear() {
    if (texture_) gl::DeleteTextures(1, &texture_);
    texture_ = 0;
    width_ = height_ = 0;
}

void SppOverlay::update(int width, int height, const std::vector<uint32_t>& counts, int min_spp, int max_spp) {
    std::vector<uint8_t> rgba = spp_map_rgba(width, height, counts, min_spp, max_spp);
    // Nearest: a tile's count is a block of one colour, and its edges should stay sharp.
    if (!texture_) texture_ = gl::make_texture_2d(GL_NEAREST);
    gl::BindTexture(GL_TEXTURE_2D, texture_);
    gl::PixelStorei(GL_UNPACK_ALIGNMENT, 1);
    if (width != width_ || height != height_) {
        gl::TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
        width_ = width;
        height_ = height;
    } else {
        gl::TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    }
    gl::BindTexture(GL_TEXTURE_2D, 0);
}

void SppOverlay::draw(float x, float y, float width, float height, float opacity) const {
    if (!texture_ || opacity <= 0.0f) return;
    // Row 0 of the map is the image's top row, uploaded first: v = 0 at the top, as ImGui draws.
    ImGui::GetBackgroundDrawList()->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture_)),
                                             ImVec2(x, y), ImVec2(x + width, y + height), ImVec2(0, 0), ImVec2(1, 1),
                                             IM_COL32(255, 255, 255, static_cast<int>(opacity * 255.0f + 0.5f)));
}

}  // namespace pkrt::viewer
