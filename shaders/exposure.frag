// Metering for automatic exposure (render/image/look.h): each fragment of a small target takes one tile
// of the accumulation's 8x8-pixel blocks and sums, over them, the log of each block's mean luminance
// (over its pixels with samples), as auto_exposure_stops does on the host, and counts the blocks; the
// host adds the tiles up. Every pixel is read once (texelFetch, no filtering), so the viewer's exposure
// is the one pkrt render computes from the same image.
#version 330 core

out vec2 tile_sum;  // (sum of log block luminance, blocks with samples)

uniform sampler2D u_accum;
uniform int u_tiles;  // tiles per side of the target

const int kBlock = 8;  // kMeterBlock

void main() {
    ivec2 size = textureSize(u_accum, 0);
    ivec2 blocks = (size + kBlock - 1) / kBlock;
    ivec2 tile = (blocks + u_tiles - 1) / u_tiles;
    ivec2 lo = ivec2(gl_FragCoord.xy) * tile;
    ivec2 hi = min(lo + tile, blocks);
    float sum = 0.0;
    float n = 0.0;
    for (int by = lo.y; by < hi.y; ++by) {
        for (int bx = lo.x; bx < hi.x; ++bx) {
            vec3 rad = vec3(0.0);
            float pixels = 0.0;
            for (int y = by * kBlock; y < min(by * kBlock + kBlock, size.y); ++y) {
                for (int x = bx * kBlock; x < min(bx * kBlock + kBlock, size.x); ++x) {
                    vec4 a = texelFetch(u_accum, ivec2(x, y), 0);
                    if (a.a > 0.0) {
                        rad += a.rgb / a.a;
                        pixels += 1.0;
                    }
                }
            }
            if (pixels > 0.0) {
                float l = dot(rad / pixels, vec3(0.2126, 0.7152, 0.0722));
                if (isnan(l) || isinf(l)) l = 0.0;
                sum += log(max(l, 0.0) + 1e-4);
                n += 1.0;
            }
        }
    }
    tile_sum = vec2(sum, n);
}
