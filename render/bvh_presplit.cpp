#include "bvh_presplit.h"

#include <algorithm>
#include <cmath>


namespace pkrt {

namespace {

constexpr double kMostlyEmpty = 4.0;  // box area over ideal area beyond which a triangle is worth cutting

void set_axis(Vec3& v, int axis, float value) { (axis == 0 ? v.x : axis == 1 ? v.y : v.z) = value; }

// Splits a convex polygon by the plane p[axis] = c into the parts below and above it. New vertices lie
// exactly on the plane. Only the split plane is ever clipped: clipping against a plane the polygon
// lies in (a flat axis of the piece's box) would turn rounding into arbitrary cuts.
void split_polygon(const std::vector<Vec3>& in, int axis, float c, std::vector<Vec3>& below, std::vector<Vec3>& above) {
    below.clear();
    above.clear();
    size_t n = in.size();
    for (size_t i = 0; i < n; ++i) {
        const Vec3& a = in[i];
        const Vec3& b = in[(i + 1) % n];
        float da = a[axis] - c, db = b[axis] - c;
        if (da <= 0.0f) below.push_back(a);
        if (da >= 0.0f) above.push_back(a);
        if ((da < 0.0f && db > 0.0f) || (da > 0.0f && db < 0.0f)) {
            Vec3 p = a + (b - a) * (da / (da - db));
            set_axis(p, axis, c);
            below.push_back(p);
            above.push_back(p);
        }
    }
}

Aabb polygon_box(const std::vector<Vec3>& poly, const Aabb& limit) {
    Aabb b;
    for (const Vec3& v : poly) b.grow(v);
    if (!b.empty()) {  // never outside the piece being split (interpolation rounding)
        b.lo = vmax(b.lo, limit.lo);
        b.hi = vmin(b.hi, limit.hi);
    }
    return b;
}

// `poly` is the piece of the triangle, `box` its bounds; cut into `pieces` references.
void split_reference(uint32_t index, const std::vector<Vec3>& poly, const Aabb& box, int pieces, std::vector<BvhReference>& out) {
    Vec3 e = box.hi - box.lo;
    int axis = (e.x >= e.y && e.x >= e.z) ? 0 : (e.y >= e.z ? 1 : 2);
    if (pieces <= 1 || !(e[axis] > 0.0f) || poly.size() > 64) {
        out.push_back(BvhReference{index, box});
        return;
    }
    float c = box.lo[axis] + 0.5f * e[axis];
    std::vector<Vec3> lp, rp;
    split_polygon(poly, axis, c, lp, rp);
    Aabb lbox = box, rbox = box;
    set_axis(lbox.hi, axis, c);
    set_axis(rbox.lo, axis, c);
    Aabb l = lp.size() >= 3 ? polygon_box(lp, lbox) : Aabb{}, r = rp.size() >= 3 ? polygon_box(rp, rbox) : Aabb{};
    if (l.empty() || r.empty()) {  // the piece lies on one side (rounding): keep it whole
        out.push_back(BvhReference{index, box});
        return;
    }
    float la = l.area(), ra = r.area();
    int left = la + ra > 0.0f ? static_cast<int>(std::lround(pieces * la / (la + ra))) : pieces / 2;
    left = std::clamp(left, 1, pieces - 1);
    split_reference(index, lp, l, left, out);
    split_reference(index, rp, r, pieces - left, out);
}

Aabb triangle_box(const TriVerts& t) {
    Aabb b;
    b.grow(t.v0);
    b.grow(t.v1);
    b.grow(t.v2);
    return b;
}

}  // namespace

namespace {

// The surface area a triangle's boxes tend to when it is cut ever finer: twice its projections on the
// three axis planes. A box this close to it holds no empty space worth cutting away.
double ideal_box_area(const TriVerts& t) {
    Vec3 c = cross(t.v1 - t.v0, t.v2 - t.v0);  // |c| = twice the area; its components, the projections
    return static_cast<double>(std::fabs(c.x) + std::fabs(c.y) + std::fabs(c.z));
}

}  // namespace

std::vector<BvhReference> presplit_triangles(const std::vector<TriVerts>& tris, float budget) {
    size_t n = tris.size();
    std::vector<Aabb> boxes(n);
    std::vector<double> waste(n, 0.0);
    double total = 0.0;
    for (size_t i = 0; i < n; ++i) {
        boxes[i] = triangle_box(tris[i]);
        double box = boxes[i].area(), ideal = ideal_box_area(tris[i]);
        // Only boxes that are mostly empty: an axis-aligned triangle's box is twice its ideal and is
        // left whole (cutting it only spreads copies of it over more leaves).
        if (box > kMostlyEmpty * ideal) waste[i] = box - ideal;
        total += waste[i];
    }
    std::vector<int> pieces(n, 1);
    double extra = std::max(0.0, static_cast<double>(budget)) * static_cast<double>(n);
    if (extra >= 1.0 && total > 0.0) {
        for (size_t i = 0; i < n; ++i) pieces[i] += static_cast<int>(std::min(64.0, std::floor(extra * waste[i] / total)));
    }
    std::vector<BvhReference> refs;
    refs.reserve(n + static_cast<size_t>(extra));
    for (size_t i = 0; i < n; ++i) {
        if (pieces[i] == 1) refs.push_back(BvhReference{static_cast<uint32_t>(i), boxes[i]});
        else split_reference(static_cast<uint32_t>(i), {tris[i].v0, tris[i].v1, tris[i].v2}, boxes[i], pieces[i], refs);
    }
    return refs;
}

}  // namespace pkrt
