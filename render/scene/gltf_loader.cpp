// glTF 2.0 (.gltf + buffers + images, or .glb) through tinygltf, treated as untrusted input:
//   - every file is read through read_input_file (regular files only, recorded as scene inputs) by
//     tinygltf's file-system callbacks, which also refuse URIs that are absolute or climb out of the
//     model's directory, and never expand `~` or variables as tinygltf's default does (wordexp);
//   - images are decoded by pkrt's texture decoders (texture_loader.cpp), not tinygltf's stb_image;
//   - before tinygltf sees the file, the .glb container and the buffers, buffer views and images of the
//     JSON are checked: tinygltf 2.7 reads an image's buffer view without checking its range, and
//     copies a zero-length GLB buffer through vector::at; the JSON's nesting is limited (tinygltf's
//     conversion to its values recurses), the types of the properties it reads are checked (it drops a
//     wrongly typed one for its default), and the bytes of all files read count against a budget;
//   - accessors are read only here, each checked against its buffer view and buffer first, and sparse
//     accessors are applied here (tinygltf 2.7 parses `sparse` but leaves the values alone).
// The checks before tinygltf and its callbacks are in gltf_input.cpp; this file reads the model it built,
// with its accessors in gltf_accessors.cpp and its materials in gltf_materials.cpp (gltf_reader.h).
// Any problem is one Error naming the file; what is only ignored (other primitive modes, orthographic
// cameras, unsupported extensions) becomes a warning line in scene.load_stats.warnings.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <tiny_gltf.h>

#include "render/error.h"
#include "render/scene/gltf_input.h"
#include "render/scene/input_file.h"
#include "render/scene/json_input.h"
#include "render/scene/loaders.h"
#include "render/scene/gltf_reader.h"
#include "render/scene/mesh_builder.h"

