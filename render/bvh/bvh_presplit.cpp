#include "render/bvh/bvh_presplit.h"

#include <algorithm>
#include <cmath>

namespace pkrt {

namespace {

constexpr double kMostlyEmpty = 4.0;  // box area over ideal area beyond which a triangle is worth cutting

Aabb polygon_box(const ClipPolygon& poly, const Aabb& limit) {
    Aabb b;
    for (int i = 0; i < poly.n; ++i) b.grow(poly.v[i]);
    if (!b.empty()) {  // never outside the piece being split (interpolation rounding)
        b.lo = vmax(b.lo, limit.lo);
        b.hi = vmin(b.hi, limit.hi);
    }
    return b;
}

// `poly` is the piece of the triangle, `box` its bounds; cut into `pieces` references.
void split_reference(uint32_t index, const ClipPolygon& poly, const Aabb& box, int pieces,
                     std::vector<BvhReference>& out) {
    Vec3 e = box.hi - box.lo;
    int axis = (e.x >= e.y && e.x >= e.z) ? 0 : (e.y >= e.z ? 1 : 2);
    if (pieces <= 1 || !(e[axis] > 0.0f) || poly.n > ClipPolygon::kMaxCorners / 2) {
        out.push_back(BvhReference{index, box});
        return;
    }
    float c = box.lo[axis] + 0.5f * e[axis];
    ClipPolygon lp, rp;
    split_polygon(poly, axis, c, lp, rp);
    Aabb lbox = box, rbox = box;
    set_axis(lbox.hi, axis, c);
    set_axis(rbox.lo, axis, c);
    Aabb l = lp.n >= 3 ? polygon_box(lp, lbox) : Aabb{}, r = rp.n >= 3 ? polygon_box(rp, rbox) : Aabb{};
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

ClipPolygon triangle_polygon(const TriVerts& t) {
    ClipPolygon p;
    p.v[0] = t.v0;
    p.v[1] = t.v1;
    p.v[2] = t.v2;
    p.n = 3;
    return p;
}

void split_polygon(const ClipPolygon& in, int axis, float c, ClipPolygon& below, ClipPolygon& above) {
    below.n = above.n = 0;
    for (int i = 0; i < in.n; ++i) {
        const Vec3& a = in.v[i];
        const Vec3& b = in.v[i + 1 == in.n ? 0 : i + 1];
        float da = a[axis] - c, db = b[axis] - c;
        if (da <= 0.0f) below.v[below.n++] = a;
        if (da >= 0.0f) above.v[above.n++] = a;
        if ((da < 0.0f && db > 0.0f) || (da > 0.0f && db < 0.0f)) {
            Vec3 p = a + (b - a) * (da / (da - db));
            set_axis(p, axis, c);
            below.v[below.n++] = p;
            above.v[above.n++] = p;
        }
    }
}

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
        for (size_t i = 0; i < n; ++i)
            pieces[i] += static_cast<int>(std::min(64.0, std::floor(extra * waste[i] / total)));
    }
    std::vector<BvhReference> refs;
    refs.reserve(n + static_cast<size_t>(extra));
    for (size_t i = 0; i < n; ++i) {
        if (pieces[i] == 1) refs.push_back(BvhReference{static_cast<uint32_t>(i), boxes[i]});
        else split_reference(static_cast<uint32_t>(i), triangle_polygon(tris[i]), boxes[i], pieces[i], refs);
    }
    return refs;
}

}  // namespace pkrt
