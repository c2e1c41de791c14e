#include "app/viewer/viewer_outputs.h"

#include "render/image/output_files.h"
#include "render/scene/input_file.h"

namespace pkrt::viewer {

ViewerOutputs::ViewerOutputs(const ViewerOptions& o) : screenshot_(o.screenshot), bookmarks_(o.bookmarks) {
    if (!o.script.empty()) own_.push_back({"--script", o.script});
    own_.push_back({"--bookmarks", o.bookmarks});
    own_.push_back({"--shaders", o.shaders + "/display.vert"});
    own_.push_back({"--shaders", o.shaders + "/display.frag"});
}

std::vector<SceneInput> ViewerOutputs::inputs(const Scene& scene, const std::string& except_flag) const {
    std::vector<SceneInput> all = scene.inputs;
    // Looked up at each write: the bookmarks file comes into being with the first Ctrl+1..9.
    for (const auto& f : own_) {
        FileIdentity id;
        if (f.flag != except_flag && file_identity(f.path, &id)) all.push_back({f.path, id});
    }
    return all;
}

std::vector<SceneInput> ViewerOutputs::inputs(const Scene& scene) const { return inputs(scene, ""); }

void ViewerOutputs::check(const Scene& scene) const {
    // The bookmarks file is read and written by the viewer: an input of every other output, not its own.
    check_outputs({{"--bookmarks", bookmarks_, ""}}, inputs(scene, "--bookmarks"));
    if (!screenshot_.empty()) check_outputs({{"--screenshot", screenshot_, ""}}, inputs(scene));
}

void ViewerOutputs::write(const std::string& flag, const std::string& path, const std::string& bytes,
                          const Scene& scene) const {
    write_outputs({{flag, path, bytes}}, inputs(scene, flag == "--bookmarks" ? flag : ""));
}

}  // namespace pkrt::viewer
