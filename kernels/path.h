// The path tracer as stages over a path record, so that any scheduler can run it: the CPU loop, the
// persistent GPU kernel that passes records through a queue, or one kernel launch per stage.
//
//   start_path  -> PathState (camera ray)
//   trace       -> Hit            (bvh.h: intersect_closest)
//   shade_path  -> emitted radiance, maybe a ShadowRay (next-event estimation), maybe the next bounce
//   trace shadow-> if unoccluded, add ShadowRay::contribution
//
// Unidirectional path tracing with next-event estimation and MIS (power heuristic) for triangle lights
// and the environment; Russian roulette after kRussianRouletteDepth bounces.
#pragma once

#include "kernels/features.h"
#include "kernels/shading/bsdf.h"
#include "kernels/frame.h"
#include "kernels/shading/lights.h"
#include "kernels/shading/rng.h"

namespace pkrt {

// 56 bytes, 8-aligned for the RNG state.
struct PathState {
    Vec3 origin;
    Vec3 dir;
    Vec3 throughput;
    uint32_t pixel;
    Rng rng;
    int16_t depth;   // bounces so far; the camera ray has depth 0 (kMaxDepth fits: render/scene/render_limits.h)
    uint16_t flags;  // kPathFeaturesWritten (kernels/features.h); a half word, so the state stays 56 bytes
    float prev_pdf;  // solid-angle pdf of the BSDF sample that made `dir`; 0 = camera ray or delta lobe
};

// Unoccluded contribution waiting for a visibility test.
struct ShadowRay {
    Vec3 origin;
    Vec3 dir;
    float tmax;
    Vec3 contribution;
    uint32_t pixel;
};

struct ShadeResult {
    Vec3 radiance;  // emission picked up by this ray (already weighted), to add to the pixel
    bool has_shadow;
    ShadowRay shadow;
    bool continues;  // the path record now holds the next bounce
    bool dropped;    // a NaN or infinite contribution (emission, light sample or throughput) was dropped
};

PKRT_HD PathState start_path(const FrameRecord& f, uint32_t pixel, uint32_t sample) {
    PathState p;
    p.rng = make_rng(f.seed, pixel, sample);
    int px = static_cast<int>(pixel % static_cast<uint32_t>(f.width));
    int py = static_cast<int>(pixel / static_cast<uint32_t>(f.width));
    float jx = p.rng.next_float();
    float jy = p.rng.next_float();
    // Drawn with a pinhole too, so that the rest of the path's stream does not depend on the aperture.
    float lu0 = p.rng.next_float();
    float lu1 = p.rng.next_float();
    Ray r = camera_ray(f.camera, f.width, f.height, px, py, jx, jy, lu0, lu1);
    p.origin = r.o;
    p.dir = r.d;
    p.throughput = splat(1.0f);
    p.pixel = pixel;
    p.depth = 0;
    p.flags = 0;
    p.prev_pdf = 0.0f;
    return p;
}

// A contribution that is not finite never reaches the pixel; the drop is reported, and counted.
PKRT_HD Vec3 finite_or_drop(Vec3 v, ShadeResult& out) {
    if (all_finite(v)) return v;
    out.dropped = true;
    return splat(0.0f);
}

// Emission seen along the path's ray, weighted against the light-sampling strategy that could also
// have produced it (none for camera rays and delta bounces).
PKRT_HD float mis_weight_bsdf(float prev_pdf, float light_pdf) {
    return prev_pdf == 0.0f ? 1.0f : power_heuristic(prev_pdf, light_pdf);
}

// The path's features (kernels/features.h) to `sink`, once.
template <class Features> PKRT_HD void write_features(Features& sink, PathState& path, const FeatureSample& fs) {
    sink.feature(path.pixel, fs);
    path.flags |= kPathFeaturesWritten;
}

// kFull: see kernels/shading/environment.h. Features: where the path's features go (feature(pixel,
// FeatureSample)), usually the scheduler's Sink.
template <bool kFull = true, class Features = NoFeatures>
PKRT_HD void shade_path(const SceneView& s, const FrameRecord& f, PathState& path, const Hit& hit, ShadeResult& out,
                        Features&& features = Features{}) {
    out.radiance = splat(0.0f);
    out.has_shadow = false;
    out.continues = false;
    out.dropped = false;
    const bool features_due = keeps_features<Features>() && !(path.flags & kPathFeaturesWritten);

    if (hit.prim < 0) {
        if (features_due) write_features(features, path, FeatureSample{splat(0.0f), splat(0.0f), 0.0f, 1.0f});
        Vec3 le = environment_radiance<kFull>(s.env, path.dir);
        if (!is_black(le)) {
            float w = mis_weight_bsdf(path.prev_pdf, environment_light_pdf<kFull>(s, path.dir));
            out.radiance = finite_or_drop(path.throughput * le * w, out);
        }
        return;
    }

    Vec3 p0, p1, p2;
    load_tri(s.bvh.tris, hit.prim, p0, p1, p2);
    const TriShading& sh = s.shading[hit.prim];
    const Material& m = s.materials[sh.material];
    float b0 = 1.0f - hit.u - hit.v;
    Vec3 pos = p0 * b0 + p1 * hit.u + p2 * hit.v;
    float area;
    Vec3 ng = triangle_geometric_normal(p0, p1, p2, &area);
    Vec3 wo_world = -path.dir;

    if (is_emissive(m)) {
        float cos_light = dot(wo_world, ng);  // one-sided: the front face emits
        if (cos_light > 0.0f) {
            float light_pdf = triangle_light_pdf(s, hit.prim, area, hit.t, cos_light);
            float w = mis_weight_bsdf(path.prev_pdf, light_pdf);
            out.radiance = finite_or_drop(path.throughput * surface_emission<kFull>(s, m, sh, hit.u, hit.v) * w, out);
        }
    }
    // At the last bounce the shading inputs are still needed for a path that has not written its features.
    if (path.depth >= f.max_depth && !features_due) return;

    // Shading frame. Opaque materials are two-sided: face both normals towards the viewer.
    Vec3 ns = ng;
    if (!(is_black(sh.n0) && is_black(sh.n1) && is_black(sh.n2))) {
        Vec3 n = sh.n0 * b0 + sh.n1 * hit.u + sh.n2 * hit.v;
        if (dot(n, n) > 0.0f) ns = normalize(n);
    }
    // Tangent-space normal map, perturbing the interpolated normal as the file's tangents orient it
    // (before it is faced towards the viewer, which would mirror the map).
    if (kFull && m.normal_texture >= 0 && s.tangents) {
        const TriTangents& tg = s.tangents[hit.prim];
        Vec3 t = tg.t0 * b0 + tg.t1 * hit.u + tg.t2 * hit.v;
        t = t - ns * dot(ns, t);
        if (dot(t, t) > 1e-12f) {
            t = normalize(t);
            Vec3 b = cross(ns, t) * (tg.w0 < 0.0f ? -1.0f : 1.0f);
            Vec2 uv = interpolate_uv(sh, hit.u, hit.v);
            Vec3 c = texture_sample(s.textures[m.normal_texture], uv.x, uv.y);
            float sx = (2.0f * c.x - 1.0f) * m.normal_scale, sy = (2.0f * c.y - 1.0f) * m.normal_scale;
            Vec3 n = t * sx + b * sy + ns * (2.0f * c.z - 1.0f);
            if (dot(n, n) > 0.0f && all_finite(n)) ns = normalize(n);
        }
    }
    if (dot(ns, ng) < 0.0f) ns = -ns;
    bool two_sided = m.type != kDielectric;
    if (two_sided && dot(wo_world, ng) < 0.0f) {
        ng = -ng;
        ns = -ns;
    }
    if (two_sided && dot(wo_world, ns) <= 0.0f) ns = ng;  // shading normal turned away: fall back
    Frame frame = make_frame(ns);

    BsdfParams bp;
    bp.type = m.type;
    bp.albedo = m.albedo;
    // The texture coordinates are recomputed where needed: kept live across the frame's construction,
    // they cost the persistent kernel's capped builds spills.
    if (m.albedo_texture >= 0) {
        Vec2 uv = interpolate_uv(sh, hit.u, hit.v);
        bp.albedo = bp.albedo * texture_sample(s.textures[m.albedo_texture], uv.x, uv.y);
    }
    bp.alpha = m.alpha;
    bp.eta = m.ior;
    bp.metallic = m.metallic;
    if (kFull && m.metal_rough_texture >= 0) {  // glTF's packing: G roughness, B metallic; alpha = roughness^2
        Vec2 uv = interpolate_uv(sh, hit.u, hit.v);
        Vec3 c = texture_sample(s.textures[m.metal_rough_texture], uv.x, uv.y);
        bp.alpha = m.alpha * c.y * c.y;
        bp.metallic = m.metallic * c.z;
    }
    if (features_due) {  // the camera ray's depth; the albedo and normal here unless the surface is specular
        float z = path.depth == 0 ? dot(pos - f.camera.eye, f.camera.forward) : 0.0f;
        if (!bsdf_is_delta(bp)) write_features(features, path, FeatureSample{path.throughput * bp.albedo, ns, z, 1.0f});
        else if (path.depth == 0) features.feature(path.pixel, FeatureSample{splat(0.0f), splat(0.0f), z, 0.0f});
    }
    if (path.depth >= f.max_depth) return;
    Vec3 wo = frame.to_local(wo_world);

    // Next-event estimation. The random numbers are drawn whether or not they are used, so every
    // bounce consumes the same count.
    float ul = path.rng.next_float(), ul0 = path.rng.next_float(), ul1 = path.rng.next_float();
    if (!bsdf_is_delta(bp) && (s.lights.count > 0 || s.lights.env_select > 0.0f)) {
        LightSample ls = sample_light<kFull>(s, pos, ul, ul0, ul1);
        if (ls.pdf > 0.0f && !is_black(ls.radiance)) {
            Vec3 wi = frame.to_local(ls.wi);
            float cos_g = dot(ls.wi, ng);
            bool same_side = two_sided ? cos_g > 0.0f : true;
            float bsdf_pdf_wi;
            Vec3 fcos = bsdf_eval_pdf<kFull>(bp, wo, wi, &bsdf_pdf_wi) * fabsf(wi.z);
            if (same_side && !is_black(fcos)) {
                float w = power_heuristic(ls.pdf, bsdf_pdf_wi);
                Vec3 c = path.throughput * fcos * ls.radiance * (w / ls.pdf);
                if (!all_finite(c)) out.dropped = true;
                else if (!is_black(c)) {
                    out.has_shadow = true;
                    out.shadow.origin = offset_ray_origin(pos, cos_g > 0.0f ? ng : -ng);
                    out.shadow.dir = ls.wi;
                    // Stop just short of the light so the emitter itself does not occlude.
                    out.shadow.tmax = ls.dist < kInfinity ? ls.dist * (1.0f - 1e-4f) : kInfinity;
                    out.shadow.contribution = c;
                    out.shadow.pixel = path.pixel;
                }
            }
        }
    }

    // Continue the path by sampling the BSDF.
    float u0 = path.rng.next_float(), u1 = path.rng.next_float(), u2 = path.rng.next_float();
    float u_rr = path.rng.next_float();
    BsdfSample bs;
    if (!bsdf_sample<kFull>(bp, wo, u0, u1, u2, bs)) return;
    Vec3 wi_world = normalize(frame.to_world(bs.wi));
    float cos_g = dot(wi_world, ng);
    if (two_sided && cos_g <= 0.0f) return;  // the shading normal sent it under the surface
    Vec3 beta = path.throughput * bs.weight;
    if (!all_finite(beta)) out.dropped = true;
    if (!all_finite(beta) || is_black(beta)) return;
    int depth = path.depth + 1;
    if (depth > kRussianRouletteDepth) {
        float survive = min_f(1.0f, max_component(beta));
        if (u_rr >= survive) return;
        beta = beta * (1.0f / survive);
    }
    path.throughput = beta;
    path.prev_pdf = bs.delta ? 0.0f : bs.pdf;
    path.depth = static_cast<int16_t>(depth);
    path.origin = offset_ray_origin(pos, cos_g > 0.0f ? ng : -ng);
    path.dir = wi_world;
    out.continues = true;
}

// The same, as one out-of-line function. Whether that pays depends on the kernel (the megakernel gains,
// the wavefront shade kernel and the persistent kernel lose: BENCHMARKS.md, "Timings that left the code
// comments"), so each scheduler picks its own.
template <bool kFull = true, class Features>
PKRT_HD_OUTLINE void shade_path_outlined(const SceneView& s, const FrameRecord& f, PathState& path, const Hit& hit,
                                         ShadeResult& out, Features& features) {
    shade_path<kFull>(s, f, path, hit, out, features);
}

}  // namespace pkrt
