// Outputs are all-or-nothing: every file a command writes is encoded in memory, checked against every
// input (by device and inode, so a hard link or ../ path to the scene is caught), written to a sibling
// temporary file and renamed into place only when all of them were written. A SIGINT or SIGTERM meanwhile
// removes the temporary files and exits 130 or 143, on whichever thread it arrives, but only once no
// thread is renaming a set of outputs into place (so a sequence's frame is never left half new); a temporary file left by a process that no longer
// exists (killed by SIGKILL, a power cut) is removed by the next write of the same output.
// An output that is a symbolic link is written through: the link's target is replaced (or created, for a
// dangling link), the link kept. Temporary names fit beside any name of up to 255 bytes.
#pragma once

#include <string>
#include <vector>

#include "render/scene/scene.h"

namespace pkrt {

struct OutputFile {
    std::string flag;  // "-o", "--hdr", ... for messages
    std::string path;
    std::string bytes;
};

// Throws Error when an output is one of the inputs or two outputs are the same file. Cheap: call it
// before a long render as well as at the end.
void check_outputs(const std::vector<OutputFile>& outputs, const std::vector<SceneInput>& inputs);

// check_outputs, then writes all or none. Throws Error.
void write_outputs(const std::vector<OutputFile>& outputs, const std::vector<SceneInput>& inputs);

// SIGINT and SIGTERM remove the temporary files being written, then exit 128 + signal.
void install_output_signal_handlers();
// SIGUSR1 asks a render for a checkpoint (its outputs written now) and does not stop it: once installed,
// take_checkpoint_request() says whether one came since it was last asked.
void install_checkpoint_signal_handler();
bool take_checkpoint_request();

// Throws Error "<who>: is a character device, not a regular file; ..." when `path` (or its symlink's
// target) exists and is not a regular file: the early check of a flag, before anything is loaded.
void check_output_kind(const std::string& who, const std::string& path);

// The file a write to `path` replaces: a symlink's final target, else the path itself.
std::string output_target(const std::string& path);

}  // namespace pkrt
