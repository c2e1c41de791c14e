#include "render/image/exr_input.h"

#include <Iex.h>

#include <cstring>
#include <utility>

#include "render/error.h"
#include "render/quote.h"
#include "render/texture/texture_decoders.h"

namespace pkrt {

namespace {

// The bytes OpenEXR reads for a value of these types whatever the attribute's size field says (its
// readers of fixed-size types read their size, and the channel list reads to its empty name): a size
// field that disagrees would leave the library reading from another place than the one checked.
int fixed_size(const std::string& type) {
    static const std::pair<const char*, int> kSizes[] = {
        {"box2i", 16}, {"box2f", 16},   {"compression", 1}, {"lineOrder", 1}, {"float", 4},    {"double", 8},
        {"int", 4},    {"v2i", 8},      {"v2f", 8},         {"v2d", 16},      {"v3i", 12},     {"v3f", 12},
        {"v3d", 24},   {"m33f", 36},    {"m33d", 72},       {"m44f", 64},     {"m44d", 128},   {"chromaticities", 32},
        {"envmap", 1}, {"keycode", 28}, {"timecode", 8},    {"rational", 8},  {"tiledesc", 9}, {"deepImageState", 1}};
    for (const auto& [name, size] : kSizes)
        if (type == name) return size;
    return -1;
}

// The bytes of a channel list as OpenEXR reads them: entries of a name and 16 bytes, to an empty name.
uint64_t channel_list_size(const std::string& b, size_t at, size_t end) {
    size_t p = at;
    for (;;) {
        if (p >= end) return UINT64_MAX;
        size_t nul = b.find('\0', p);
        if (nul == std::string::npos || nul >= end) return UINT64_MAX;
        if (nul == p) return nul + 1 - at;
        p = nul + 1 + 16;
    }
}

}  // namespace

// Each attribute is a name, a type name (NUL-terminated), a 32-bit size and its value; a header ends
// with an empty name, and a multi-part file's headers with one more. Every value must hold what
// OpenEXR will read for its type, so that the library reads the same bytes as this walk.
void check_exr_header(const std::string& b, const std::string& path) {
    if (b.size() < 8 || !is_openexr(b)) throw Error(path + ": cannot read EXR: not an OpenEXR file");
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
        std::string type = text("type");
        if (b.size() - at < 4)
            throw Error(path + ": cannot read EXR: truncated header (attribute '" + quote_input(name) + "')");
        uint32_t size = le32(b, at);
        at += 4;
        if (size > b.size() - at)
            throw Error(path + ": cannot read EXR: attribute '" + quote_input(name) + "' claims " +
                        std::to_string(size) + " bytes, more than the " + std::to_string(b.size() - at) +
                        " left in the file");
        uint64_t reads = size;  // what the library's reader of this type takes
        if (int fixed = fixed_size(type); fixed >= 0) reads = static_cast<uint64_t>(fixed);
        else if (type == "chlist") reads = channel_list_size(b, at, at + size);
        else if (type == "preview")
            reads = size < 8 ? UINT64_MAX : 8 + 4 * uint64_t(le32(b, at)) * uint64_t(le32(b, at + 4));
        if (reads != size)
            throw Error(path + ": cannot read EXR: attribute '" + quote_input(name) + "' of type '" +
                        quote_input(type) + "' holds " + std::to_string(size) +
                        " bytes, not what a value of its type takes");
        at += size;
    }
}

char* exr_slice_base(void* first, const Imath::Box2i& window, uint64_t width, uint64_t element) {
    const uint64_t corner = uint64_t(int64_t(window.min.x)) + uint64_t(int64_t(window.min.y)) * width;
    return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(first) - uintptr_t(corner * element));
}

ExrMemoryStream::ExrMemoryStream(const std::string& bytes, const std::string& name)
    : Imf::IStream(name.c_str()), b_(bytes) {}

bool ExrMemoryStream::read(char c[], int n) {
    if (n < 0 || pos_ > b_.size() || b_.size() - pos_ < static_cast<uint64_t>(n))
        throw IEX_NAMESPACE::InputExc("unexpected end of file");
    std::memcpy(c, b_.data() + pos_, static_cast<size_t>(n));
    pos_ += static_cast<uint64_t>(n);
    return pos_ < b_.size();
}

ExrInput::ExrInput(const std::string& path) : ExrInput(read_input_file(path)) {}

ExrInput::ExrInput(InputFile in) : in_(std::move(in)) {
    check_exr_header(in_.bytes, in_.path);
    stream_ = std::make_unique<ExrMemoryStream>(in_.bytes, in_.path);
    file_ = std::make_unique<Imf::InputFile>(*stream_);
}

}  // namespace pkrt
