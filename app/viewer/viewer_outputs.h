// Every file the viewer writes (screenshots of P, Shift+P, --frames and scripts; camera bookmarks) is
// written here, under pkrt render's rules (render/image/output_files.h): never over a file this run
// reads (the open scene's files and --env map, the script, the bookmarks, the shaders), never over a
// device, FIFO or socket, whole or not at all.
#pragma once

#include <string>
#include <vector>

#include "app/viewer/options.h"
#include "render/scene/scene.h"

namespace pkrt::viewer {

class ViewerOutputs {
public:
    explicit ViewerOutputs(const ViewerOptions& options);

    // What no output may replace now: `scene`'s inputs and the viewer's own files that exist.
    std::vector<SceneInput> inputs(const Scene& scene) const;
    // Before the window opens: --screenshot and --bookmarks against the inputs and each other, so that a
    // name that could never be written fails at once, as pkrt render's outputs do.
    void check(const Scene& scene) const;
    // `bytes` to `path` (the message names `flag` where it is not empty). Throws Error.
    void write(const std::string& flag, const std::string& path, const std::string& bytes, const Scene& scene) const;

private:
    struct Own {
        std::string flag, path;
    };
    std::vector<SceneInput> inputs(const Scene& scene, const std::string& except_flag) const;
    std::vector<Own> own_;  // the viewer's own inputs: --script, --bookmarks, the shaders
    std::string screenshot_, bookmarks_;
};

}  // namespace pkrt::viewer
