// OpenEXR from memory: the library checks its own structure and throws; its image size is capped and
// the data window passed to the caller's check before any pixel memory is allocated.
#include <ImfChannelList.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfFrameBuffer.h>
#include <ImfInputFile.h>

#include "render/error.h"
#include "render/image/exr_input.h"
#include "render/quote.h"
#include "render/texture/exr_rgb.h"
#include "render/texture/texture_decoders.h"

namespace pkrt {

namespace {

// Y into every component of `pixels` (width x height of the data window).
void read_exr_y(Imf::InputFile& file, Vec3* pixels) {
    const Imath::Box2i dw = file.header().dataWindow();
    const int64_t w = int64_t(dw.max.x) - dw.min.x + 1;
    char* base = exr_slice_base(pixels, dw, uint64_t(w), sizeof(Vec3));
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
        ExrMemoryStream stream(f.bytes, f.path);
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
