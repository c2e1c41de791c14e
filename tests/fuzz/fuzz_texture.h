// Shared by the per-decoder texture targets (fuzz_png, fuzz_jpeg, fuzz_tga, fuzz_bmp, fuzz_hdr,
// fuzz_exr): the input decoded in memory as a texture named `name` (the format is told by signature;
// the name matters only for TGA, which has none) within small limits, then sampled in
// software over its edges and wrap modes, as a render would read it. No files and no BVH: each input
// costs only its decoder, so a target's seconds go to its decoder.
#pragma once

#include <new>

#include "tests/fuzz/fuzz_common.h"
#include "kernels/shading/texture.h"
#include "render/scene/loaders.h"

namespace pkrt_fuzz {

inline int fuzz_texture(const char* name, const uint8_t* data, size_t size) {
    pkrt::Scene s;
    s.limits = small_limits();
    s.limits.max_texels = 1 << 20;  // a quarter of the scene targets': a float texture of 150,000 texels
    try {
        int32_t i = pkrt::decode_texture(s, name, name, data, size);
        const pkrt::TextureImage& t = s.textures.at(static_cast<size_t>(i));
        pkrt::TextureView v = pkrt::default_texture_view(i);
        v.format = t.format;
        if (t.format == pkrt::kTextureRgba32f) v.texels_f = t.texels_f.data();
        else v.texels = t.texels.data();
        v.width = t.width;
        v.height = t.height;
        volatile float sink = 0.0f;
        for (int32_t wrap : {pkrt::kWrapRepeat, pkrt::kWrapClamp, pkrt::kWrapMirror}) {
            v.wrap_u = v.wrap_v = wrap;
            for (float u : {-0.25f, 0.0f, 0.5f, 1.0f, 1.75f})
                sink = sink + pkrt::texture_sample_software(v, u, 1.0f - u).x;
        }
    } catch (const pkrt::Error&) {
    } catch (const std::bad_alloc&) {
        std::abort();  // the limits must keep allocations small; running out of memory is a finding
    }
    return 0;
}

}  // namespace pkrt_fuzz
