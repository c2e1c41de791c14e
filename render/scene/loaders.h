// File loaders that add to a Scene: Wavefront OBJ/MTL (tinyobjloader after a strict pass, obj_scan.h),
// glTF 2.0 (tinygltf, every file read and every accessor checked here), PLY (assimp's PLY importer after a
// strict pass, ply_scan.h), textures (render/texture/texture_decoders.h: PNG, JPEG, TGA, BMP, Radiance .hdr, OpenEXR),
// and the procedural shapes that JSON scenes may use. Each throws Error with the file name on bad input, and
// checks the scene's limits (load_limits.h) before allocating.
#pragma once

#include <string>

#include <glm/glm.hpp>

#include "render/scene/scene.h"

namespace pkrt {

struct ObjOptions {
    glm::mat4 transform{1.0f};
    int32_t material_override = -1;  // scene material index for every face, or -1 to use the MTL
};

// Returns the number of triangles added.
size_t load_obj(Scene& scene, const std::string& path, const ObjOptions& options);

struct GltfOptions {
    glm::mat4 transform{1.0f};
    int32_t material_override = -1;  // scene material index for every primitive, or -1 for the file's
};

// glTF 2.0 (.gltf with its buffers and images, or .glb): the default scene's meshes, materials,
// textures and cameras (render/scene/gltf_loader.cpp). Returns the number of triangles added.
size_t load_gltf(Scene& scene, const std::string& path, const GltfOptions& options);

struct PlyOptions {
    glm::mat4 transform{1.0f};
    int32_t material_override = -1;  // scene material index for every face, or -1 for a default material
};

// A PLY mesh (ASCII or binary, either byte order): positions, normals and texture coordinates if it has
// them, polygons fanned into triangles (render/scene/ply_loader.cpp). What pkrt does not use (colours, other
// elements and properties) becomes one warning line per kind. Returns the number of triangles added.
size_t load_ply(Scene& scene, const std::string& path, const PlyOptions& options);

// Loads (once per file identity) a PNG, JPEG, TGA or BMP (RGBA8), or a Radiance .hdr or OpenEXR (linear
// RGBA32F), told apart by signature (TGA, which has none, by a .tga name); returns its index in scene.textures.
int32_t load_texture(Scene& scene, const std::string& path);

// Decodes a texture held in memory (`name` for messages; `file_name`, the file it came from where there is
// one, a glTF image's URI, says TGA by its .tga extension as load_texture's path does) into a new scene
// texture, within the scene's texel budget; returns its index in scene.textures.
int32_t decode_texture(Scene& scene, const std::string& name, const std::string& file_name, const unsigned char* bytes,
                       size_t size);

// Texels charged against the scene's budget (LoadLimits::max_texels): textures (a float texture's at
// kFloatTexelWeight each), and the environment map's at kEnvironmentTexelWeight each.
uint64_t texel_budget_used(const Scene& scene);

// Loads an equirectangular environment map (Radiance .hdr or OpenEXR .exr, told apart by their
// signatures) and makes it the scene's environment, scaled by `intensity` and turned `rotation_degrees`
// about +Y. Texels with a NaN, infinite or negative component become 0 and are counted in
// scene.load_stats. Throws Error naming the file.
void set_environment_map(Scene& scene, const std::string& path, float intensity, float rotation_degrees);

// Makes `map` (its texels decoded or made, its path naming it in messages) the scene's environment, as
// set_environment_map does with a file's.
void install_environment_map(Scene& scene, EnvironmentMap map, float intensity, float rotation_degrees);

// The map's sampling distribution (luminance x sin(theta) over the cells of its bilinear reconstruction,
// kernels/shading/environment.h) as CDFs.
void build_environment_distribution(EnvironmentMap& map);

// A geodesic sphere (subdivided icosahedron) with smooth normals; `inward` flips its faces so the
// front side (emission, normals) faces the centre.
size_t add_sphere(Scene& scene, const glm::mat4& transform, Vec3 center, float radius, int subdivisions, bool inward,
                  int32_t material);

// A planar quad given by four corners in order; front face by the right-hand rule.
size_t add_quad(Scene& scene, const glm::mat4& transform, const Vec3 corners[4], int32_t material);

// The material used where a mesh names none.
Material default_material();

// Roughness conventions: Phong exponent (MTL Ns) to GGX alpha.
float alpha_from_phong_exponent(float ns);

}  // namespace pkrt
