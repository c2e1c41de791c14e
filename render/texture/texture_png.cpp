// PNG through libpng's low-level API. Its simplified API (used before) takes 16-bit samples as linear
// and re-encodes them to sRGB, so a 16-bit texture came out up to 7x off the same image at 8 bits; and
// it applies gAMA and colour profiles. Here the stored code values are the texture, as in every renderer:
// gAMA, cHRM, iCCP and sRGB are discarded unread, 16-bit samples are scaled to 8 bits with rounding,
// grey, palettes (with tRNS) and interlacing are expanded to RGBA8.
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <png.h>

#include "render/error.h"
#include "render/texture/texture_decoders.h"

namespace pkrt {

namespace {

// The largest ancillary chunk libpng may allocate (a zTXt or iCCP bomb); image data is streamed.
constexpr png_alloc_size_t kMaxPngChunk = png_alloc_size_t(8) << 20;

struct PngReader {
    const unsigned char* data = nullptr;
    size_t size = 0, pos = 0;
    char message[256] = "";
    png_structp png = nullptr;
    png_infop info = nullptr;
    ~PngReader() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};

void png_fail(png_structp png, png_const_charp msg) {
    auto* r = static_cast<PngReader*>(png_get_error_ptr(png));
    std::snprintf(r->message, sizeof r->message, "%s", msg);
    png_longjmp(png, 1);
}

void png_warn(png_structp, png_const_charp) {}  // recoverable: a bad ancillary chunk, which is skipped

void png_read_bytes(png_structp png, png_bytep out, size_t n) {
    auto* r = static_cast<PngReader*>(png_get_io_ptr(png));
    if (n > r->size - r->pos) png_error(png, "unexpected end of file (truncated)");
    std::memcpy(out, r->data + r->pos, n);
    r->pos += n;
}

// The functions with a setjmp hold no object with a destructor: libpng's errors longjmp back to them.
bool png_read_header(PngReader& r, png_uint_32* w, png_uint_32* h) {
    if (setjmp(png_jmpbuf(r.png))) return false;
    png_set_user_limits(r.png, kMaxTextureSide, kMaxTextureSide);
    png_set_chunk_malloc_max(r.png, kMaxPngChunk);
    png_set_chunk_cache_max(r.png, 1000);
    // Colour-space chunks are not applied; unknown chunks are not kept. Neither is even parsed.
    static const png_byte kIgnored[] = "gAMA\0cHRM\0iCCP\0sRGB\0sBIT\0bKGD\0hIST\0sPLT\0eXIf\0tEXt\0zTXt\0iTXt";
    png_set_keep_unknown_chunks(r.png, PNG_HANDLE_CHUNK_NEVER, nullptr, 0);
    png_set_keep_unknown_chunks(r.png, PNG_HANDLE_CHUNK_NEVER, kIgnored, static_cast<int>(sizeof kIgnored / 5));
    png_read_info(r.png, r.info);
    int color = png_get_color_type(r.png, r.info);
    png_set_expand(r.png);  // palette to RGB, grey below 8 bits to 8, tRNS to alpha
    png_set_scale_16(r.png);
    if (!(color & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(r.png);
    if (!(color & PNG_COLOR_MASK_ALPHA) && !png_get_valid(r.png, r.info, PNG_INFO_tRNS))
        png_set_add_alpha(r.png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(r.png);
    png_read_update_info(r.png, r.info);
    *w = png_get_image_width(r.png, r.info);
    *h = png_get_image_height(r.png, r.info);
    if (png_get_rowbytes(r.png, r.info) != size_t(*w) * 4) png_error(r.png, "unexpected row size after conversion");
    return true;
}

bool png_read_pixels(PngReader& r, png_bytep* rows) {
    if (setjmp(png_jmpbuf(r.png))) return false;
    png_read_image(r.png, rows);
    png_read_end(r.png, nullptr);
    return true;
}

}  // namespace

bool is_png(const std::string& b) {
    return b.size() >= 8 && png_sig_cmp(reinterpret_cast<png_const_bytep>(b.data()), 0, 8) == 0;
}

void decode_png(const InputFile& f, const SizeCheck& check, TextureImage& t) {
    PngReader r;
    r.data = reinterpret_cast<const unsigned char*>(f.bytes.data());
    r.size = f.bytes.size();
    r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, png_fail, png_warn);
    if (r.png) r.info = png_create_info_struct(r.png);
    if (!r.png || !r.info) throw Error(f.path + ": cannot read PNG: out of memory");
    png_set_read_fn(r.png, &r, png_read_bytes);
    png_uint_32 w = 0, h = 0;
    if (!png_read_header(r, &w, &h)) throw Error(f.path + ": cannot read PNG: " + r.message);
    check(w, h);
    // Rows of at least 1 bit a pixel plus a filter byte, deflated at most 1032:1 (zlib's limit).
    check_plausible(f, w, h, uint64_t(h) * (1 + (uint64_t(w) + 7) / 8) / 1032);
    t.width = static_cast<int>(w);
    t.height = static_cast<int>(h);
    t.texels.resize(static_cast<size_t>(w) * h);
    std::vector<png_bytep> rows(h);
    for (png_uint_32 y = 0; y < h; ++y) rows[y] = reinterpret_cast<png_bytep>(t.texels.data() + size_t(y) * w);
    if (!png_read_pixels(r, rows.data())) throw Error(f.path + ": cannot read PNG: " + r.message);
}

}  // namespace pkrt
