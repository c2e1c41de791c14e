// The sequence's frame writer (app/frame_writer.h): every frame handed over is written, at most its
// queue's worth wait at once, a failing frame fails the sequence, and a signal while a writer renames a
// frame's files into place leaves that frame whole.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

#include "app/frame_writer.h"
#include "render/image/output_files.h"
#include "tests/test_util.h"

using namespace pkrt;

// rename() as a network file system's: slow. The executable's definition takes the place of libc's for
// output_files.cpp (linked in statically), so a signal can be sent while a set of renames is under way.
namespace {
std::atomic<int> g_rename_delay_ms{0};
int g_rename_started_fd = -1;  // a byte is written here when a slowed rename begins
}  // namespace

extern "C" int rename(const char* from, const char* to) {
    if (int ms = g_rename_delay_ms.load()) {
        if (g_rename_started_fd >= 0 && ::write(g_rename_started_fd, "r", 1) < 0) _exit(3);
        ::usleep(static_cast<useconds_t>(ms) * 1000);
    }
    return static_cast<int>(::syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 0));
}

TEST(FrameWriter, WritesEveryFrameOnWorkerThreads) {
    std::atomic<int> done{0};
    std::mutex m;
    std::set<std::thread::id> threads;
    {
        FrameWriter w(3);
        for (int i = 0; i < 40; ++i)
            w.add([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
                std::lock_guard<std::mutex> lock(m);
                threads.insert(std::this_thread::get_id());
                ++done;
            });
        w.finish();
        EXPECT_EQ(done.load(), 40);
    }
    EXPECT_GT(threads.size(), 1u) << "frames are written in parallel";
    EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u) << "not on the render loop's thread";
}

TEST(FrameWriter, QueueIsBounded) {
    std::atomic<int> started{0}, handed{0};
    std::atomic<bool> release{false};
    FrameWriter w(2);  // 2 writing + 4 queued
    std::thread producer([&] {
        for (int i = 0; i < 12; ++i) {
            w.add([&] {
                ++started;
                while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
            ++handed;
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(handed.load(), 6) << "two frames being written and four queued; the seventh waits";
    release = true;
    producer.join();
    w.finish();
    EXPECT_EQ(started.load(), 12);
}

TEST(FrameWriter, AFailedFrameFailsTheSequence) {
    FrameWriter w(2);
    w.add([] { throw std::runtime_error("out_0003.png: disk full"); });
    try {
        w.finish();
        FAIL() << "finish() must rethrow the failure";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "out_0003.png: disk full");
    }
    EXPECT_THROW(w.add([] {}), std::runtime_error) << "no more frames are taken after a failure";
}

// A SIGINT that arrives while a writer thread renames a frame's PNG and EXR into place waits for both: the
// frame ends all new, with no temporary file or kept old file, and the process exits 130. The signal goes
// to the main thread (which does not block it), as it would in pkrt while the render loop runs.
TEST(FrameWriter, SignalDuringAFramesRenamesLeavesItWhole) {
    pkrt_test::TempDir dir;
    std::string png = dir.write("f_0.png", "old png"), exr = dir.write("f_0.exr", "old exr");
    int started[2];
    ASSERT_EQ(::pipe(started), 0);
    pid_t child = ::fork();
    if (child == 0) {
        ::close(started[0]);
        g_rename_started_fd = started[1];
        install_output_signal_handlers();
        g_rename_delay_ms = 300;
        FrameWriter w(1);
        w.add([&] { write_outputs({{"-o", png, "new png"}, {"--hdr", exr, "new exr"}}, {}); });
        w.finish();
        for (;;) ::pause();  // the signal ends this process; no frame is left to write
    }
    ::close(started[1]);
    char byte = 0;
    ASSERT_EQ(::read(started[0], &byte, 1), 1) << "the writer began renaming";
    ::kill(child, SIGINT);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ::close(started[0]);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_EQ(pkrt_test::read_text(png), "new png");
    EXPECT_EQ(pkrt_test::read_text(exr), "new exr") << "the frame's second file was renamed too";
    for (const auto& e : dir.entries()) EXPECT_TRUE(e == "f_0.png" || e == "f_0.exr") << "left behind: " << e;
}
