// libFuzzer target: a keyframe file of `pkrt render --frames N --camera-path keys.json`, parsed against a
// fixed scene camera, then interpolated at the frames of a short and a long sequence.
#include <cmath>

#include "render/scene/camera_path.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string path = pkrt_fuzz::write_file("keys.json", reinterpret_cast<const char*>(data), size);
    pkrt::CameraSpec scene_camera;
    scene_camera.eye = {0.0f, 1.0f, 4.0f};
    scene_camera.look_at = {0.0f, 1.0f, 0.0f};
    try {
        pkrt::CameraPath p = pkrt::parse_camera_path(path, scene_camera);
        for (int frames : {2, 97})
            for (int i = 0; i < frames; ++i) {
                pkrt::CameraSpec c = pkrt::camera_at(p, i, frames);
                // Every frame's camera is a proper view: the keys were checked, the spline keeps the nearer key.
                if (!std::isfinite(c.eye.x + c.eye.y + c.eye.z + c.vfov_degrees)) std::abort();
            }
    } catch (const pkrt::Error&) {
    } catch (const std::bad_alloc&) {
        std::abort();
    }
    return 0;
}
