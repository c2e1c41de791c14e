// Accumulation to screen: (radiance sum rgb, sample count a) -> mean radiance -> exposure -> tone map
// -> sRGB. The default framebuffer is plain 8-bit (not GL_FRAMEBUFFER_SRGB), so the sRGB curve is applied
// here and a glReadPixels screenshot holds exactly what the window shows.
#version 330 core

in vec2 v_uv;
out vec4 frag_color;

uniform sampler2D u_accum;
uniform float u_exposure_scale;  // 2^stops
uniform int u_tone_map;          // render/image/look.h's ToneCurve: 0 clamp, 1 ACES fitted, 2 AgX

// The curves as render/image/look.cpp defines them for pkrt render's PNGs, line for line: a test checks
// that a screenshot equals pkrt render's PNG.

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

// AgX: into its working space, log2 over its range of stops, the default look's sigmoid (a polynomial
// fit), back out; its output is display-encoded (a 2.2 power), made linear again for the sRGB curve.
const mat3 kAgxIn = mat3(0.842479062253094, 0.0423282422610123, 0.0423756549057051,
                         0.0784335999999992, 0.878468636469772, 0.0784336,
                         0.0792237451477643, 0.0791661274605434, 0.879142973793104);
const mat3 kAgxOut = mat3(1.19687900512017, -0.0528968517574562, -0.0529716355144438,
                          -0.0980208811401368, 1.15190312990417, -0.0980434501171241,
                          -0.0990297440797205, -0.0989611768448433, 1.15107367264116);
const float kAgxMinEv = -12.47393;
const float kAgxMaxEv = 4.026069;

vec3 agx_contrast(vec3 x) {
    vec3 x2 = x * x;
    vec3 x4 = x2 * x2;
    return 15.5 * x4 * x2 - 40.14 * x4 * x + 31.96 * x4 - 6.868 * x2 * x + 0.4298 * x2 + 0.1191 * x - 0.00232;
}

vec3 agx(vec3 c) {
    c = kAgxIn * c;
    c = clamp(log2(max(c, vec3(1e-10))), kAgxMinEv, kAgxMaxEv);
    c = agx_contrast((c - kAgxMinEv) / (kAgxMaxEv - kAgxMinEv));
    c = clamp(kAgxOut * c, 0.0, 1.0);
    return pow(c, vec3(2.2));
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
    c = u_tone_map == 1 ? aces_fitted(c) : u_tone_map == 2 ? agx(c) : clamp(c, 0.0, 1.0);
    frag_color = vec4(linear_to_srgb(c), 1.0);
}