namespace pkrt {

namespace {

using gltf::check_glb;
using gltf::check_json;
using gltf::Context;
using gltf::fs_exists;
using gltf::fs_expand;
using gltf::fs_read;
using gltf::fs_write;
using gltf::GlbChunks;
using gltf::load_image;
using gltf::Reader;

const std::set<std::string> kSupportedExtensions = {"KHR_materials_emissive_strength", "KHR_texture_transform",
                                                    "KHR_materials_transmission", "KHR_materials_ior",
                                                    "KHR_materials_volume"};

constexpr size_t kMaxNodeDepth = 256;          // real hierarchies are a few levels deep
constexpr uint64_t kMaxNodeVisits = 1u << 20;  // a DAG of nodes can reach a node exponentially often

std::string lines_joined(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    for (auto& c : text)
        if (c == '\n' || c == '\r') c = ' ';
    if (text.size() > 300) text = text.substr(0, 300) + "...";  // tinygltf quotes whole data: URIs
    return text;
}

glm::dmat4 local_matrix(const tinygltf::Node& n, const std::string& where, const Reader& r) {
    auto finite = [&](const std::vector<double>& v) {
        for (double x : v)
            if (!std::isfinite(x)) r.fail(where + ": a transform component is not finite");
    };
    if (!n.matrix.empty()) {
        if (n.matrix.size() != 16) r.fail(where + ": matrix must have 16 numbers");
        finite(n.matrix);
        glm::dmat4 m;
        for (int c = 0; c < 4; ++c)
            for (int k = 0; k < 4; ++k) m[c][k] = n.matrix[static_cast<size_t>(c * 4 + k)];  // column-major, as glm
        return m;
    }
    glm::dmat4 m(1.0);
    if (!n.translation.empty()) {
        if (n.translation.size() != 3) r.fail(where + ": translation must have 3 numbers");
        finite(n.translation);
        m = glm::translate(m, glm::dvec3(n.translation[0], n.translation[1], n.translation[2]));
    }
    if (!n.rotation.empty()) {
        if (n.rotation.size() != 4) r.fail(where + ": rotation must have 4 numbers");
        finite(n.rotation);
        glm::dquat q(n.rotation[3], n.rotation[0], n.rotation[1], n.rotation[2]);  // glTF stores x, y, z, w
        double len = glm::length(q);
        if (!(len > 0.0)) r.fail(where + ": rotation is a zero quaternion");
        m = m * glm::mat4_cast(q / len);
    }
    if (!n.scale.empty()) {
        if (n.scale.size() != 3) r.fail(where + ": scale must have 3 numbers");
        finite(n.scale);
        m = glm::scale(m, glm::dvec3(n.scale[0], n.scale[1], n.scale[2]));
    }
    return m;
}

}  // namespace

namespace gltf {

void Reader::load() {
    for (const auto& e : m_.extensionsRequired)
        if (!kSupportedExtensions.count(e))
            fail("requires extension " + json_excerpt(e) + ", which pkrt does not support");
    std::string unsupported;
    for (const auto& e : m_.extensionsUsed)
        if (!kSupportedExtensions.count(e)) unsupported += (unsupported.empty() ? "" : ", ") + json_excerpt(e);
    if (!unsupported.empty()) warn("ignoring unsupported extensions: " + unsupported);

    material_slot_.assign(m_.materials.size(), -1);
    material_uv_.assign(m_.materials.size(), 0);
    if (options_.material_override < 0) {
        for (size_t i = 0; i < m_.materials.size(); ++i) {
            const tinygltf::Material& gm = m_.materials[i];
            std::string where = "material " + std::to_string(i);
            const auto& pbr = gm.pbrMetallicRoughness;
            Material out = default_material();
            out.type = kMetalRough;
            auto unit = [&](double x, const char* what) {
                if (!(x >= 0.0 && x <= 1.0)) fail(where + ": " + what + " must be in [0, 1]");
                return static_cast<float>(x);
            };
            if (pbr.baseColorFactor.size() != 4) fail(where + ": baseColorFactor must have 4 numbers");
            out.albedo = {unit(pbr.baseColorFactor[0], "baseColorFactor"),
                          unit(pbr.baseColorFactor[1], "baseColorFactor"),
                          unit(pbr.baseColorFactor[2], "baseColorFactor")};
            out.metallic = unit(pbr.metallicFactor, "metallicFactor");
            float rough = unit(pbr.roughnessFactor, "roughnessFactor");
            out.alpha = rough * rough;
            if (gm.emissiveFactor.size() != 3) fail(where + ": emissiveFactor must have 3 numbers");
            double strength = 1.0;
            if (const tinygltf::Value* es = extension(gm.extensions, "KHR_materials_emissive_strength"))
                strength = number(es->Get("emissiveStrength"), 1.0);
            if (!(strength >= 0.0 && strength <= 1e20)) fail(where + ": emissiveStrength must be in [0, 1e20]");
            for (int k = 0; k < 3; ++k) {
                double e = gm.emissiveFactor[static_cast<size_t>(k)];
                if (!(e >= 0.0 && e <= 1.0)) fail(where + ": emissiveFactor must be in [0, 1]");
                (k == 0 ? out.emission.x : k == 1 ? out.emission.y : out.emission.z) = static_cast<float>(e * strength);
            }
            std::set<int> sets;
            int set = 0;
            if (pbr.baseColorTexture.index >= 0) {
                out.albedo_texture = texture_view(pbr.baseColorTexture, pbr.baseColorTexture.texCoord,
                                                  pbr.baseColorTexture.extensions, true, static_cast<int>(i), &set);
                sets.insert(set);
            }
            if (pbr.metallicRoughnessTexture.index >= 0) {
                out.metal_rough_texture =
                    texture_view(pbr.metallicRoughnessTexture, pbr.metallicRoughnessTexture.texCoord,
                                 pbr.metallicRoughnessTexture.extensions, false, static_cast<int>(i), &set);
                sets.insert(set);
            }
            if (gm.emissiveTexture.index >= 0 && !is_black(out.emission)) {
                out.emission_texture = texture_view(gm.emissiveTexture, gm.emissiveTexture.texCoord,
                                                    gm.emissiveTexture.extensions, true, static_cast<int>(i), &set);
                sets.insert(set);
            }
            if (gm.normalTexture.index >= 0) {
                tinygltf::TextureInfo ti;
                ti.index = gm.normalTexture.index;
                out.normal_texture = texture_view(ti, gm.normalTexture.texCoord, gm.normalTexture.extensions, false,
                                                  static_cast<int>(i), &set);
                if (!std::isfinite(gm.normalTexture.scale) || std::fabs(gm.normalTexture.scale) > 1e3)
                    fail(where + ": normalTexture.scale must be a finite number");
                out.normal_scale = static_cast<float>(gm.normalTexture.scale);
                sets.insert(set);
            }
            if (const tinygltf::Value* tr = extension(gm.extensions, "KHR_materials_transmission")) {
                double t = number(tr->Get("transmissionFactor"), 0.0);
                if (!(t >= 0.0 && t <= 1.0)) fail(where + ": transmissionFactor must be in [0, 1]");
                if (t > 0.0) {
                    // pkrt's dielectric: fully transmissive, tinted by the base colour; partial transmission,
                    // its texture and the volume's attenuation are not modelled.
                    out.type = kDielectric;
                    double ior = 1.5;
                    if (const tinygltf::Value* io = extension(gm.extensions, "KHR_materials_ior"))
                        ior = number(io->Get("ior"), 1.5);
                    if (!(ior >= 1.0 && ior <= 4.0)) fail(where + ": ior must be in [1, 4]");
                    out.ior = static_cast<float>(ior);
                    out.metallic = 0.0f;
                    out.metal_rough_texture = -1;
                }
            }
            sets.erase(0);
            int uv = sets.empty() ? 0 : *sets.begin();
            if (uv > 1 || sets.size() > 1) uv_conflict_ = true;
            material_uv_[i] = uv > 1 ? 0 : uv;
            material_slot_[i] = static_cast<int32_t>(scene_.materials.size());
            scene_.materials.push_back(out);
            scene_.material_names.push_back(gm.name.empty() ? where : gm.name);
            // Coverage: the base colour's alpha (factor times texture), tested (MASK) or blended (BLEND).
            float coverage = unit(pbr.baseColorFactor[3], "baseColorFactor");
            if (gm.alphaMode == "MASK") {
                if (!(gm.alphaCutoff >= 0.0 && gm.alphaCutoff <= 1e6))
                    fail(where + ": alphaCutoff must be a number >= 0");
                if (gm.alphaCutoff > 0.0)
                    set_material_cutout(scene_, material_slot_[i], out.albedo_texture, coverage,
                                        static_cast<float>(gm.alphaCutoff));
            } else if (gm.alphaMode == "BLEND") {
                if (coverage < 1.0f || out.albedo_texture >= 0)
                    set_material_cutout(scene_, material_slot_[i], out.albedo_texture, coverage, 0.0f);
            } else if (gm.alphaMode != "OPAQUE" && !gm.alphaMode.empty()) {
                fail(where + ": alphaMode '" + json_excerpt(gm.alphaMode) + "' is not OPAQUE, MASK or BLEND");
            }
        }
    }

    glm::dmat4 root(options_.transform);
    on_path_.assign(m_.nodes.size(), 0);
    if (!m_.scenes.empty()) {
        int si = m_.defaultScene >= 0 ? m_.defaultScene : 0;
        const tinygltf::Scene& sc = at(m_.scenes, si, "scene");
        for (int n : sc.nodes) visit(n, root, 0);
    } else {
        // No scene: every root node (no one's child), as most viewers do.
        std::vector<uint8_t> child(m_.nodes.size(), 0);
        for (const auto& n : m_.nodes)
            for (int c : n.children)
                if (c >= 0 && static_cast<size_t>(c) < child.size()) child[static_cast<size_t>(c)] = 1;
        for (size_t i = 0; i < m_.nodes.size(); ++i)
            if (!child[i]) visit(static_cast<int>(i), root, 0);
    }

    for (const auto& [mode, n] : skipped_modes_)
        warn("skipped " + std::to_string(n) + " primitives of mode " + std::to_string(mode) +
             " (pkrt renders triangles only)");
    if (uv_conflict_)
        warn("a material reads several texture coordinate sets (or one beyond TEXCOORD_1): pkrt uses one per material");
    // What pkrt does not render, one line each, so that nothing is dropped silently.
    size_t occlusion = 0, targets = 0;
    for (const auto& gm : m_.materials) occlusion += gm.occlusionTexture.index >= 0;
    for (const auto& mesh : m_.meshes)
        for (const auto& p : mesh.primitives) targets += !p.targets.empty();
    auto count = [](size_t n, const char* one, const char* many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    if (occlusion)
        warn("occlusionTexture ignored (" + count(occlusion, "material", "materials") +
             "; a path tracer traces occlusion)");
    if (targets)
        warn("morph targets ignored (" + count(targets, "primitive", "primitives") + "; the base shape renders)");
    if (!m_.skins.empty())
        warn("skins ignored (" + count(m_.skins.size(), "skin", "skins") + "; the bind pose renders)");
    if (!m_.animations.empty())
        warn("animations ignored (" + count(m_.animations.size(), "animation", "animations") +
             "; the nodes' own transforms render)");
    std::stable_sort(cameras_.begin(), cameras_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& c : cameras_) scene_.cameras.push_back(std::move(c.second));
    if (added_ == 0 && scene_.tris.empty())
        fail("no valid triangles in the default scene (none, or all degenerate or non-finite)");
}

void Reader::visit(int node, const glm::dmat4& parent, size_t depth) {
    const tinygltf::Node& n = at(m_.nodes, node, "node");
    std::string where = "node " + std::to_string(node);
    if (on_path_[static_cast<size_t>(node)]) fail(where + " is its own ancestor (a cycle in the node hierarchy)");
    if (depth > kMaxNodeDepth) fail(where + ": the node hierarchy is deeper than " + std::to_string(kMaxNodeDepth));
    if (++visits_ > kMaxNodeVisits)
        fail("the scene reaches more than " + std::to_string(kMaxNodeVisits) + " node instances");
    glm::dmat4 xf = parent * local_matrix(n, where, *this);
    if (n.camera >= 0) add_camera(n.camera, n.name, xf);
    if (n.mesh >= 0) {
        const tinygltf::Mesh& mesh = at(m_.meshes, n.mesh, (where + ": mesh").c_str());
        for (size_t k = 0; k < mesh.primitives.size(); ++k) add_primitive(mesh.primitives[k], xf, n.mesh, k);
    }
    on_path_[static_cast<size_t>(node)] = 1;
    for (int c : n.children) visit(c, xf, depth + 1);
    on_path_[static_cast<size_t>(node)] = 0;
}

void Reader::add_camera(int index, const std::string& node_name, const glm::dmat4& xf) {
    const tinygltf::Camera& c = at(m_.cameras, index, "camera");
    std::string name = !c.name.empty() ? c.name : !node_name.empty() ? node_name : "camera " + std::to_string(index);
    if (c.type != "perspective") {
        warn("camera " + std::to_string(index) + " '" + name + "' is " + c.type +
             ": skipped (pkrt has perspective cameras only)");
        return;
    }
    double yfov = c.perspective.yfov * 180.0 / 3.14159265358979323846;
    if (!(yfov > 0.0 && yfov < 180.0)) fail("camera " + std::to_string(index) + ": yfov must be between 0 and pi");
    glm::dvec3 eye(xf * glm::dvec4(0, 0, 0, 1)), fwd(xf * glm::dvec4(0, 0, -1, 0)), up(xf * glm::dvec4(0, 1, 0, 0));
    double fl = glm::length(fwd), ul = glm::length(up);
    if (!(fl > 0.0) || !(ul > 0.0) || !std::isfinite(fl) || !std::isfinite(ul) ||
        !std::isfinite(eye.x + eye.y + eye.z) || !(glm::length(glm::cross(fwd / fl, up / ul)) > 1e-6))
        fail("camera " + std::to_string(index) + " '" + name + "': its node's transform is degenerate");
    glm::dvec3 at_ = eye + fwd / fl;
    NamedCamera nc;
    nc.name = name;
    nc.spec.eye = {float(eye.x), float(eye.y), float(eye.z)};
    nc.spec.look_at = {float(at_.x), float(at_.y), float(at_.z)};
    nc.spec.up = {float(up.x / ul), float(up.y / ul), float(up.z / ul)};
    nc.spec.vfov_degrees = static_cast<float>(yfov);
    cameras_.push_back({index, nc});
}

void Reader::add_primitive(const tinygltf::Primitive& p, const glm::dmat4& xf, int mesh, size_t k) {
    std::string where = "mesh " + std::to_string(mesh) + " primitive " + std::to_string(k);
    if (p.mode != TINYGLTF_MODE_TRIANGLES) {
        ++skipped_modes_[p.mode];
        return;
    }
    auto attr = [&](const char* name) {
        auto it = p.attributes.find(name);
        return it == p.attributes.end() ? -1 : it->second;
    };
    int ipos = attr("POSITION");
    if (ipos < 0) fail(where + ": no POSITION attribute");
    const std::vector<float>& pos = floats(ipos, 3, where + " POSITION");
    size_t nv = pos.size() / 3;
    auto same_count = [&](const std::vector<float>& v, size_t comps, const char* what) {
        if (v.size() / comps != nv)
            fail(where + ": " + what + " has " + std::to_string(v.size() / comps) + " elements, POSITION " +
                 std::to_string(nv));
    };
    int32_t mat = material(p.material);
    if (p.material >= 0) at(m_.materials, p.material, (where + ": material").c_str());
    int uv_set = p.material >= 0 && options_.material_override < 0 ? material_uv_[static_cast<size_t>(p.material)] : 0;
    const std::vector<float>* nrm = nullptr;
    const std::vector<float>* tan = nullptr;
    const std::vector<float>* uv = nullptr;
    if (int i = attr("NORMAL"); i >= 0) same_count(*(nrm = &floats(i, 3, where + " NORMAL")), 3, "NORMAL");
    if (int i = attr(uv_set == 1 ? "TEXCOORD_1" : "TEXCOORD_0"); i >= 0)
        same_count(*(uv = &floats(i, 2, where + " TEXCOORD")), 2, "TEXCOORD");
    bool normal_map = scene_.materials[static_cast<size_t>(mat)].normal_texture >= 0;
    if (normal_map)
        if (int i = attr("TANGENT"); i >= 0) same_count(*(tan = &floats(i, 4, where + " TANGENT")), 4, "TANGENT");

    std::vector<uint32_t> seq;
    const std::vector<uint32_t>* idx;
    if (p.indices >= 0) {
        idx = &indices(p.indices, where);
        for (uint32_t i : *idx)
            if (i >= nv)
                fail(where + ": index " + std::to_string(i) + " is past its " + std::to_string(nv) + " vertices");
    } else {
        seq.resize(nv);
        for (size_t i = 0; i < nv; ++i) seq[i] = static_cast<uint32_t>(i);
        idx = &seq;
    }
    size_t ntri = idx->size() / 3;
    check_triangle_budget(scene_.limits, path_, scene_.tris.size(), ntri);

    // Generated tangents: Lengyel's per-vertex accumulation of dP/du and dP/dv (v up, as pkrt samples),
    // orthogonalised per vertex. Not MikkTSpace: maps baked against MikkTSpace tangents differ slightly
    // where the accumulation averages differently (seams, non-uniform triangles).
    std::vector<float> gen;
    if (normal_map && !tan) {
        std::vector<glm::dvec3> su(nv, glm::dvec3(0)), sv(nv, glm::dvec3(0)), fn(nv, glm::dvec3(0));
        for (size_t t = 0; t < ntri; ++t) {
            uint32_t i[3] = {(*idx)[3 * t], (*idx)[3 * t + 1], (*idx)[3 * t + 2]};
            glm::dvec3 P[3];
            double U[3], V[3];
            for (int c = 0; c < 3; ++c) {
                P[c] = {pos[3 * i[c]], pos[3 * i[c] + 1], pos[3 * i[c] + 2]};
                U[c] = uv ? (*uv)[2 * i[c]] : 0.0;
                V[c] = uv ? 1.0 - (*uv)[2 * i[c] + 1] : 0.0;
            }
            glm::dvec3 e1 = P[1] - P[0], e2 = P[2] - P[0];
            double du1 = U[1] - U[0], dv1 = V[1] - V[0], du2 = U[2] - U[0], dv2 = V[2] - V[0];
            double det = du1 * dv2 - du2 * dv1;
            glm::dvec3 n = glm::cross(e1, e2);
            for (int c = 0; c < 3; ++c) fn[i[c]] += n;
            if (!(std::fabs(det) > 1e-20) || !std::isfinite(det)) continue;
            glm::dvec3 sd = (e1 * dv2 - e2 * dv1) / det, td = (e2 * du1 - e1 * du2) / det;
            for (int c = 0; c < 3; ++c) {
                su[i[c]] += sd;
                sv[i[c]] += td;
            }
        }
        gen.assign(4 * nv, 0.0f);
        for (size_t v = 0; v < nv; ++v) {
            glm::dvec3 n = nrm ? glm::dvec3((*nrm)[3 * v], (*nrm)[3 * v + 1], (*nrm)[3 * v + 2]) : fn[v];
            double nl = glm::length(n);
            if (!(nl > 0.0) || !std::isfinite(nl)) continue;
            n /= nl;
            glm::dvec3 t = su[v] - n * glm::dot(n, su[v]);
            double tl = glm::length(t);
            if (!(tl > 0.0) || !std::isfinite(tl)) continue;
            t /= tl;
            double w = glm::dot(glm::cross(n, t), sv[v]) < 0.0 ? -1.0 : 1.0;
            gen[4 * v] = float(t.x);
            gen[4 * v + 1] = float(t.y);
            gen[4 * v + 2] = float(t.z);
            gen[4 * v + 3] = float(w);
        }
        tan = &gen;
    }

    glm::mat4 fxf(xf);
    double det = glm::determinant(glm::dmat3(xf));
    bool flip = det < 0.0;  // a mirroring transform turns the winding, and with it the front face, around
    glm::mat3 lin(fxf);
    MeshBuilder builder(scene_, fxf);
    for (size_t t = 0; t < ntri; ++t) {
        uint32_t i[3] = {(*idx)[3 * t], (*idx)[3 * t + 1], (*idx)[3 * t + 2]};
        if (flip) std::swap(i[1], i[2]);
        MeshVertex v[3];
        for (int c = 0; c < 3; ++c) {
            size_t j = i[c];
            v[c].p = {pos[3 * j], pos[3 * j + 1], pos[3 * j + 2]};
            v[c].n = nrm ? Vec3{(*nrm)[3 * j], (*nrm)[3 * j + 1], (*nrm)[3 * j + 2]} : Vec3{0.0f, 0.0f, 0.0f};
            v[c].uv = uv ? Vec2{(*uv)[2 * j], 1.0f - (*uv)[2 * j + 1]} : Vec2{0.0f, 0.0f};  // glTF's v points down
        }
        if (!builder.add(v[0], v[1], v[2], mat)) continue;
        if (!tan) continue;
        TriTangents tt{};
        Vec3* dst[3] = {&tt.t0, &tt.t1, &tt.t2};
        float* w[3] = {&tt.w0, &tt.w1, &tt.w2};
        for (int c = 0; c < 3; ++c) {
            size_t j = i[c];
            glm::vec3 d = lin * glm::vec3((*tan)[4 * j], (*tan)[4 * j + 1], (*tan)[4 * j + 2]);
            float l = glm::length(d);
            if (l > 0.0f && std::isfinite(l)) *dst[c] = {d.x / l, d.y / l, d.z / l};
            *w[c] = ((*tan)[4 * j + 3] < 0.0f ? -1.0f : 1.0f) * (flip ? -1.0f : 1.0f);
        }
        scene_.tangents.resize(scene_.tris.size() - 1);
        scene_.tangents.push_back(tt);
    }
    added_ += builder.added();
}

}  // namespace gltf

size_t load_gltf(Scene& scene, const std::string& path, const GltfOptions& options) {
    InputFile file = gltf::read_asset_file(scene, path, "no such file");
    const std::string& b = file.bytes;
    bool glb = b.size() >= 4 && b.compare(0, 4, "glTF") == 0;
    size_t json_offset = 0, json_size = b.size();
    uint64_t bin_size = 0;
    if (glb) {
        GlbChunks c = check_glb(path, b);
        json_offset = c.json_offset;
        json_size = c.json_size;
        bin_size = c.bin_size;
    }
    if (b.size() >= (uint64_t(1) << 32)) throw Error(path + ": larger than 4 GiB (glTF's limit)");
    check_json(path, b.data() + json_offset, json_size, glb, bin_size, scene);

    std::string dir = std::filesystem::path(path).parent_path().string();
    Context ctx{scene, path, dir.empty() ? "." : dir, "", {}};
    tinygltf::TinyGLTF loader;
    loader.SetFsCallbacks(tinygltf::FsCallbacks{&fs_exists, &fs_expand, &fs_read, &fs_write, &ctx});
    loader.SetImageLoader(&load_image, &ctx);
    tinygltf::Model model;
    std::string err, warn;
    bool ok = false;
    try {
        ok = glb ? loader.LoadBinaryFromMemory(&model, &err, &warn, reinterpret_cast<const unsigned char*>(b.data()),
                                               static_cast<unsigned int>(b.size()), ctx.base)
                 : loader.LoadASCIIFromString(&model, &err, &warn, b.data(), static_cast<unsigned int>(b.size()),
                                              ctx.base);
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        if (ctx.error.empty()) ctx.error = path + ": cannot read glTF: " + e.what();
    }
    if (!ctx.error.empty()) throw Error(ctx.error);
    if (!ok) throw Error(path + ": cannot read glTF: " + lines_joined(err.empty() ? "unknown error" : err));
    for (size_t i = 0; i < model.images.size(); ++i)
        if (i >= ctx.image_texture.size() || ctx.image_texture[i] < 0)
            throw Error(path + ": image " + std::to_string(i) + " could not be loaded" +
                        (warn.empty() ? "" : ": " + lines_joined(warn)));

    size_t before = scene.tris.size();
    Reader reader(scene, path, model, ctx.image_texture, options);
    reader.load();
    return scene.tris.size() - before;
}

}  // namespace pkrt
