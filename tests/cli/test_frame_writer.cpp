// The sequence's frame writer (app/frame_writer.h): every frame handed over is written, at most its
// queue's worth wait at once, and a failing frame fails the sequence.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

#include "app/frame_writer.h"

using namespace pkrt;

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
