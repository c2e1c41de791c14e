// Camera bookmarks: nine slots, saved with Ctrl+1..9 and recalled with 1..9, kept in a JSON file whose
// entries are cameras as a scene file writes them ({"eye", "look_at", "up", "fov", "aperture",
// "focus_distance"}), so one can be pasted into a scene's "camera":
//   {"bookmarks": {"1": {"eye": [..], "look_at": [..], "up": [..], "fov": 40}, "3": {...}}}
#pragma once

#include <array>
#include <optional>
#include <string>

#include "render/scene/scene.h"

namespace pkrt::viewer {

class Bookmarks {
public:
    static constexpr int kSlots = 9;

    // Reads `path` where it exists (an Error names the file and the problem); a missing file is empty.
    void load(const std::string& path);
    // Slot 1..9; returns the file's new text, for the caller to write at once (app/viewer/viewer_outputs.h).
    std::string save(int slot, const CameraSpec& camera);
    const std::optional<CameraSpec>& get(int slot) const { return slots_.at(static_cast<size_t>(slot - 1)); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
    std::array<std::optional<CameraSpec>, kSlots> slots_;
};

}  // namespace pkrt::viewer
