// The host's scene: triangle soup with per-triangle shading data, materials, textures, lights,
// environment, camera and the render defaults a scene file may carry. prepare_scene() builds the BVH,
// permutes the triangles into BVH order and sets up light sampling; view_scene() then exposes it to the
// per-ray code as a SceneView over host memory.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "render/bvh/bvh_layout.h"
#include "render/image/look.h"
#include "render/scene/input_file.h"
#include "kernels/frame.h"
#include "kernels/scene_view.h"
#include "render/scene/load_limits.h"

namespace pkrt {

struct TextureImage {
    std::string path;
    FileIdentity id;  // textures are shared by file identity, not by path string ({0, 0}: embedded in a glTF)
    int width = 0, height = 0;
    int16_t format = kTextureRgba8;  // TextureFormat: which of the two holds the texels
    std::vector<uint32_t> texels;    // RGBA8 (sRGB-encoded colour, or linear data), row 0 at the top
    std::vector<float> texels_f;     // RGBA32F, linear (Radiance .hdr, OpenEXR), row 0 at the top
};

// An equirectangular radiance map (kernels/shading/environment.h gives its layout), linear float RGB.
struct EnvironmentMap {
    std::string path;
    int width = 0, height = 0;
    std::vector<Vec3> texels;  // row 0 at +Y, before the environment's intensity
    float max_component = 0.0f;
    // Filled by prepare_scene(): the sampling distribution (Environment's marginal and conditional CDFs).
    std::vector<float> marginal_cdf, conditional_cdf;
};

struct CameraSpec {
    Vec3 eye{0.0f, 0.0f, 1.0f};
    Vec3 look_at{0.0f, 0.0f, 0.0f};
    Vec3 up{0.0f, 1.0f, 0.0f};
    float vfov_degrees = 45.0f;
    float aperture_radius = 0.0f;  // thin lens radius in scene units; 0 = pinhole
    float focus_distance = 0.0f;   // along the view direction; 0 = the distance from eye to look_at
};

// A camera a file defines (glTF), for `pkrt render --camera N|NAME`.
struct NamedCamera {
    std::string name;
    CameraSpec spec;
};

// Defaults a scene may set; the command line overrides them.
struct RenderDefaults {
    int width = 512, height = 512;
    int spp = 16;
    int max_depth = 8;
    Look look;  // exposure and tone curve of its PNGs and the viewer (render.exposure, render.tone_map)
};

struct SceneLoadStats {
    size_t nonfinite_triangles = 0;         // dropped: a vertex had a NaN or infinite coordinate
    size_t degenerate_triangles = 0;        // dropped: zero area
    std::vector<std::string> warnings;      // "FILE: what was ignored", one line each, printed by the caller
    size_t invalid_environment_texels = 0;  // set to 0: a NaN, infinite or negative component
    // The most one texture or environment map's decoding held beyond what the scene keeps and the texel
    // weights charge: the file's bytes, and stb_image's own RGBA buffer for TGA and BMP (copied into the
    // texels, so both are held for a moment). What pkrt announces as its memory includes it.
    uint64_t decode_peak_bytes = 0;
};

// A file the scene was read from, so that no output may overwrite it.
struct SceneInput {
    std::string path;
    FileIdentity id;
};

struct Scene {
    std::string source;              // file it came from, for messages
    LoadLimits limits;               // checked by the loaders as the scene grows
    std::vector<SceneInput> inputs;  // every file read: scene, OBJ, MTL, textures, environment map
    uint64_t asset_bytes = 0;        // of glTF files, buffers and images read, against limits.max_asset_bytes
    CameraSpec camera;
    std::vector<NamedCamera> cameras;  // the files' own cameras (glTF), in file order
    RenderDefaults defaults;
    Environment environment{};  // kEnvNone; a map's pointers are set by view_scene() over env_map
    EnvironmentMap env_map;

    std::vector<TriVerts> tris;
    std::vector<TriShading> shading;
    // Empty, or one per triangle (zero where a mesh has none); prepare_scene drops it when no material
    // has a normal map.
    std::vector<TriTangents> tangents;
    std::vector<Material> materials;
    std::vector<std::string> material_names;
    // Empty, or a coverage rule per material (kernels/traversal/cutout.h; rule 0: opaque), which prepare_scene
    // writes into every triangle of the material. set_material_cutout() fills it.
    std::vector<TriCutout> material_cutouts;
    std::vector<TextureImage> textures;  // images: texels, one copy per file or embedded image
    // What material texture indices point to: an image with its wrap modes, colour space and uv
    // transform. The loaders fill all but the texel pointer and size, which prepare_scene sets.
    std::vector<TextureView> texture_views;

    // Filled by prepare_scene().
    SceneBvh bvh;  // in the layout prepare_scene() was asked for
    // Triangles as loaded; `tris` may hold more (a copy per reference of a split triangle).
    size_t source_triangles = 0;
    double bvh_sah_cost = 0.0;
    std::vector<int32_t> light_tris;
    std::vector<float> light_cdf;
    std::vector<float> tri_light_pmf;
    float env_select = 0.0f;
    double bvh_build_seconds = 0.0;

    SceneLoadStats load_stats;
};

// Loads a .json scene, or a bare .obj, .gltf or .glb (under a sky, framed by an automatic camera unless
// the glTF has cameras: then its first). Throws Error.
Scene load_scene(const std::string& path, const LoadLimits& limits = {});

// The index of `view` in scene.texture_views, added unless an equal view exists (views share texels).
int32_t add_texture_view(Scene& scene, const TextureView& view);

// Gives `material` a coverage rule: alpha from texture view `view` (or none: -1) times `factor`, solid
// at and above `cutoff`, or blended stochastically when `cutoff` is 0.
void set_material_cutout(Scene& scene, int32_t material, int32_t view, float factor, float cutoff);

// Whether a material has a coverage rule other than opaque; whether any material has.
bool has_cutout(const Scene& scene, int32_t material);
bool has_cutouts(const Scene& scene);

// Makes the file camera given by index or name the scene's camera. Throws Error listing what exists.
void select_camera(Scene& scene, const std::string& which);

// BVH in `layout`, triangle order, light tables. Throws Error if the scene has no triangles.
// split_budget: triangle pre-splitting (render/bvh/bvh_presplit.h); spatial_splits: an SBVH (render/bvh/bvh_sbvh.h).
void prepare_scene(Scene& scene, BvhLayout layout = BvhLayout::kBvh2, float split_budget = 0.0f,
                   bool spatial_splits = false);

CameraView make_camera_view(const CameraSpec& spec, int width, int height);

// The environment with a map's pointers set to env_map's host arrays.
Environment environment_view(const Scene& scene);

// Lens values a scene file or a flag may give: finite, within 1e18 (as the camera's position, so the
// lens offsets stay far from float overflow); an aperture radius may be 0 (a pinhole), a focus distance
// may not.
bool valid_aperture_radius(float r);
bool valid_focus_distance(float d);

// Whether the per-ray code needs its full form for this scene (kernels/shading/environment.h, kFull): an
// environment map, a metal-rough material, an emission, metal-rough or normal texture, or a cut-out.
bool needs_full_shading(const Scene& scene);

// A view over the scene's host memory, for the CPU backend and tests, in whichever layout the scene's
// BVH holds.
SceneView view_scene(const Scene& scene);

}  // namespace pkrt
