// BSDF correctness in the local frame (normal = +z), checked against the properties every path tracer
// relies on rather than against stored numbers:
//   1. bsdf_pdf integrates over the sphere to the probability that bsdf_sample succeeds (per lobe);
//   2. the directions bsdf_sample draws follow bsdf_pdf (chi-square goodness of fit);
//   3. reciprocity, including the generalised form that radiance-scaled transmission obeys;
//   4. energy: the mean throughput weight (the albedo) never exceeds 1 from outside, and the smooth
//      lobes are deltas with the textbook Fresnel split;
//   5. no NaN or Inf on edge cases (normal incidence, grazing wo.z = 1e-7, alpha at kSmoothAlpha).
// Plus: every sample's pdf and weight agree with bsdf_pdf / bsdf_eval. The *NearSmoothThreshold tests
// hold alpha in [kSmoothAlpha, 0.01] to the same energy and consistency bounds as the rougher lobes.
// Every statistical check uses fixed seeds, so the outcome is deterministic.
//
// The pdf integrals are deterministic quadratures over the sphere in (|cos theta|, phi) per hemisphere,
// with nodes graded (cubically) toward the lobe's peak so that alpha = 0.05 is resolved without a huge
// uniform grid; they never call the sampler, so they check sample() and pdf() independently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/shading/bsdf.h"
#include "kernels/shading/rng.h"

using namespace pkrt;

