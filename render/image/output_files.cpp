#include "render/image/output_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "render/error.h"

namespace pkrt {

namespace {

namespace fs = std::filesystem;

// Temporary files being written, for the signal handler: fixed storage, no allocation, and a slot is
// published (atomic flag) only after its name is complete.
constexpr int kSlots = 16;
char g_temp_names[kSlots][4096];
std::atomic<bool> g_temp_used[kSlots];

int register_temp(const std::string& name) {
    for (int i = 0; i < kSlots; ++i) {
        if (g_temp_used[i].load() || name.size() >= sizeof g_temp_names[i]) continue;
        std::memcpy(g_temp_names[i], name.c_str(), name.size() + 1);
        g_temp_used[i].store(true);
        return i;
    }
    throw Error(name + ": too many outputs at once");
}

void unregister_temp(int slot) { g_temp_used[slot].store(false); }

extern "C" void remove_temps_and_exit(int sig) {
    for (int i = 0; i < kSlots; ++i)
        if (g_temp_used[i].load()) ::unlink(g_temp_names[i]);
    ::_exit(128 + sig);
}

// ".NAME.pkrt-PID.tmp" beside the target: the PID tells a later run whether its writer is gone.
std::string temp_prefix(const fs::path& target) { return "." + target.filename().string() + ".pkrt-"; }

std::string temp_name(const fs::path& target) {
    return (target.parent_path() / (temp_prefix(target) + std::to_string(::getpid()) + ".tmp")).string();
}

// The old file's hard link while outputs are renamed into place: ".NAME.pkrt-PID.old.tmp".
std::string backup_name(const fs::path& target) {
    return (target.parent_path() / (temp_prefix(target) + std::to_string(::getpid()) + ".old.tmp")).string();
}

// The PID in a temporary name of `target`: ".NAME.pkrt-PID.tmp", ".NAME.pkrt-PID.old.tmp", or
// ".NAME.tmpPID" as pkrt wrote them before; 0 when `name` is none of them.
pid_t temp_owner(const fs::path& target, const std::string& name) {
    std::string now = temp_prefix(target), before = "." + target.filename().string() + ".tmp";
    std::string pid;
    if (name.rfind(now, 0) == 0 && name.size() > now.size() + 4 && name.substr(name.size() - 4) == ".tmp") {
        pid = name.substr(now.size(), name.size() - now.size() - 4);
        if (pid.size() > 4 && pid.substr(pid.size() - 4) == ".old") pid.resize(pid.size() - 4);
    } else if (name.rfind(before, 0) == 0) {
        pid = name.substr(before.size());
    }
    if (pid.empty() || pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) return 0;
    return static_cast<pid_t>(std::stol(pid));
}

void remove_stale_temps(const fs::path& target) {
    fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    while (dirent* e = ::readdir(d)) {
        pid_t p = temp_owner(target, e->d_name);
        if (p > 0 && p != ::getpid() && ::kill(p, 0) != 0 && errno == ESRCH) ::unlink((dir / e->d_name).c_str());
    }
    ::closedir(d);
}

bool write_all(int fd, const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

std::string output_target(const std::string& path) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
    fs::path t = fs::weakly_canonical(path, ec);
    if (ec) throw Error(path + ": cannot resolve the symbolic link: " + ec.message());
    return t.string();
}

void check_outputs(const std::vector<OutputFile>& outputs, const std::vector<SceneInput>& inputs) {
    std::vector<std::pair<FileIdentity, std::string>> seen;  // existing outputs' identities
    std::vector<std::string> fresh;                          // outputs that do not exist yet, normalised
    for (const auto& o : outputs) {
        std::string who = o.flag.empty() ? o.path : o.flag + " " + o.path;
        std::string target = output_target(o.path);
        FileIdentity id;
        if (file_identity(target, &id)) {
            for (const auto& in : inputs)
                if (in.id == id) throw Error(who + ": is the input " + in.path + "; refusing to overwrite it");
            for (const auto& [sid, flag] : seen)
                if (sid == id) throw Error(who + ": is the same file as " + flag);
            seen.push_back({id, o.flag});
        } else {
            std::error_code ec;
            std::string norm = fs::weakly_canonical(fs::absolute(target, ec), ec).string();
            for (const auto& f : fresh)
                if (f == norm) throw Error(who + ": named twice as an output");
            fresh.push_back(norm);
        }
    }
}

void write_outputs(const std::vector<OutputFile>& outputs, const std::vector<SceneInput>& inputs) {
    check_outputs(outputs, inputs);
    struct Staged {
        std::string tmp, target;
        int slot;
    };
    std::vector<Staged> staged;
    auto discard = [&]() {
        for (const auto& s : staged) {
            ::unlink(s.tmp.c_str());
            unregister_temp(s.slot);
        }
    };
    try {
        for (const auto& o : outputs) {
            fs::path target = output_target(o.path);
            remove_stale_temps(target);
            std::string tmp = temp_name(target);
            int slot = register_temp(tmp);
            staged.push_back({tmp, target.string(), slot});
            int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
            if (fd < 0) throw Error(o.path + ": cannot write: " + std::strerror(errno));
            bool ok = write_all(fd, o.bytes) && ::fsync(fd) == 0;
            int err = errno;
            ok = (::close(fd) == 0) && ok;
            if (!ok) throw Error(o.path + ": write failed: " + std::strerror(err ? err : errno));
        }
    } catch (...) {
        discard();
        throw;
    }
    // All written: rename each into place (atomic per file on POSIX file systems). SIGINT and SIGTERM
    // wait until all are renamed, so a signal never leaves some outputs new and others old.
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &block, &old_mask);
    struct Unblock {
        sigset_t* mask;
        ~Unblock() { ::pthread_sigmask(SIG_SETMASK, mask, nullptr); }
    } unblock{&old_mask};
    // A rename can still fail (the target became a directory, the disk went read-only): the outputs
    // already renamed are then put back as they were, from a hard link to each old file kept until the
    // end, and the new ones that had no old file are removed.
    std::vector<std::string> backups(staged.size());
    auto drop_backups = [&]() {
        for (const auto& b : backups)
            if (!b.empty()) ::unlink(b.c_str());
    };
    for (size_t i = 0; i < staged.size(); ++i) {
        std::string backup = backup_name(staged[i].target);
        if (::link(staged[i].target.c_str(), backup.c_str()) == 0) {
            backups[i] = backup;
        } else if (errno != ENOENT) {
            int err = errno;
            drop_backups();
            discard();
            throw Error(outputs[i].path + ": cannot keep the old file while replacing it: " + std::strerror(err));
        }
    }
    for (size_t i = 0; i < staged.size(); ++i) {
        if (::rename(staged[i].tmp.c_str(), staged[i].target.c_str()) != 0) {
            int err = errno;
            for (size_t j = 0; j < i; ++j) {
                if (backups[j].empty()) ::unlink(staged[j].target.c_str());
                else if (::rename(backups[j].c_str(), staged[j].target.c_str()) == 0) backups[j].clear();
            }
            drop_backups();
            for (size_t j = 0; j < i; ++j) unregister_temp(staged[j].slot);
            staged.erase(staged.begin(), staged.begin() + static_cast<long>(i));
            discard();
            throw Error(outputs[i].path + ": cannot write: " + std::strerror(err));
        }
    }
    for (const auto& s : staged) unregister_temp(s.slot);
    drop_backups();
}

void install_output_signal_handlers() {
    struct sigaction sa {};
    sa.sa_handler = remove_temps_and_exit;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace pkrt
