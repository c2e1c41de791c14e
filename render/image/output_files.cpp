#include "render/image/output_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
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

// One signal policy for every thread that writes outputs: SIGINT or SIGTERM removes the temporary files
// and exits, except while some thread renames a set of outputs into place (a frame's PNG and EXR), which
// it completes first, so that no set is left half new. The thread that ends the last such set exits for
// the signal. Blocking the signal in the renaming thread alone would not do: the kernel hands it to any
// other thread, which would exit mid-set.
std::atomic<int> g_renaming{0};     // threads inside a set of renames
std::atomic<int> g_signal_seen{0};  // the first SIGINT or SIGTERM, 0 for none

[[noreturn]] void remove_temps_and_exit_now() {
    for (int i = 0; i < kSlots; ++i)
        if (g_temp_used[i].load()) ::unlink(g_temp_names[i]);
    ::_exit(128 + g_signal_seen.load());
}

extern "C" void remove_temps_and_exit(int sig) {
    int none = 0;
    g_signal_seen.compare_exchange_strong(none, sig);
    // Sequentially consistent with begin_renames: either the renamer sees the signal, or this sees it.
    if (g_renaming.load() == 0) remove_temps_and_exit_now();
}

void end_renames() {
    if (g_renaming.fetch_sub(1) == 1 && g_signal_seen.load() != 0) remove_temps_and_exit_now();
}

void begin_renames() {
    g_renaming.fetch_add(1);
    if (g_signal_seen.load() == 0) return;
    // A signal came first: rename nothing, and wait for the thread that exits for it.
    end_renames();
    for (;;) ::pause();
}

struct RenameSet {
    RenameSet() { begin_renames(); }
    ~RenameSet() { end_renames(); }
    RenameSet(const RenameSet&) = delete;
    RenameSet& operator=(const RenameSet&) = delete;
};

// ".NAME.pkrt-" beside the target, the PID and ".tmp" or ".old.tmp" after it: the PID tells a later run
// whether its writer is gone. A name too long for that (NAME_MAX is 255 bytes; the additions take up to
// 25) keeps its first bytes and a hash of the whole, so that any legal name has a temporary name.
std::string temp_prefix(const fs::path& target) {
    std::string name = target.filename().string();
    constexpr size_t kMaxPrefix = 255 - 10 - 8;  // PIDs of up to 10 digits, ".old.tmp"
    if (name.size() + 7 <= kMaxPrefix) return "." + name + ".pkrt-";
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return "." + name.substr(0, kMaxPrefix - 24) + "." + hex + ".pkrt-";
}

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

// An output replaces only what is its own kind: a regular file. The rename that puts it in place would
// replace a device node, a FIFO or a socket as readily (as root, `-o /dev/full` deleted the device), so
// anything else that exists at the target is refused, before the render and again before the rename.
void check_replaceable(const std::string& who, const std::string& target) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return;
        throw Error(who + ": cannot stat: " + std::strerror(errno));
    }
    if (S_ISREG(st.st_mode)) return;
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    throw Error(who + ": is " + std::string(kind) + ", not a regular file; refusing to replace it");
}

std::string output_name(const OutputFile& o) { return o.flag.empty() ? o.path : o.flag + " " + o.path; }

}  // namespace

void check_output_kind(const std::string& who, const std::string& path) { check_replaceable(who, output_target(path)); }

std::string output_target(const std::string& path) {
    // Link by link, not weakly_canonical: that stops at a dangling link and would have the link replaced.
    std::string p = path;
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
        std::error_code ec;
        fs::path to = fs::read_symlink(p, ec);
        if (ec) throw Error(path + ": cannot resolve the symbolic link: " + ec.message());
        p = to.is_absolute() ? to.string() : (fs::path(p).parent_path() / to).string();
    }
    throw Error(path + ": symlink loop");
}

void check_outputs(const std::vector<OutputFile>& outputs, const std::vector<SceneInput>& inputs) {
    std::vector<std::pair<FileIdentity, std::string>> seen;  // existing outputs' identities
    std::vector<std::string> fresh;                          // outputs that do not exist yet, normalised
    for (const auto& o : outputs) {
        std::string who = output_name(o);
        std::string target = output_target(o.path);
        check_replaceable(who, target);
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
    // The targets again, now that the long part is over: one may have been made a device or a FIFO since.
    try {
        for (size_t i = 0; i < staged.size(); ++i) check_replaceable(output_name(outputs[i]), staged[i].target);
    } catch (...) {
        discard();
        throw;
    }
    // All written: rename each into place (atomic per file on POSIX file systems). SIGINT and SIGTERM
    // wait until all are renamed, so a signal never leaves some outputs new and others old.
    RenameSet renaming;
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
    sa.sa_flags = SA_RESTART;  // the handler returns while renames are under way
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
}

namespace {
volatile std::sig_atomic_t g_checkpoint_requested = 0;
void request_checkpoint(int) { g_checkpoint_requested = 1; }
}  // namespace

void install_checkpoint_signal_handler() {
    struct sigaction sa {};
    sa.sa_handler = request_checkpoint;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGUSR1, &sa, nullptr);
}

bool take_checkpoint_request() {
    if (!g_checkpoint_requested) return false;
    g_checkpoint_requested = 0;
    return true;
}

}  // namespace pkrt