namespace {

constexpr double kPiD = 3.14159265358979323846;

BsdfParams make_diffuse(Vec3 albedo) { return BsdfParams{kDiffuse, albedo, 0.0f, 1.0f, 0.0f}; }
BsdfParams make_conductor(float alpha, Vec3 f0) { return BsdfParams{kConductor, f0, alpha, 1.0f, 0.0f}; }
BsdfParams make_dielectric(float alpha, float eta, Vec3 tint = splat(1.0f)) {
    return BsdfParams{kDielectric, tint, alpha, eta, 0.0f};
}
BsdfParams make_metal_rough(float alpha, float metallic, Vec3 base) {
    return BsdfParams{kMetalRough, base, alpha, 1.5f, metallic};
}

// A metal-rough lobe: GGX alpha and metallic.
struct MetalRough {
    float alpha, metallic;
};

const Vec3 kF0 = {0.9f, 0.6f, 0.3f};

// Direction at polar angle theta (degrees, from +z) and azimuth phi; `inside` mirrors it to -z.
Vec3 dir_deg(double theta_deg, double phi, bool inside = false) {
    double t = theta_deg * kPiD / 180.0;
    Vec3 w = {float(std::sin(t) * std::cos(phi)), float(std::sin(t) * std::sin(phi)), float(std::cos(t))};
    if (inside) w.z = -w.z;
    return w;
}

std::string describe(const BsdfParams& p, Vec3 wo) {
    static const char* names[] = {"diffuse", "conductor", "dielectric", "metal_rough"};
    char buf[240];
    std::snprintf(buf, sizeof buf, "%s alpha=%g eta=%g metallic=%g wo=(%.4f %.4f %.4f) theta_o=%.1f deg", names[p.type],
                  p.alpha, p.eta, p.metallic, wo.x, wo.y, wo.z, std::acos(std::fabs(double(wo.z))) * 180.0 / kPiD);
    return buf;
}

bool finite3(Vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// Draws the three uniforms bsdf_sample expects from one fixed PCG stream.
bool draw(const BsdfParams& p, Vec3 wo, Rng& rng, BsdfSample& s) {
    float u0 = rng.next_float(), u1 = rng.next_float(), u2 = rng.next_float();
    return bsdf_sample(p, wo, u0, u1, u2, s);
}

// ---------------------------------------------------------------------------------------------------
// Quadrature of bsdf_pdf over regions of the sphere.

// What the quadrature must know about the pdf on one hemisphere, in its coordinates (c = |cos theta|,
// phi): where the lobe peaks, and where it is discontinuous.
//  - Peak: in wo's hemisphere the mirror direction; in the other the Snell direction (the horizon
//    under total internal reflection); in azimuth, opposite wo for both, since the mirror and the
//    refracted direction lie in the plane of incidence, on the far side.
//  - Break: transmission pairs whose generalised half vector n(wi) wi + n(wo) wo lies in the tangent
//    plane (m.z = 0) sit on the line c = |wo.z| n(wo) / n(wi). GGX gives such microfacets a nonzero
//    density (D = alpha^2 / pi at m.z = 0) and there are none below, so the transmission pdf jumps to 0
//    across that line; a node grid straddling it converges only as O(h), so it is made a panel edge.
struct HemiLayout {
    double hemi;     // +1: upper hemisphere, -1: lower
    double c_peak;   // |cos theta| of the lobe's peak
    double c_break;  // |cos theta| of a discontinuity, or -1
    double phi_peak;
};

HemiLayout hemi_layout(const BsdfParams& p, Vec3 wo, bool same_side_as_wo) {
    double co = std::fabs(double(wo.z));
    double so = std::sqrt(std::max(0.0, 1.0 - co * co));
    HemiLayout h{0.0, co, -1.0, std::atan2(double(wo.y), double(wo.x)) + kPiD};
    h.hemi = (wo.z > 0) == same_side_as_wo ? 1.0 : -1.0;
    if (!same_side_as_wo && p.type == kDielectric) {
        double n_ratio = wo.z > 0 ? 1.0 / p.eta : p.eta;  // n(wo) / n(wi)
        double st = so * n_ratio;
        h.c_peak = st >= 1.0 ? 0.0 : std::sqrt(1.0 - st * st);
        h.c_break = co * n_ratio;
    }
    return h;
}

struct Node {
    double x, w;
};

// Quadrature nodes on [a, b]: composite 3-point Gauss-Legendre (exact for polynomials of degree 5
// per panel), with [a, b] cut into pieces at `cuts` (discontinuities of the pdf, and a window around
// the lobe's peak) so that no panel straddles a jump. The piece holding the peak (clamped to [a, b])
// is graded cubically toward it on either side, x = q -+ L t^3 over n panels uniform in t: spacing
// ~ 3 L^(1/3) d^(2/3) / n at distance d from q, so a lobe as narrow as alpha^2 in cos theta
// (alpha = 0.05 at normal incidence) still gets dozens of nodes. The other pieces get n uniform
// panels, so the tails (and the square-root kink of Fresnel at the critical angle) stay resolved.
std::vector<Node> graded_nodes(double a, double b, double peak, int n, std::vector<double> cuts = {}) {
    static const double gx[3] = {-0.7745966692414834, 0.0, 0.7745966692414834};
    static const double gw[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    std::vector<double> edges = {a, b};
    for (double x : cuts)
        if (x > a && x < b) edges.push_back(x);
    std::sort(edges.begin(), edges.end());
    double q = std::clamp(peak, a, b);
    std::vector<Node> out;
    const double half = 0.5 / n;
    for (size_t k = 0; k + 1 < edges.size(); ++k) {
        double lo = edges[k], hi = edges[k + 1];
        if (hi <= lo) continue;
        bool has_peak = q >= lo && q <= hi && !(q == hi && k + 2 < edges.size());
        if (!has_peak) {
            for (int i = 0; i < n; ++i)
                for (int g = 0; g < 3; ++g)
                    out.push_back({lo + (hi - lo) * ((i + 0.5) / n + gx[g] * half), (hi - lo) * gw[g] * half});
            continue;
        }
        for (int side = 0; side < 2; ++side) {
            double len = side == 0 ? q - lo : hi - q;
            if (len <= 0.0) continue;
            double sign = side == 0 ? -1.0 : 1.0;
            for (int i = 0; i < n; ++i)
                for (int g = 0; g < 3; ++g) {
                    double t = (i + 0.5) / n + gx[g] * half;
                    out.push_back({q + sign * len * t * t * t, len * 3.0 * t * t * gw[g] * half});
                }
        }
    }
    return out;
}

// Integral of bsdf_pdf(wo, .) over the patch {c in [c0, c1], phi in [phi0, phi1]} of hemisphere h;
// the solid angle element is dc dphi.
double integrate_patch(const BsdfParams& p, Vec3 wo, const HemiLayout& h, double c0, double c1, double phi0,
                       double phi1, int n) {
    // Bring the azimuth peak to the representative nearest the patch's centre.
    double mid = 0.5 * (phi0 + phi1);
    double phi_peak = mid + std::remainder(h.phi_peak - mid, 2.0 * kPiD);
    // Peak windows: +-0.1 in cos theta, +-0.3 rad in azimuth (a few alpha at the smallest alpha tested).
    std::vector<Node> cs = graded_nodes(c0, c1, h.c_peak, n, {h.c_peak - 0.1, h.c_peak + 0.1, h.c_break});
    std::vector<Node> ps = graded_nodes(phi0, phi1, phi_peak, n, {phi_peak - 0.3, phi_peak + 0.3});
    std::vector<float> cosp(ps.size()), sinp(ps.size());
    for (size_t j = 0; j < ps.size(); ++j) {
        cosp[j] = float(std::cos(ps[j].x));
        sinp[j] = float(std::sin(ps[j].x));
    }
    double sum = 0.0;
    for (const Node& c : cs) {
        float r = float(std::sqrt(std::max(0.0, 1.0 - c.x * c.x)));
        float z = float(h.hemi * c.x);
        double row = 0.0;
        for (size_t j = 0; j < ps.size(); ++j) {
            row += double(bsdf_pdf(p, wo, Vec3{r * cosp[j], r * sinp[j], z})) * ps[j].w;
        }
        sum += row * c.w;
    }
    return sum;
}

// Integral of the pdf over the hemisphere on wo's side (reflection) or the other (transmission).
double integrate_hemisphere(const BsdfParams& p, Vec3 wo, bool same_side_as_wo, int n) {
    HemiLayout h = hemi_layout(p, wo, same_side_as_wo);
    return integrate_patch(p, wo, h, 0.0, 1.0, h.phi_peak - kPiD, h.phi_peak + kPiD, n);
}

// ---------------------------------------------------------------------------------------------------
// Chi-square machinery (Numerical Recipes, 3rd ed., 6.2): regularised upper incomplete gamma Q(a, x).

double gamma_series_p(double a, double x) {  // P(a, x) by its series; converges fast for x < a + 1
    double ap = a, del = 1.0 / a, sum = del;
    for (int n = 0; n < 10000; ++n) {
        ap += 1.0;
        del *= x / ap;
        sum += del;
        if (std::fabs(del) < std::fabs(sum) * 1e-15) break;
    }
    return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

double gamma_cf_q(double a, double x) {  // Q(a, x) by its continued fraction (modified Lentz); x >= a + 1
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < 10000; ++i) {
        double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (std::fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (std::fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (std::fabs(del - 1.0) < 1e-15) break;
    }
    return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

double gamma_q(double a, double x) {
    if (x <= 0.0) return 1.0;
    return x < a + 1.0 ? 1.0 - gamma_series_p(a, x) : gamma_cf_q(a, x);
}

// p-value of a chi-square statistic with dof degrees of freedom.
double chi2_pvalue(double chi2, int dof) { return gamma_q(0.5 * dof, 0.5 * chi2); }

struct Chi2Result {
    double chi2 = 0.0, pvalue = 0.0;
    int dof = 0;
    int zero_cells_hit = 0;  // samples that landed in cells of (numerically) zero expected count
};

// Pearson's statistic over cells, pooling the smallest cells until each pooled group expects >= 5
// (the approximation by the chi-square law needs it; this follows Mitsuba's chi2 test).
Chi2Result chi2_test(const std::vector<double>& observed, const std::vector<double>& expected, double n) {
    std::vector<size_t> order(observed.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return expected[a] < expected[b]; });
    Chi2Result r;
    double pool_obs = 0.0, pool_exp = 0.0;
    int cells = 0;
    for (size_t i : order) {
        if (expected[i] == 0.0) {
            // Where the pdf is 0 the sampler must not go (allow float noise at a lobe's edge).
            if (observed[i] > n * 1e-5) r.zero_cells_hit += int(observed[i]);
        } else if (expected[i] < 5.0 || (pool_exp > 0.0 && pool_exp < 5.0)) {
            pool_obs += observed[i];
            pool_exp += expected[i];
        } else {
            r.chi2 += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
            ++cells;
        }
    }
    if (pool_exp > 0.0) {
        r.chi2 += (pool_obs - pool_exp) * (pool_obs - pool_exp) / pool_exp;
        ++cells;
    }
    r.dof = cells - 1;
    r.pvalue = r.dof > 0 ? chi2_pvalue(r.chi2, r.dof) : 1.0;
    return r;
}

// Every (wo, params) case the distribution tests run.
struct Case {
    BsdfParams p;
    Vec3 wo;
};

std::vector<Case> distribution_cases(const std::vector<float>& conductor_alphas,
                                     const std::vector<float>& dielectric_alphas, const std::vector<float>& etas,
                                     const std::vector<double>& thetas, const std::vector<MetalRough>& metal_rough) {
    std::vector<Case> cases;
    const double phi_o = 0.7;  // any azimuth off the grid lines
    for (double th : thetas) cases.push_back({make_diffuse(splat(0.8f)), dir_deg(th, phi_o)});
    for (float a : conductor_alphas)
        for (double th : thetas) cases.push_back({make_conductor(a, kF0), dir_deg(th, phi_o)});
    for (float a : dielectric_alphas)
        for (float eta : etas)
            for (int inside = 0; inside < 2; ++inside)
                for (double th : thetas) cases.push_back({make_dielectric(a, eta), dir_deg(th, phi_o, inside)});
    for (MetalRough mr : metal_rough)
        for (double th : thetas) cases.push_back({make_metal_rough(mr.alpha, mr.metallic, kF0), dir_deg(th, phi_o)});
    return cases;
}

}  // namespace

// ===================================================================================================
// 0. The statistics helper itself, against closed forms: Q(1, x) = e^-x, Q(1/2, x) = erfc(sqrt x).

TEST(BsdfStats, IncompleteGammaMatchesClosedForms) {
    for (double x : {0.01, 0.5, 1.0, 2.0, 5.0, 20.0}) {
        EXPECT_NEAR(gamma_q(1.0, x), std::exp(-x), 1e-12) << x;
        EXPECT_NEAR(gamma_q(0.5, x), std::erfc(std::sqrt(x)), 1e-12) << x;
    }
    // The textbook 0.05 critical values of chi-square: 3.841 (1 dof), 18.307 (10 dof), 67.505 (50 dof).
    EXPECT_NEAR(chi2_pvalue(3.841459, 1), 0.05, 1e-6);
    EXPECT_NEAR(chi2_pvalue(18.307038, 10), 0.05, 1e-6);
    EXPECT_NEAR(chi2_pvalue(67.504807, 50), 0.05, 1e-6);
}

// ===================================================================================================
// 1. The pdf integrates to the probability that sampling succeeds, lobe by lobe: over wo's hemisphere
// to the fraction of samples that reflect, over the other hemisphere to the fraction that transmit.

TEST(Bsdf, PdfIntegratesToSamplingSuccessProbability) {
    const std::vector<double> thetas = {0.0, 30.0, 60.0, 85.0};
    std::vector<Case> cases =
        distribution_cases({0.05f, 0.2f, 0.5f, 0.9f}, {0.1f, 0.3f, 0.7f}, {1.5f, 1.33f}, thetas,
                           {{0.05f, 0.0f}, {0.2f, 0.5f}, {0.5f, 0.0f}, {0.9f, 1.0f}, {1.0f, 0.2f}});
    // 24 panels per piece: the quadrature then agrees with 80 panels to 2e-4 on every case here.
    const int kQuadN = 24;
    const double kQuadTol = 5e-4;
    const int kSamples = 1 << 18;  // binomial sigma <= 1e-3
    uint32_t seed = 1;
    for (const Case& c : cases) {
        SCOPED_TRACE(describe(c.p, c.wo));
        double int_refl = integrate_hemisphere(c.p, c.wo, true, kQuadN);
        double int_trans = integrate_hemisphere(c.p, c.wo, false, kQuadN);

        Rng rng = make_rng(seed++, 0, 0);
        long n_refl = 0, n_trans = 0;
        for (int i = 0; i < kSamples; ++i) {
            BsdfSample s;
            if (!draw(c.p, c.wo, rng, s)) continue;
            (s.wi.z * c.wo.z > 0 ? n_refl : n_trans)++;
        }
        double f_refl = double(n_refl) / kSamples, f_trans = double(n_trans) / kSamples;
        // 5 binomial sigmas of the sample fraction plus the quadrature's own error budget.
        auto tol = [&](double f) { return 5.0 * std::sqrt(std::max(f * (1.0 - f), 1e-6) / kSamples) + kQuadTol; };
        EXPECT_NEAR(int_refl, f_refl, tol(f_refl)) << "reflection lobe";
        EXPECT_NEAR(int_trans, f_trans, tol(f_trans)) << "transmission lobe";
        if (c.p.type == kDiffuse) {
            // Lambertian sampling never fails: the cosine pdf must integrate to 1 (here to quadrature accuracy).
            EXPECT_NEAR(int_refl, 1.0, 1e-4);
            EXPECT_EQ(n_refl, kSamples);
        }
        if (c.p.type != kDielectric) {
            EXPECT_EQ(int_trans, 0.0) << "one-sided BSDF leaks below the surface";
        }
        EXPECT_LE(int_refl + int_trans, 1.0 + kQuadTol) << "a pdf cannot hold more than probability 1";
    }
}

// ===================================================================================================
// 2. Chi-square goodness of fit: sampled directions are distributed as bsdf_pdf says. Cells: per
// hemisphere 10 bands uniform in |cos theta| x 20 azimuth sectors, plus one cell for failed samples
// (expected N * (1 - integral of the pdf)), so the test also covers the success probability.

TEST(Bsdf, SampledDirectionsFollowPdfChiSquare) {
    std::vector<Case> cases = distribution_cases({0.1f, 0.3f, 0.7f}, {0.1f, 0.3f, 0.7f}, {1.5f}, {10.0, 50.0, 80.0},
                                                 {{0.1f, 0.0f}, {0.3f, 0.5f}, {0.7f, 0.0f}, {1.0f, 0.9f}});
    cases.push_back({make_dielectric(0.3f, 1.33f), dir_deg(45.0, 2.0, true)});  // inside, beyond TIR angle
    cases.push_back({make_dielectric(0.5f, 1.33f), dir_deg(35.0, 4.0, false)});
    const int kCos = 10, kPhi = 20, kSub = 6;  // kSub: quadrature panels per piece of a cell
    const int kSamples = 200000;
    uint32_t seed = 1000;
    for (const Case& c : cases) {
        SCOPED_TRACE(describe(c.p, c.wo));
        const int hemis = c.p.type == kDielectric ? 2 : 1;
        const int n_cells = hemis * kCos * kPhi + 1;  // last cell: failed samples
        auto cell_of = [&](Vec3 w) {
            int h = (w.z * c.wo.z > 0) ? 0 : 1;
            int ic = std::min(kCos - 1, int(std::fabs(w.z) * kCos));
            double phi = std::atan2(double(w.y), double(w.x));
            if (phi < 0) phi += 2.0 * kPiD;
            int ip = std::min(kPhi - 1, int(phi / (2.0 * kPiD) * kPhi));
            return (h * kCos + ic) * kPhi + ip;
        };

        std::vector<double> observed(n_cells, 0.0), expected(n_cells, 0.0);
        Rng rng = make_rng(seed++, 0, 0);
        int outside_hemis = 0;
        for (int i = 0; i < kSamples; ++i) {
            BsdfSample s;
            if (!draw(c.p, c.wo, rng, s)) {
                observed[n_cells - 1] += 1;
                continue;
            }
            if (hemis == 1 && s.wi.z * c.wo.z <= 0) {
                ++outside_hemis;
                continue;
            }
            observed[cell_of(s.wi)] += 1;
        }
        EXPECT_EQ(outside_hemis, 0) << "one-sided BSDF sampled below the surface";

        double total = 0.0;
        for (int h = 0; h < hemis; ++h) {
            HemiLayout layout = hemi_layout(c.p, c.wo, h == 0);
            for (int ic = 0; ic < kCos; ++ic)
                for (int ip = 0; ip < kPhi; ++ip) {
                    double e = integrate_patch(c.p, c.wo, layout, double(ic) / kCos, double(ic + 1) / kCos,
                                               2.0 * kPiD * ip / kPhi, 2.0 * kPiD * (ip + 1) / kPhi, kSub);
                    expected[(h * kCos + ic) * kPhi + ip] = e * kSamples;
                    total += e;
                }
        }
        // The cells' integrals must add up to the whole-hemisphere quadrature (a check on the cells'
        // accuracy: the failure cell's expectation is what is left of 1, so it needs them exact).
        double whole =
            integrate_hemisphere(c.p, c.wo, true, 24) + (hemis == 2 ? integrate_hemisphere(c.p, c.wo, false, 24) : 0.0);
        EXPECT_NEAR(total, whole, 5e-4) << "cell quadrature";
        expected[n_cells - 1] = std::max(0.0, 1.0 - total) * kSamples;
        Chi2Result r = chi2_test(observed, expected, kSamples);
        EXPECT_EQ(r.zero_cells_hit, 0) << "samples where the pdf is 0";
        EXPECT_GT(r.pvalue, 1e-3) << "chi2=" << r.chi2 << " dof=" << r.dof << " integral=" << total
                                  << " failed=" << observed[n_cells - 1];
    }
}

// ===================================================================================================
// 3. Reciprocity.

namespace {

// Uniform direction on the hemisphere of sign `hemi`.
Vec3 random_hemisphere(Rng& rng, float hemi) {
    Vec3 w = sample_uniform_sphere(rng.next_float(), rng.next_float());
    w.z = hemi * std::fabs(w.z);
    return w;
}

// Relative comparison; both values at exactly 0 also agree.
::testing::AssertionResult rel_equal(double a, double b, double rel) {
    if (a == b) return ::testing::AssertionSuccess();
    double err = std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b));
    if (err <= rel) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << a << " vs " << b << " (relative error " << err << ")";
}

// How well float arithmetic can pin the dielectric's Fresnel term for the pair (wo, wi): the smaller
// of the two cosines at the microfacet, on wo's side and on the far side of the interface (for a
// reflection pair, the cosine the refracted ray would have). Near grazing incidence or the critical
// angle that cosine goes to 0 as sqrt(distance), so a rounding of 1e-7 in dot(w, m) - and the two
// argument orders round differently - moves F by ~1e-7 / kappa^2 relative to the transmittance.
// Measured over 400k random pairs: rel. error * kappa^2 <= 4.3e-7, and <= 7e-5 where kappa >= 0.1.
double fresnel_kappa(const BsdfParams& p, Vec3 wo, Vec3 wi) {
    double n_o = wo.z > 0 ? 1.0 : p.eta, n_i = wi.z > 0 ? 1.0 : p.eta;
    bool refl = (wo.z > 0) == (wi.z > 0);
    double m[3] = {n_i * wi.x + n_o * wo.x, n_i * wi.y + n_o * wo.y, n_i * wi.z + n_o * wo.z};
    double len = std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
    double c_o = std::fabs(wo.x * m[0] + wo.y * m[1] + wo.z * m[2]) / len;
    double n_far = refl ? (wo.z > 0 ? p.eta : 1.0) : n_i;
    double sin2_far = (n_o / n_far) * (n_o / n_far) * (1.0 - c_o * c_o);
    double c_far = sin2_far >= 1.0 ? 0.0 : std::sqrt(1.0 - sin2_far);
    return std::min(c_o, c_far);
}

// 1e-4 relative where the arithmetic is well conditioned, widened where the Fresnel term is not.
double reciprocity_tol(const BsdfParams& p, Vec3 wo, Vec3 wi) {
    if (p.type != kDielectric) return 1e-4;
    double k = fresnel_kappa(p, wo, wi);
    return 1e-4 + 2e-6 / (k * k);  // +inf at kappa = 0: a pair exactly at the critical angle
}

}  // namespace

TEST(Bsdf, ReflectionIsReciprocal) {
    std::vector<BsdfParams> ps = {make_diffuse(splat(0.7f))};
    for (float a : {0.05f, 0.2f, 0.5f, 0.9f}) ps.push_back(make_conductor(a, kF0));
    for (float a : {0.1f, 0.3f, 0.7f})
        for (float eta : {1.5f, 1.33f}) ps.push_back(make_dielectric(a, eta));
    for (MetalRough mr :
         {MetalRough{0.05f, 0.0f}, MetalRough{0.3f, 0.5f}, MetalRough{0.9f, 1.0f}, MetalRough{1.0f, 0.2f}})
        ps.push_back(make_metal_rough(mr.alpha, mr.metallic, kF0));
    Rng rng = make_rng(7, 0, 0);
    for (const BsdfParams& p : ps) {
        // The dielectric's reflection lobe exists on both sides of the interface.
        for (float hemi : {1.0f, -1.0f}) {
            if (hemi < 0 && p.type != kDielectric) continue;
            int nonzero = 0, strict = 0;
            for (int i = 0; i < 20000; ++i) {
                Vec3 wo = random_hemisphere(rng, hemi), wi = random_hemisphere(rng, hemi);
                Vec3 f = bsdf_eval(p, wo, wi), g = bsdf_eval(p, wi, wo);
                double tol = reciprocity_tol(p, wo, wi);
                if (f.x > 0) ++nonzero;
                if (f.x > 0 && tol <= 3e-4) ++strict;
                for (int k = 0; k < 3; ++k)
                    ASSERT_TRUE(rel_equal(f[k], g[k], tol))
                        << describe(p, wo) << " wi=(" << wi.x << " " << wi.y << " " << wi.z << ") channel " << k;
            }
            EXPECT_GT(nonzero, 10000) << "too few pairs with a nonzero BSDF to test anything";
            EXPECT_GT(strict, nonzero / 2) << "too few pairs held to a tight tolerance";
        }
    }
}

// Radiance-scaled transmission is not symmetric, but f(wo, wi) / n(wo)^2 is, n(w) being the refractive
// index on w's side (1 outside, eta inside). Derivation (Walter et al. 2007; pbrt-v4 sec. 9.7): with
// etap = n(wi) / n(wo) and the generalised half vector m ~ n(wi) wi + n(wo) wo (the same line for both
// argument orders),
//   f0(wo, wi) = D G2 (1 - F) |wi.m| |wo.m| / (|cos_i cos_o| (wi.m + wo.m / etap)^2)
//              = n(wi)^2 S,  S = D G2 (1 - F) |wi.m| |wo.m| / (|cos_i cos_o| (n(wi) wi.m + n(wo) wo.m)^2)
// where S is symmetric in (wo, wi) (the Fresnel transmittance is the same from both sides of the
// microfacet, the two directions being related by Snell's law). The radiance-mode BSDF divides by
// etap^2: f = f0 n(wo)^2 / n(wi)^2 = n(wo)^2 S, hence f(wo, wi) / n(wo)^2 = S = f(wi, wo) / n(wi)^2
// (Veach 1997, eq. 5.14). With n = 1 outside: f(out, in) = f(in, out) / eta^2.
TEST(Bsdf, RoughTransmissionObeysGeneralisedReciprocity) {
    Rng rng = make_rng(8, 0, 0);
    for (float a : {0.1f, 0.3f, 0.7f})
        for (float eta : {1.5f, 1.33f}) {
            BsdfParams p = make_dielectric(a, eta, Vec3{0.9f, 0.8f, 0.7f});
            int nonzero = 0, strict = 0;
            for (int i = 0; i < 20000; ++i) {
                Vec3 out = random_hemisphere(rng, 1.0f), in = random_hemisphere(rng, -1.0f);
                Vec3 f_oi = bsdf_eval(p, out, in);  // wo outside (n = 1), wi inside (n = eta)
                Vec3 f_io = bsdf_eval(p, in, out);  // wo inside, wi outside
                double tol = reciprocity_tol(p, out, in);
                if (f_oi.x > 0) ++nonzero;
                if (f_oi.x > 0 && tol <= 3e-4) ++strict;
                for (int k = 0; k < 3; ++k) {
                    double lhs = f_oi[k], rhs = f_io[k] / (double(eta) * eta);
                    ASSERT_TRUE(rel_equal(lhs, rhs, tol))
                        << describe(p, out) << " wi=(" << in.x << " " << in.y << " " << in.z << ")";
                }
            }
            EXPECT_GT(nonzero, 2000) << "too few refracting pairs to test anything";
            EXPECT_GT(strict, nonzero / 2) << "too few pairs held to a tight tolerance";
        }
}

// ===================================================================================================
// 4. Energy.

namespace {

struct Albedo {
    Vec3 mean, sigma_of_mean;   // E[weight] per channel
    double unscaled_max = 0.0;  // max channel of E[weight] with the 1/etap^2 radiance scaling undone
    double unscaled_sigma = 0.0;
};

Albedo estimate_albedo(const BsdfParams& p, Vec3 wo, int n, uint32_t seed) {
    Rng rng = make_rng(seed, 0, 0);
    double s1[3] = {0, 0, 0}, s2[3] = {0, 0, 0}, u1[3] = {0, 0, 0}, u2[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i) {
        BsdfSample s;
        if (!draw(p, wo, rng, s)) continue;  // a failed sample carries weight 0
        // Transmission from n(wo) into n(wi) was scaled by (n(wo)/n(wi))^2; undo it.
        double undo = 1.0;
        if (s.wi.z * wo.z < 0) undo = wo.z > 0 ? double(p.eta) * p.eta : 1.0 / (double(p.eta) * p.eta);
        for (int k = 0; k < 3; ++k) {
            s1[k] += s.weight[k];
            s2[k] += double(s.weight[k]) * s.weight[k];
            u1[k] += s.weight[k] * undo;
            u2[k] += s.weight[k] * undo * s.weight[k] * undo;
        }
    }
    Albedo a;
    float m[3], sd[3];
    for (int k = 0; k < 3; ++k) {
        double mean = s1[k] / n, var = std::max(0.0, s2[k] / n - mean * mean);
        m[k] = float(mean);
        sd[k] = float(std::sqrt(var / n));
        double um = u1[k] / n, uv = std::max(0.0, u2[k] / n - um * um);
        if (um > a.unscaled_max) {
            a.unscaled_max = um;
            a.unscaled_sigma = std::sqrt(uv / n);
        }
    }
    a.mean = {m[0], m[1], m[2]};
    a.sigma_of_mean = {sd[0], sd[1], sd[2]};
    return a;
}

// Checks E[weight] <= 1 from outside and E[unscaled weight] <= 1 from both sides, for each lobe and
// several wo (statistical margin: 5 standard errors of the mean).
void expect_albedo_at_most_one(const std::vector<BsdfParams>& ps, uint32_t seed) {
    const int kSamples = 1 << 17;
    for (const BsdfParams& p : ps)
        for (double th : {0.0, 30.0, 60.0, 85.0})
            for (int inside = 0; inside < (p.type == kDielectric ? 2 : 1); ++inside) {
                Vec3 wo = dir_deg(th, 1.1, inside);
                SCOPED_TRACE(describe(p, wo));
                Albedo a = estimate_albedo(p, wo, kSamples, seed++);
                if (!inside) {
                    for (int k = 0; k < 3; ++k)
                        EXPECT_LE(a.mean[k], 1.0 + 5.0 * a.sigma_of_mean[k] + 1e-5) << "channel " << k;
                }
                // Without the radiance scaling, reflected + transmitted energy is at most 1 from either side.
                EXPECT_LE(a.unscaled_max, 1.0 + 5.0 * a.unscaled_sigma + 1e-5) << "unscaled";
                if (p.type == kDiffuse) {
                    EXPECT_NEAR(a.mean.x, 1.0, 1e-6);  // white Lambertian loses nothing
                }
                if (bsdf_is_delta(p) && p.type == kDielectric) {
                    // A smooth interface absorbs nothing: R + T = 1 exactly in expectation.
                    EXPECT_NEAR(a.unscaled_max, 1.0, 5.0 * a.unscaled_sigma + 1e-5);
                }
            }
}

}  // namespace

// From outside, E[weight] = integral of f |cos| is the fraction of energy reflected plus transmitted
// (transmission additionally shrunk by 1/eta^2 < 1): it cannot exceed 1. White albedo / F0 = 1 makes
// the bound as tight as it gets. From inside the radiance-scaled weight can exceed 1 (see below), so
// the dielectric is checked from outside only, plus its unscaled form from both sides.
TEST(Bsdf, AlbedoAtMostOne) {
    std::vector<BsdfParams> ps = {make_diffuse(splat(1.0f))};
    for (float a : {0.0f, 0.05f, 0.2f, 0.5f, 0.9f}) ps.push_back(make_conductor(a, splat(1.0f)));
    for (float a : {0.0f, 0.1f, 0.3f, 0.7f})
        for (float eta : {1.5f, 1.33f}) ps.push_back(make_dielectric(a, eta));
    expect_albedo_at_most_one(ps, 2000);
}

// glTF's metal-roughness lobe over metallic x roughness, white base: the base colour that reflects the
// most (F0 = 1 for the metal, a white Lambertian base for the dielectric).
TEST(Bsdf, MetalRoughAlbedoAtMostOne) {
    std::vector<BsdfParams> ps;
    for (float metallic : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f})
        for (float roughness : {0.0f, 0.1f, 0.3f, 0.5f, 0.7f, 1.0f})
            ps.push_back(make_metal_rough(roughness * roughness, metallic, splat(1.0f)));
    expect_albedo_at_most_one(ps, 2200);
}

// The same bound for the roughest-but-still-microfacet lobes, alpha from kSmoothAlpha (the smallest
// alpha that is not a delta) to 0.01, where GGX's D must be computed without cancellation to stay
// accurate in float.
TEST(Bsdf, AlbedoAtMostOneNearSmoothThreshold) {
    std::vector<BsdfParams> ps;
    for (float a : {kSmoothAlpha, 0.002f, 0.01f}) {
        ps.push_back(make_conductor(a, splat(1.0f)));
        ps.push_back(make_dielectric(a, 1.5f));
        ps.push_back(make_metal_rough(a, 0.0f, splat(1.0f)));
    }
    ps.push_back(make_metal_rough(0.0f, 0.5f, splat(1.0f)));  // alpha 0: rendered at kSmoothAlpha
    expect_albedo_at_most_one(ps, 2500);
}

// Why the inside case may exceed 1: a camera path inside the glass that refracts out gathers radiance
// arriving from outside, and radiance entering a denser medium is concentrated into a smaller solid
// angle, L_inside = T * eta^2 * L_outside (flux is still conserved). At normal incidence through
// smooth glass (eta 1.5): E[weight] = R + T * eta^2 = 0.04 + 0.96 * 2.25 = 2.2.
TEST(Bsdf, InsideTransmissionCarriesEtaSquaredRadianceGain) {
    BsdfParams p = make_dielectric(0.0f, 1.5f);
    Albedo a = estimate_albedo(p, Vec3{0, 0, -1}, 1 << 16, 3000);
    EXPECT_NEAR(a.mean.x, 0.04 + 0.96 * 2.25, 5.0 * a.sigma_of_mean.x + 1e-4);
    Albedo b = estimate_albedo(p, Vec3{0, 0, 1}, 1 << 16, 3001);
    EXPECT_NEAR(b.mean.x, 0.04 + 0.96 / 2.25, 5.0 * b.sigma_of_mean.x + 1e-4);
}

TEST(Bsdf, SmoothLobesAreDeltas) {
    const Vec3 wo = dir_deg(40.0, 0.3);
    for (BsdfParams p : {make_conductor(0.0f, kF0), make_conductor(0.5f * kSmoothAlpha, kF0),
                         make_dielectric(0.0f, 1.5f), make_dielectric(0.0f, 1.33f)}) {
        SCOPED_TRACE(describe(p, wo));
        EXPECT_TRUE(bsdf_is_delta(p));
        Rng rng = make_rng(11, 0, 0);
        for (int i = 0; i < 1000; ++i) {
            for (bool inside : {false, true}) {
                if (inside && p.type != kDielectric) continue;
                Vec3 w = inside ? Vec3{wo.x, wo.y, -wo.z} : wo;
                BsdfSample s;
                ASSERT_TRUE(draw(p, w, rng, s));
                EXPECT_TRUE(s.delta);
                // A delta lobe has no density and no finite value anywhere, its own direction included.
                EXPECT_EQ(bsdf_pdf(p, w, s.wi), 0.0f);
                EXPECT_TRUE(is_black(bsdf_eval(p, w, s.wi)));
                // Mirror: same cosine, opposite tangent component.
                if (s.wi.z * w.z > 0) {
                    EXPECT_NEAR(s.wi.x, -w.x, 1e-6);
                    EXPECT_NEAR(s.wi.y, -w.y, 1e-6);
                    EXPECT_NEAR(s.wi.z, w.z, 1e-6);
                } else {
                    // Snell's law: n_o sin_o = n_i sin_i, in the plane of incidence.
                    double n_o = w.z > 0 ? 1.0 : p.eta, n_i = w.z > 0 ? p.eta : 1.0;
                    double sin_o = std::hypot(w.x, w.y), sin_i = std::hypot(s.wi.x, s.wi.y);
                    EXPECT_NEAR(n_o * sin_o, n_i * sin_i, 1e-5);
                    EXPECT_NEAR(s.wi.x * w.y - s.wi.y * w.x, 0.0, 1e-6);
                    EXPECT_LT(s.wi.x * w.x + s.wi.y * w.y, 0.0f);
                }
            }
        }
    }
}

// Smooth dielectric: the lobe probabilities are R and 1 - R (summing to 1), the split point in u0 is
// R, and R at normal incidence for eta 1.5 is ((1.5 - 1) / (1.5 + 1))^2 = 0.04 from either side.
TEST(Bsdf, SmoothDielectricFresnelSplit) {
    EXPECT_NEAR(fresnel_dielectric(1.0f, 1.5f), 0.04f, 1e-6);
    EXPECT_NEAR(fresnel_dielectric(-1.0f, 1.5f), 0.04f, 1e-6);
    // Total internal reflection beyond the critical angle asin(1/1.5) = 41.8 deg, from inside only.
    EXPECT_EQ(fresnel_dielectric(-std::cos(45.0f * kPi / 180.0f), 1.5f), 1.0f);
    EXPECT_LT(fresnel_dielectric(std::cos(45.0f * kPi / 180.0f), 1.5f), 0.1f);

    for (float eta : {1.5f, 1.33f})
        for (double th : {0.0, 20.0, 40.0, 60.0, 80.0})
            for (bool inside : {false, true}) {
                BsdfParams p = make_dielectric(0.0f, eta);
                Vec3 wo = dir_deg(th, 0.4, inside);
                SCOPED_TRACE(describe(p, wo));
                float r = fresnel_dielectric(wo.z, eta);
                BsdfSample sr, st;
                ASSERT_TRUE(bsdf_sample(p, wo, 0.0f, 0.5f, 0.5f, sr));  // u0 = 0 < R: reflect
                EXPECT_GT(sr.wi.z * wo.z, 0.0f);
                EXPECT_FLOAT_EQ(sr.pdf, r);
                EXPECT_FLOAT_EQ(sr.weight.x, 1.0f);  // R / R
                if (r < 1.0f) {
                    ASSERT_TRUE(bsdf_sample(p, wo, 0.999999f, 0.5f, 0.5f, st));  // u0 > R: transmit
                    EXPECT_LT(st.wi.z * wo.z, 0.0f);
                    // T / T, times the radiance scaling (n(wo) / n(wi))^2.
                    float etap = inside ? 1.0f / eta : eta;
                    EXPECT_FLOAT_EQ(st.weight.x, 1.0f / (etap * etap));
                    EXPECT_NEAR(sr.pdf + st.pdf, 1.0f, 1e-6) << "lobe probabilities must sum to 1";
                    // u0 just either side of R picks each lobe: the split is at exactly R.
                    BsdfSample a, b;
                    ASSERT_TRUE(bsdf_sample(p, wo, r * 0.999f, 0.5f, 0.5f, a));
                    ASSERT_TRUE(bsdf_sample(p, wo, std::min(0.999999f, r * 1.001f + 1e-6f), 0.5f, 0.5f, b));
                    EXPECT_GT(a.wi.z * wo.z, 0.0f);
                    EXPECT_LT(b.wi.z * wo.z, 0.0f);
                }
                if (th == 0.0) {
                    EXPECT_NEAR(r, ((eta - 1) / (eta + 1)) * ((eta - 1) / (eta + 1)), 1e-6);
                }
            }
}

// ===================================================================================================
// Every non-delta sample reports the pdf that bsdf_pdf gives for its direction and the weight
// eval * |cos| / pdf: MIS combines bsdf_pdf with the sampled pdf, and an unbiased estimator needs the
// weight to be exactly f |cos| / (the density the direction was drawn with). Float rounding of the
// half vector (sampled m vs m recomputed from wo + wi) allows ~1e-4 of slack; 1e-3 is the bound.

namespace {

void expect_sample_matches_pdf_and_eval(const std::vector<Case>& cases, uint32_t seed) {
    for (const Case& c : cases) {
        SCOPED_TRACE(describe(c.p, c.wo));
        Rng rng = make_rng(seed++, 0, 0);
        int bad = 0, n = 0;
        double worst_pdf = 0.0, worst_weight = 0.0;
        for (int i = 0; i < 5000; ++i) {
            BsdfSample s;
            if (!draw(c.p, c.wo, rng, s)) continue;
            ++n;
            EXPECT_FALSE(s.delta);
            float pdf = bsdf_pdf(c.p, c.wo, s.wi);
            Vec3 f = bsdf_eval(c.p, c.wo, s.wi);
            Vec3 expect_w = f * (std::fabs(s.wi.z) / pdf);
            double e_pdf = std::fabs(double(s.pdf) - pdf) / pdf;
            double e_w = std::fabs(double(s.weight.x) - expect_w.x) / expect_w.x;
            worst_pdf = std::max(worst_pdf, e_pdf);
            worst_weight = std::max(worst_weight, e_w);
            bool ok = e_pdf <= 1e-3 && std::fabs(length(s.wi) - 1.0f) < 1e-5f;
            for (int k = 0; k < 3; ++k) ok = ok && rel_equal(s.weight[k], expect_w[k], 1e-3);
            if (!ok) ++bad;
        }
        EXPECT_GT(n, 2500);
        EXPECT_EQ(bad, 0) << bad << " of " << n << " samples disagree; worst relative error: pdf " << worst_pdf
                          << ", weight " << worst_weight;
    }
}

}  // namespace

TEST(Bsdf, SampleAgreesWithEvalAndPdf) {
    expect_sample_matches_pdf_and_eval(
        distribution_cases({0.05f, 0.2f, 0.9f}, {0.1f, 0.3f, 0.7f}, {1.5f, 1.33f}, {0.0, 30.0, 60.0, 85.0},
                           {{0.05f, 0.0f}, {0.2f, 0.5f}, {0.9f, 1.0f}, {1.0f, 0.0f}}),
        4000);
}

// Same, for the narrowest microfacet lobes (alpha from kSmoothAlpha to 0.01); a GGX D written as
// a^2 / (pi ((a^2 - 1) cos^2 + 1)^2) loses most of its float digits there to cancellation (the bracket
// is ~a^2 = 1e-6 while cos^2 carries rounding ~6e-8), whereas sin^2 + a^2 cos^2 stays accurate.
TEST(Bsdf, SampleAgreesWithEvalAndPdfNearSmoothThreshold) {
    expect_sample_matches_pdf_and_eval(
        distribution_cases({kSmoothAlpha, 0.002f, 0.01f}, {kSmoothAlpha, 0.002f, 0.01f}, {1.5f}, {0.0, 45.0, 80.0},
                           {{0.0f, 0.0f}, {kSmoothAlpha, 0.3f}, {0.002f, 1.0f}, {0.01f, 0.0f}}),
        4500);
}

// ===================================================================================================
// 5. No NaN or Inf on edge cases.

TEST(Bsdf, EdgeCasesStayFinite) {
    std::vector<BsdfParams> ps = {make_diffuse(splat(0.5f))};
    const float below = std::nextafter(kSmoothAlpha, 0.0f), above = std::nextafter(kSmoothAlpha, 1.0f);
    for (float a : {0.0f, below, kSmoothAlpha, above, 0.01f, 0.5f, 1.0f}) {
        ps.push_back(make_conductor(a, kF0));
        for (float eta : {1.5f, 1.33f, 1.0f / 1.5f}) ps.push_back(make_dielectric(a, eta));
        for (float metallic : {0.0f, 0.5f, 1.0f}) ps.push_back(make_metal_rough(a, metallic, kF0));
    }
    ps.push_back(make_metal_rough(0.5f, 0.0f, splat(0.0f)));  // black base: the GGX lobe alone
    std::vector<Vec3> dirs = {
        {0, 0, 1},
        {0, 0, -1},  // along the normal
        {std::sqrt(1 - 1e-14f), 0, 1e-7f},
        {0, std::sqrt(1 - 1e-14f), -1e-7f},  // wo.z tiny
        {0.6f, 0.8f, 1e-7f},
        {0.6f, -0.8f, -1e-7f},
        dir_deg(89.99, 0.3),
        dir_deg(89.99, 2.0, true),
        dir_deg(45.0, 0.0),
        dir_deg(45.0, 0.0, true),
        {1, 0, 0},  // exactly in the plane
    };
    const float kUs[] = {0.0f, 1e-7f, 0.25f, 0.5f, 0.75f, 1.0f - 0x1p-24f};
    for (const BsdfParams& p : ps)
        for (Vec3 wo : dirs) {
            SCOPED_TRACE(describe(p, wo));
            for (Vec3 wi : dirs) {
                Vec3 f = bsdf_eval(p, wo, wi);
                float pdf = bsdf_pdf(p, wo, wi);
                ASSERT_TRUE(finite3(f)) << "eval at wi=(" << wi.x << " " << wi.y << " " << wi.z << ")";
                ASSERT_TRUE(std::isfinite(pdf)) << "pdf at wi=(" << wi.x << " " << wi.y << " " << wi.z << ")";
                EXPECT_GE(pdf, 0.0f);
                EXPECT_GE(std::min(f.x, std::min(f.y, f.z)), 0.0f);
            }
            for (float u0 : kUs)
                for (float u1 : kUs)
                    for (float u2 : kUs) {
                        BsdfSample s;
                        if (!bsdf_sample(p, wo, u0, u1, u2, s)) continue;
                        ASSERT_TRUE(finite3(s.wi) && finite3(s.weight) && std::isfinite(s.pdf))
                            << "u=(" << u0 << " " << u1 << " " << u2 << ") wi=(" << s.wi.x << " " << s.wi.y << " "
                            << s.wi.z << ") weight=" << s.weight.x << " pdf=" << s.pdf;
                        EXPECT_GT(s.pdf, 0.0f);
                        EXPECT_NEAR(length(s.wi), 1.0f, 1e-4f);
                        EXPECT_GE(std::min(s.weight.x, std::min(s.weight.y, s.weight.z)), 0.0f);
                        // Non-delta samples must be evaluable: their pdf finite and positive too.
                        if (!s.delta) {
                            ASSERT_TRUE(std::isfinite(bsdf_pdf(p, wo, s.wi)));
                            ASSERT_TRUE(finite3(bsdf_eval(p, wo, s.wi)));
                        }
                    }
            // Random uniforms as well, for the bulk of the domain near these extreme wo.
            Rng rng = make_rng(99, 0, 0);
            for (int i = 0; i < 2000; ++i) {
                BsdfSample s;
                if (!draw(p, wo, rng, s)) continue;
                ASSERT_TRUE(finite3(s.wi) && finite3(s.weight) && std::isfinite(s.pdf))
                    << "wi=(" << s.wi.x << " " << s.wi.y << " " << s.wi.z << ") weight=" << s.weight.x
                    << " pdf=" << s.pdf;
            }
        }
}

// ===================================================================================================
// glTF metal-roughness: the limits where it is another model.

// metallic = 1 is glTF's metal_brdf: GGX with Schlick Fresnel, F0 = base colour, i.e. the conductor. The
// diffuse lobe then has weight 0, so the lobe choice always picks GGX: same f, same pdf, and from the
// same (u1, u2) the same direction and weight.
TEST(Bsdf, MetalRoughWithMetallicOneIsTheConductor) {
    Rng rng = make_rng(21, 0, 0);
    for (float a : {kSmoothAlpha, 0.05f, 0.3f, 1.0f}) {
        BsdfParams mr = make_metal_rough(a, 1.0f, kF0), cd = make_conductor(a, kF0);
        int nonzero = 0;
        for (int i = 0; i < 5000; ++i) {
            Vec3 wo = random_hemisphere(rng, 1.0f), wi = random_hemisphere(rng, 1.0f);
            float pdf_mr, pdf_cd;
            Vec3 f_mr = bsdf_eval_pdf(mr, wo, wi, &pdf_mr), f_cd = bsdf_eval_pdf(cd, wo, wi, &pdf_cd);
            if (f_cd.x > 0) ++nonzero;
            for (int k = 0; k < 3; ++k) ASSERT_TRUE(rel_equal(f_mr[k], f_cd[k], 1e-6)) << describe(mr, wo);
            // Both are the closed form F_Schlick(F0 = base, wo.h) D G2 / (4 cos_o cos_i).
            Vec3 h = normalize(wo + wi);
            double c = 1.0 - dot(wo, h), w5 = c * c * c * c * c;
            double spec = double(ggx_d(h, a)) * ggx_g2(wo, wi, a) / (4.0 * wo.z * wi.z);
            for (int k = 0; k < 3; ++k)
                ASSERT_TRUE(rel_equal(f_mr[k], (kF0[k] + (1.0 - kF0[k]) * w5) * spec, 1e-5)) << describe(mr, wo);
            ASSERT_TRUE(rel_equal(pdf_mr, pdf_cd, 1e-6)) << describe(mr, wo);
            float u0 = rng.next_float(), u1 = rng.next_float(), u2 = rng.next_float();
            BsdfSample s_mr, s_cd;
            bool ok_mr = bsdf_sample(mr, wo, u0, u1, u2, s_mr), ok_cd = bsdf_sample(cd, wo, u0, u1, u2, s_cd);
            ASSERT_EQ(ok_mr, ok_cd) << describe(mr, wo);
            if (!ok_mr) continue;
            EXPECT_NEAR(s_mr.wi.x, s_cd.wi.x, 1e-6f);
            EXPECT_NEAR(s_mr.wi.z, s_cd.wi.z, 1e-6f);
            for (int k = 0; k < 3; ++k) EXPECT_TRUE(rel_equal(s_mr.weight[k], s_cd.weight[k], 1e-5));
        }
        EXPECT_GT(nonzero, 4000);
    }
}

// metallic = 0: the GGX lobe has F0 = 0.04 whatever the base colour, and the base adds
// c/pi (1 - F(cos_o)) (1 - F(cos_i)) (kernels/shading/bsdf.h says why not glTF's 1 - F(V.H)). So the albedo of a
// white base minus that of a black one is the base's alone, in closed form:
//   (1 - F(cos_o)) * 2 int_0^1 (1 - F(mu)) mu dmu = (1 - F(cos_o)) (0.96 - 0.96 * 2 B(2, 6))
//                                                 = (1 - F(cos_o)) * 0.96 * (1 - 1/21).
// At normal incidence and roughness 1 the whole lobe reflects close to, but not more than, everything.
TEST(Bsdf, MetalRoughDielectricBaseIsTheCoupledLambertian) {
    const int kSamples = 1 << 19;
    uint32_t seed = 2600;
    for (float roughness : {0.3f, 1.0f})
        for (double th : {0.0, 30.0, 60.0, 85.0}) {
            Vec3 wo = dir_deg(th, 0.9);
            BsdfParams white = make_metal_rough(roughness * roughness, 0.0f, splat(1.0f));
            BsdfParams black = make_metal_rough(roughness * roughness, 0.0f, splat(0.0f));
            SCOPED_TRACE(describe(white, wo));
            Albedo aw = estimate_albedo(white, wo, kSamples, seed++);
            Albedo ab = estimate_albedo(black, wo, kSamples, seed++);
            double m = 1.0 - wo.z, f = 0.04 + 0.96 * m * m * m * m * m;
            double base = (1.0 - f) * 0.96 * (1.0 - 1.0 / 21.0);
            double sigma = std::hypot(double(aw.sigma_of_mean.x), double(ab.sigma_of_mean.x));
            EXPECT_NEAR(aw.mean.x - ab.mean.x, base, 5.0 * sigma + 1e-4);
            EXPECT_GT(ab.mean.x, 0.0) << "the specular layer reflects";
            if (th == 0.0 && roughness == 1.0f) {
                EXPECT_GT(aw.mean.x, 0.88);
                EXPECT_LE(aw.mean.x, 1.0);
            }
        }
}

// Below kSmoothAlpha the metal-rough lobe is not a delta (it is rendered at kSmoothAlpha), so next-event
// estimation still lights its diffuse base; roughness 0 and kSmoothAlpha are the same lobe.
TEST(Bsdf, SmoothMetalRoughStaysAMicrofacetLobe) {
    BsdfParams smooth = make_metal_rough(0.0f, 0.0f, kF0), edge = make_metal_rough(kSmoothAlpha, 0.0f, kF0);
    EXPECT_FALSE(bsdf_is_delta(smooth));
    Rng rng = make_rng(31, 0, 0);
    for (int i = 0; i < 2000; ++i) {
        Vec3 wo = random_hemisphere(rng, 1.0f), wi = random_hemisphere(rng, 1.0f);
        Vec3 a = bsdf_eval(smooth, wo, wi), b = bsdf_eval(edge, wo, wi);
        for (int k = 0; k < 3; ++k) ASSERT_EQ(a[k], b[k]);
        ASSERT_EQ(bsdf_pdf(smooth, wo, wi), bsdf_pdf(edge, wo, wi));
        EXPECT_GT(a.x, 0.0f) << "the diffuse base is seen from every direction";
    }
}
