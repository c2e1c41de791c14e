// Decoders within their promise (issue 50, class 3): what `pkrt render` says it needs ("at most ... of host
// memory") bounds what it takes, measured with getrusage on the process, for the decoders that hold a
// buffer of their own (stb_image's TGA and BMP: its RGBA and pkrt's copy, and the file's bytes meanwhile);
// before, a TGA or BMP peaked at 2-3x the figure. Out of memory in a decoder is pkrt's words naming the
// file, not the decoder's own ("outofmem").
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>

#include "tests/test_util.h"

using namespace pkrt_test;

namespace {

struct Measured {
    int code = -1;
    uint64_t max_rss = 0;  // bytes
    std::string err;
};

// pkrt render of `scene` in `dir`, one thread, measured by wait4's rusage of that one child.
Measured render(const TempDir& dir, const std::string& scene) {
    const std::string err_path = dir.file("err.txt");
    pid_t pid = ::fork();
    if (pid == 0) {
        if (::chdir(dir.path().c_str()) != 0) ::_exit(127);
        int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, 2);
        ::execl(PKRT_BINARY, PKRT_BINARY, "render", scene.c_str(), "--backend", "cpu", "--res", "8x8", "--spp", "1",
                "-j", "1", "-o", "out.png", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    Measured r;
    int status = 0;
    struct rusage ru {};
    ::wait4(pid, &status, 0, &ru);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.max_rss = static_cast<uint64_t>(ru.ru_maxrss) * 1024;
    r.err = read_text(err_path);
    return r;
}

// The bytes of "at most 1.5 GiB of host memory" in pkrt's report.
double announced(const std::string& err) {
    std::smatch m;
    if (!std::regex_search(err, m, std::regex(R"(at most ([0-9.]+) (B|KiB|MiB|GiB) of host memory)"))) return -1;
    const std::string unit = m[2];
    double scale = unit == "B" ? 1 : unit == "KiB" ? 1024.0 : unit == "MiB" ? 1048576.0 : 1073741824.0;
    return std::stod(m[1]) * scale;
}

std::string u16(unsigned v) { return std::string{char(v & 0xFF), char(v >> 8)}; }
std::string u32(uint32_t v) { return u16(v & 0xFFFF) + u16(v >> 16); }

// A run-length TGA of one colour: a few hundred KB that decode to side x side texels.
std::string rle_tga(unsigned side, unsigned bits) {
    std::string b =
        std::string("\0\0\x0a", 3) + std::string(9, '\0') + u16(side) + u16(side) + std::string{char(bits), char(0x20)};
    std::string packet = std::string(1, char(0xFF)) + std::string("\x10\x80\xf0\xff", bits / 8);
    for (unsigned i = 0; i < side * side / 128; ++i) b += packet;
    return b;
}

// An uncompressed bottom-up BMP of `bits` 24 or 8 (with a grey palette).
std::string bmp(unsigned side, unsigned bits) {
    const uint32_t row = (side * bits / 8 + 3) / 4 * 4, pal = bits == 8 ? 1024 : 0, off = 14 + 40 + pal;
    std::string b = "BM" + u32(off + row * side) + u32(0) + u32(off);
    b += u32(40) + u32(side) + u32(side) + u16(1) + u16(bits) + u32(0) + u32(row * side) + u32(0) + u32(0) + u32(0) +
         u32(0);
    for (uint32_t i = 0; i < pal / 4; ++i) b += std::string{char(i), char(i), char(i), 0};
    b += std::string(row * side, '\x40');
    return b;
}

void textured(const TempDir& dir, const std::string& scene, const std::string& texture) {
    dir.write(scene, R"({"camera": {"eye": [0.5, 0.5, 2], "look_at": [0.5, 0.5, 0]},
        "materials": {"t": {"texture": ")" +
                         texture + R"("}},
        "meshes": [{"quad": [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], "material": "t"}]})");
}

}  // namespace

TEST(DecodeMemory, PeakIsWithinWhatPkrtAnnounces) {
    TempDir dir;
    dir.write("small.tga", rle_tga(128, 24));
    textured(dir, "small.json", "small.tga");
    const Measured base = render(dir, "small.json");
    ASSERT_EQ(base.code, 0) << base.err;
    ASSERT_GT(announced(base.err), 0) << base.err;
    struct Case {
        std::string name, bytes;
    };
    const std::vector<Case> cases = {{"rle24.tga", rle_tga(4096, 24)},
                                     {"rle32.tga", rle_tga(4096, 32)},
                                     {"rgb24.bmp", bmp(4096, 24)},
                                     {"grey8.bmp", bmp(4096, 8)}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        dir.write(c.name, c.bytes);
        textured(dir, "big.json", c.name);
        const Measured big = render(dir, "big.json");
        ASSERT_EQ(big.code, 0) << big.err;
        // What the texture costs, measured and announced, each beyond the same scene with a tiny texture.
        const double took = double(big.max_rss) - double(base.max_rss);
        const double said = announced(big.err) - announced(base.err);
        EXPECT_GT(took, 60.0 * 1048576) << "the 64 MiB of texels were not measured";
        EXPECT_LE(took, said * 1.02 + 4.0 * 1048576)
            << "took " << took / 1048576 << " MiB, announced " << said / 1048576 << " MiB";
        std::filesystem::remove(dir.file(c.name));
    }
}

TEST(DecodeMemory, OutOfMemoryIsPkrtsWordsNamingTheFile) {
    TempDir dir;
    dir.write("huge.tga", rle_tga(16384, 24));  // 8 MB that decode to 1 GiB of texels, within --max-texels
    textured(dir, "huge.json", "huge.tga");
    // 1 GB of address space: pkrt starts, stb_image's 1 GiB buffer cannot be had.
    RunResult r = run_in("ulimit -v 1000000 && " + shell_quote(PKRT_BINARY) +
                             " render huge.json --backend cpu --res 8x8 --spp 1 -j 1 -q -o out.png",
                         dir.path().string());
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("pkrt: error: huge.tga: cannot read TGA: not enough memory to decode this texture"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("outofmem"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.file("out.png")));
}
