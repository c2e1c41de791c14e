#include "render/texture/sky_sun.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "kernels/shading/environment.h"
#include "render/scene/load_limits.h"
#include "render/scene/loaders.h"

namespace pkrt {

namespace {

constexpr double kPiD = 3.14159265358979323846;

// The map's direction at (u, v) in [0, 1]^2 (kernels/shading/environment.h: phi from -Z towards +X,
// theta from +Y).
Vec3 map_direction(double u, double v) {
    double phi = 2.0 * kPiD * (u - 0.5), theta = kPiD * v;
    return Vec3{static_cast<float>(std::sin(theta) * std::sin(phi)), static_cast<float>(std::cos(theta)),
                static_cast<float>(-std::sin(theta) * std::cos(phi))};
}

}  // namespace

int sun_sky_map_width(float angle_degrees) {
    int w = 512;
    while (w < 8192 && 360.0 / w * 3.0 > angle_degrees) w *= 2;
    return w;
}

void set_sky_with_sun(Scene& scene, const Sun& sun, float intensity) {
    const Environment sky = scene.environment;  // kEnvSky, its colours scaled already
    const int w = sun_sky_map_width(sun.angle_degrees), h = w / 2;
    scene.env_map = EnvironmentMap{};  // a replaced map no longer counts against the budget
    check_texel_budget(
        scene.limits,
        "environment.sun (its sky map's texels count " + std::to_string(kEnvironmentTexelWeight) + " each)",
        texel_budget_used(scene), static_cast<uint64_t>(w) * h * kEnvironmentTexelWeight);
    EnvironmentMap m;
    m.path = "the sky with its sun";
    m.width = w;
    m.height = h;
    m.texels.resize(static_cast<size_t>(w) * h);
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i)
            m.texels[static_cast<size_t>(j) * w + i] =
                environment_radiance(sky, map_direction((i + 0.5) / w, (j + 0.5) / h));
    // The sky's colours carry the intensity already; the map is installed at intensity 1, so the sun
    // takes it here.
    const Vec3 d = normalize(sun.direction);
    const double radius = 0.5 * sun.angle_degrees * kPiD / 180.0, cos_radius = std::cos(radius);
    // The texels the disc touches: those within its radius and a texel's diagonal of its centre, each
    // covered in the fraction of 8 x 8 points of it inside the disc.
    const double texel = kPiD / h, reach = radius + 1.5 * texel;  // a texel's centre to its corner: 0.71
    const double theta_d = std::acos(std::clamp(static_cast<double>(d.y), -1.0, 1.0));
    const int j0 = std::max(0, static_cast<int>(std::floor((theta_d - reach) / texel)));
    const int j1 = std::min(h - 1, static_cast<int>(std::ceil((theta_d + reach) / texel)));
    std::unordered_map<size_t, double> cover;  // texel -> the fraction of it inside the disc
    constexpr int kSub = 8;
    const double cos_reach = std::cos(std::min(kPiD, reach));
    for (int j = j0; j <= j1; ++j)
        for (int i = 0; i < w; ++i) {
            // Cheap rejection first: the texel's centre against the disc and the texel's reach.
            Vec3 c = map_direction((i + 0.5) / w, (j + 0.5) / h);
            if (dot(c, d) < cos_reach) continue;
            int inside = 0;
            for (int b = 0; b < kSub; ++b)
                for (int a = 0; a < kSub; ++a)
                    inside +=
                        dot(map_direction((i + (a + 0.5) / kSub) / w, (j + (b + 0.5) / kSub) / h), d) >= cos_radius;
            if (inside > 0) cover[static_cast<size_t>(j) * w + i] = static_cast<double>(inside) / (kSub * kSub);
        }
    // The disc's light as the renderer sees it: the lookup's bilinear reconstruction of the fractions
    // (columns wrapping, rows clamped) over the sphere. Near a pole that differs from the texels' sum
    // (the reconstruction moves light between rows of different solid angle), so the radiance is scaled
    // by the reconstruction's integral, and the map delivers the irradiance asked for at any elevation.
    auto fraction = [&](int i, int j) {
        i = (i % w + w) % w;
        j = std::clamp(j, 0, h - 1);
        auto it = cover.find(static_cast<size_t>(j) * w + i);
        return it == cover.end() ? 0.0 : it->second;
    };
    auto bilinear = [&](double u, double v) {
        double x = u * w - 0.5, y = v * h - 0.5, fx = std::floor(x), fy = std::floor(y);
        int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
        double ax = x - fx, ay = y - fy;
        double top = (1 - ax) * fraction(x0, y0) + ax * fraction(x0 + 1, y0);
        double bottom = (1 - ax) * fraction(x0, y0 + 1) + ax * fraction(x0 + 1, y0 + 1);
        return (1 - ay) * top + ay * bottom;
    };
    std::unordered_set<size_t> region;  // the covered texels and their neighbours
    for (const auto& [k, f] : cover) {
        const int i = static_cast<int>(k % w), j = static_cast<int>(k / w);
        for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di)
                region.insert(static_cast<size_t>(std::clamp(j + dj, 0, h - 1)) * w + ((i + di) % w + w) % w);
    }
    double solid_angle = 0.0;  // of the disc as the reconstruction holds it
    const double cell = (2.0 * kPiD / (w * kSub)) * (kPiD / (h * kSub));
    for (size_t k : region) {
        const int i = static_cast<int>(k % w), j = static_cast<int>(k / w);
        for (int b = 0; b < kSub; ++b)
            for (int a = 0; a < kSub; ++a) {
                double u = (i + (a + 0.5) / kSub) / w, v = (j + (b + 0.5) / kSub) / h;
                solid_angle += bilinear(u, v) * std::sin(kPiD * v) * cell;
            }
    }
    if (solid_angle > 0.0) {
        const Vec3 radiance = sun.irradiance * static_cast<float>(intensity / solid_angle);
        for (const auto& [k, f] : cover) m.texels[k] += radiance * static_cast<float>(f);
    }
    install_environment_map(scene, std::move(m), 1.0f, 0.0f);
}

}  // namespace pkrt
