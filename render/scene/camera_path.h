// Cameras for image sequences (`pkrt render --frames N --camera-path ...`): a turntable orbit around
// the scene camera's look-at point, or keyframes from a JSON file, interpolated.
//
//   orbit[:DEGREES]   frame i of N at DEGREES * i / N about the up axis (default 360: a seamless loop)
//   keys.json         {"keys": [{"time": 0, "eye": [..], "look_at": [..], "up": [..], "fov": 40}, ...]}
//                     times strictly increasing in [0, 1]; frame i of N at time i / (N - 1); eye and
//                     look_at follow a Catmull-Rom spline through the keys, up and fov linearly. A key
//                     may leave out up and fov (the scene camera's).
#pragma once

#include <string>
#include <vector>

#include "render/scene/scene.h"

namespace pkrt {

struct CameraKey {
    float time = 0.0f;
    CameraSpec camera;
};

struct CameraPath {
    CameraSpec base;  // the scene's camera (orbit centre and the keys' defaults)
    bool orbit = true;
    float degrees = 360.0f;
    std::vector<CameraKey> keys;
    std::vector<SceneInput> inputs;  // the key file: an input no output may replace
};

// Throws Error("--camera-path SPEC: ...") or, for a key file, Error("FILE: keys[i].eye: ...").
CameraPath parse_camera_path(const std::string& spec, const CameraSpec& scene_camera);

// The camera of frame `frame` of `frames`.
CameraSpec camera_at(const CameraPath& path, int frame, int frames);

}  // namespace pkrt
