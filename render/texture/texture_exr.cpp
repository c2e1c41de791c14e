// OpenEXR from memory: the library checks its own structure and throws; its image size is capped and
// the data window passed to the caller's check before any pixel memory is allocated.
#include <ImfChannelList.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <Iex.h>

#include <cstring>

#include "render/error.h"
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
        MemoryStream stream(f.bytes, f.path);
        Imf::InputFile file(stream);
        const Imath::Box2i dw = file.header().dataWindow();
        int64_t w = int64_t(dw.max.x) - dw.min.x + 1, h = int64_t(dw.max.y) - dw.min.y + 1;
        check(w > 0 ? uint64_t(w) : 0, h > 0 ? uint64_t(h) : 0);
        if (w <= 0 || h <= 0) throw Error(f.path + ": empty EXR image");
        const Imf::ChannelList& ch = file.header().channels();
        for (const char* name : {"R", "G", "B"})
            if (!ch.findChannel(name))
                throw Error(f.path + ": EXR has no " + name + " channel (pkrt reads RGB or RGBA)");
        out.width = static_cast<int>(w);
        out.height = static_cast<int>(h);
        out.texels.assign(static_cast<size_t>(w) * h, splat(0.0f));
        read_exr_rgb(file, out.texels.data());
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(f.path + ": cannot read EXR: " + e.what());
    }
}

}  // namespace pkrt
