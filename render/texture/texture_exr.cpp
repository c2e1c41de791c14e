// OpenEXR from memory: the library checks its own structure and throws; its image size is capped and
// the data window passed to the caller's check before any pixel memory is allocated.
#include <ImfChannelList.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfFrameBuffer.h>
#include <ImfInputFile.h>
#include <Iex.h>

#include <cstring>

#include "render/error.h"
#include "render/quote.h"
#include "render/texture/exr_rgb.h"
#include "render/texture/texture_decoders.h"

namespace pkrt {

namespace {

// The file's bytes as an OpenEXR stream, so the library never opens the path itself (input_file.h).
class MemoryStream : public Imf::IStream {
public:
    MemoryStream(const std::string& bytes, const std::string& name) : Imf::IStream(name.c_str()), b_(bytes) {}
    bool read(char c[], int n) override {
        if (n < 0 || pos_ > b_.size() || b_.size() - pos_ < static_cast<uint64_t>(n))
            throw IEX_NAMESPACE::InputExc("unexpected end of file");
        std::memcpy(c, b_.data() + pos_, static_cast<size_t>(n));
        pos_ += static_cast<uint64_t>(n);
        return pos_ < b_.size();
    }
    uint64_t tellg() override { return pos_; }
    void seekg(uint64_t pos) override { pos_ = pos; }

private:
    const std::string& b_;
    uint64_t pos_ = 0;
};

// The header's attributes against the file's size, before OpenEXR reads them: the library allocates
// an attribute's claimed size first (a 2 KB file claiming a 2^31-byte attribute cost 2.1 GB before its
// error). Each attribute is a name, a type name (NUL-terminated) and a 32-bit size; a header ends with an
// empty name, and a multi-part file's headers with one more.
void check_exr_header(const std::string& b, const std::string& path) {
    if (b.size() < 8 || !(b[0] == 0x76 && b[1] == 0x2f && b[2] == 0x31 && b[3] == 0x01))
        throw Error(path + ": cannot read EXR: not an OpenEXR file");
    const bool multipart = (uint8_t(b[5]) & 0x10) != 0;  // version field bit 12
    size_t at = 8;
    auto text = [&](const char* what) {
        size_t end = b.find('\0', at);
        if (end == std::string::npos)
            throw Error(path + ": cannot read EXR: truncated header (in an attribute's " + what + ")");
        std::string t = b.substr(at, end - at);
        at = end + 1;
        return t;
    };
    for (;;) {
        std::string name = text("name");
        if (name.empty()) {
            if (!multipart || at >= b.size() || b[at] == '\0') return;
            continue;  // the next part's header
        }
        text("type");
        if (b.size() - at < 4)
            throw Error(path + ": cannot read EXR: truncated header (attribute '" + quote_input(name) + "')");
        uint32_t size = uint32_t(uint8_t(b[at])) | uint32_t(uint8_t(b[at + 1])) << 8 |
                        uint32_t(uint8_t(b[at + 2])) << 16 | uint32_t(uint8_t(b[at + 3])) << 24;
        at += 4;
        if (size > b.size() - at)
            throw Error(path + ": cannot read EXR: attribute '" + quote_input(name) + "' claims " +
                        std::to_string(size) + " bytes, more than the " + std::to_string(b.size() - at) +
                        " left in the file");
        at += size;
    }
}

// Y into every component of `pixels` (width x height of the data window).
void read_exr_y(Imf::InputFile& file, Vec3* pixels) {
    const Imath::Box2i dw = file.header().dataWindow();
    const int64_t w = int64_t(dw.max.x) - dw.min.x + 1;
    char* base = reinterpret_cast<char*>(pixels) - (int64_t(dw.min.x) + int64_t(dw.min.y) * w) * int64_t(sizeof(Vec3));
    Imf::FrameBuffer fb;
    fb.insert("Y", Imf::Slice(Imf::FLOAT, base, sizeof(Vec3), sizeof(Vec3) * static_cast<size_t>(w)));
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    const Imath::Box2i& d = dw;
    const size_t n = static_cast<size_t>(w) * static_cast<size_t>(int64_t(d.max.y) - d.min.y + 1);
    for (size_t i = 0; i < n; ++i) pixels[i] = splat(pixels[i].x);
}

}  // namespace

bool is_openexr(const std::string& b) {
    return b.size() >= 4 && b[0] == 0x76 && b[1] == 0x2f && b[2] == 0x31 && b[3] == 0x01;
}

void decode_openexr(const InputFile& f, const SizeCheck& check, FloatImage& out) {
    try {
        // The header's sanity check then refuses larger data windows before the library allocates its
        // chunk tables for them.
        Imf::Header::setMaxImageSize(kMaxTextureSide, kMaxTextureSide);
        Imf::Header::setMaxTileSize(kMaxTextureSide, kMaxTextureSide);
        check_exr_header(f.bytes, f.path);
        MemoryStream stream(f.bytes, f.path);
        Imf::InputFile file(stream);
        const Imath::Box2i dw = file.header().dataWindow();
        int64_t w = int64_t(dw.max.x) - dw.min.x + 1, h = int64_t(dw.max.y) - dw.min.y + 1;
        check(w > 0 ? uint64_t(w) : 0, h > 0 ? uint64_t(h) : 0);
        if (w <= 0 || h <= 0) throw Error(f.path + ": empty EXR image");
        const Imf::ChannelList& ch = file.header().channels();
        const bool rgb = ch.findChannel("R") && ch.findChannel("G") && ch.findChannel("B");
        // A one-channel (luminance) file, as a bump or roughness map is often saved: grey, Y in R, G and B.
        const bool grey =
            !rgb && ch.findChannel("Y") && !ch.findChannel("R") && !ch.findChannel("G") && !ch.findChannel("B");
        if (!rgb && !grey)
            throw Error(f.path +
                        ": EXR has neither R, G and B channels nor a Y channel alone (pkrt reads RGB, "
                        "RGBA or Y)");
        out.width = static_cast<int>(w);
        out.height = static_cast<int>(h);
        out.luminance_only = grey;
        out.texels.assign(static_cast<size_t>(w) * h, splat(0.0f));
        if (rgb) read_exr_rgb(file, out.texels.data());
        else read_exr_y(file, out.texels.data());
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        // The library's words may quote the file's own bytes (an attribute's forged name): at most 80 of them.
        throw Error(f.path + ": cannot read EXR: " + quote_input(e.what()));
    }
}

}  // namespace pkrt
