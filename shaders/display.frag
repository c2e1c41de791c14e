// Accumulation to screen: (radiance sum rgb, sample count a) -> mean radiance -> exposure -> tone map
// -> sRGB. The default framebuffer is plain 8-bit (not GL_FRAMEBUFFER_SRGB), so the sRGB curve is applied
// here and a glReadPixels screenshot holds exactly what the window shows.
#version 330 core

in vec2 v_uv;
out vec4 frag_color;

uniform sampler2D u_accum;
uniform float u_exposure_scale;  // 2^stops
uniform int u_tone_map;          // 0: ACES fitted, 1: clamp (what `pkrt render` writes to PNG)

// ACES filmic tone curve as fitted by Stephen Hill (RRT + ODT, with the sRGB <-> ACEScg-ish matrices).
const mat3 kAcesIn = mat3(0.59719, 0.07600, 0.02840,
                          0.35458, 0.90834, 0.13383,
                          0.04823, 0.01566, 0.83777);
const mat3 kAcesOut = mat3(1.60475, -0.10208, -0.00327,
                           -0.53108, 1.10813, -0.07276,
                           -0.07367, -0.00605, 1.07602);

vec3 rrt_and_odt_fit(vec3 v) {
    vec3 a = v * (v + 0.0245786) - 0.000090537;
    vec3 b = v * (0.983729 * v + 0.4329510) + 0.238081;
    return a / b;
}

vec3 aces_fitted(vec3 c) {
    c = kAcesIn * c;
    c = rrt_and_odt_fit(c);
    c = kAcesOut * c;
    return clamp(c, 0.0, 1.0);
}

vec3 linear_to_srgb(vec3 c) {
    vec3 lo = 12.92 * c;
    vec3 hi = 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055;
    return mix(hi, lo, vec3(lessThanEqual(c, vec3(0.0031308))));
}

void main() {
    vec4 acc = texture(u_accum, v_uv);
    vec3 c = acc.a > 0.0 ? acc.rgb / acc.a : vec3(0.0);
    // A NaN or infinite pixel must not poison the tone curve: show it black (the renderer already drops
    // such samples; this only guards the display).
    if (any(isnan(c)) || any(isinf(c))) c = vec3(0.0);
    c = max(c * u_exposure_scale, vec3(0.0));
    c = u_tone_map == 0 ? aces_fitted(c) : clamp(c, 0.0, 1.0);
    frag_color = vec4(linear_to_srgb(c), 1.0);
}
