// OpenEXR files read from their bytes: read_input_file (render/scene/input_file.h) opens them, so the
// library never opens a path itself, and each header attribute is checked before OpenEXR reads it: its
// size against the bytes left in the file, and against what the library will read for its type (the
// library allocates an attribute's claimed size first: an 856-byte file made it allocate a 1.9 GB string).
#pragma once

#include <ImathBox.h>
#include <ImfIO.h>
#include <ImfInputFile.h>

#include <memory>
#include <string>

#include "render/error.h"
#include "render/quote.h"
#include "render/scene/input_file.h"

namespace pkrt {

// Throws Error "<path>: cannot read EXR: ..." unless the bytes start with OpenEXR's magic number and
// every attribute of every header fits in the file and holds what OpenEXR reads for its type.
void check_exr_header(const std::string& bytes, const std::string& path);

// Where an OpenEXR slice over `first` (rows of `width` elements of `element` bytes from the data window's
// corner) must start: the address that pixel (0, 0) would have. Computed in unsigned integers, since for
// a window far from the origin it lies outside any object, where pointer arithmetic is undefined (UBSan
// on fuzz_exr: an index expression overflowed).
char* exr_slice_base(void* first, const Imath::Box2i& window, uint64_t width, uint64_t element);

// An InputFile's bytes as an OpenEXR stream.
class ExrMemoryStream : public Imf::IStream {
public:
    ExrMemoryStream(const std::string& bytes, const std::string& name);
    bool read(char c[], int n) override;
    uint64_t tellg() override { return pos_; }
    void seekg(uint64_t pos) override { pos_ = pos; }

private:
    const std::string& b_;
    uint64_t pos_ = 0;
};

// An EXR opened for reading: its bytes, their checked header, and OpenEXR's reader over them. OpenEXR's
// own exceptions pass through (callers add the path).
class ExrInput {
public:
    explicit ExrInput(const std::string& path);
    // Over bytes already read (--resume reads its file once and takes every layer from those bytes).
    explicit ExrInput(InputFile in);
    Imf::InputFile& file() { return *file_; }
    const std::string& path() const { return in_.path; }

private:
    InputFile in_;
    std::unique_ptr<ExrMemoryStream> stream_;
    std::unique_ptr<Imf::InputFile> file_;
};

// read(exr) over PATH opened as an ExrInput; pkrt's own errors (no such file, a bad header) name the
// file already, and OpenEXR's become Error "<path>: cannot read EXR: <why>".
template <class Read> auto read_exr_file(const std::string& path, Read&& read) {
    std::unique_ptr<ExrInput> exr;
    try {
        exr = std::make_unique<ExrInput>(path);
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(path + ": cannot read EXR: " + quote_input(e.what()));
    }
    return read(*exr);
}

}  // namespace pkrt
