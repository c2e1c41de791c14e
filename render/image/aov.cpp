#include "render/image/aov.h"
#include "render/image/exr_input.h"
#include "render/quote.h"

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <ImfOutputFile.h>
#include <ImfStdIO.h>
#include <ImfStringAttribute.h>

#include <algorithm>
#include <sstream>

#include "render/cpu/parallel.h"
#include "render/error.h"

namespace pkrt {

namespace {

struct Layer {
    const char* name;
    const char* channels[3];  // nullptr where the layer has fewer
};

const Layer& layer_of(Aov a) {
    static const Layer layers[] = {{"Denoising Albedo", {"R", "G", "B"}},
                                   {"Denoising Normal", {"X", "Y", "Z"}},
                                   {"Depth", {"Z", nullptr, nullptr}}};
    return layers[static_cast<int>(a)];
}
const Layer kNoisy = {"Noisy Image", {"R", "G", "B"}};

Image& image_of(FeatureImages& f, Aov a) {
    return a == Aov::kAlbedo ? f.albedo : a == Aov::kNormal ? f.normal : f.depth;
}
const Image& image_of(const FeatureImages& f, Aov a) { return image_of(const_cast<FeatureImages&>(f), a); }

std::string channel(const Layer& l, int c) { return std::string(l.name) + "." + l.channels[c]; }

}  // namespace

std::vector<Aov> parse_aov_list(const std::string& text) {
    std::vector<Aov> out;
    std::string all;
    for (const auto& n : kAovNames) all += (all.empty() ? "" : ", ") + n;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        auto it = std::find(kAovNames.begin(), kAovNames.end(), item);
        if (it == kAovNames.end())
            throw Error("--aov " + quote_input(text) + ": '" + quote_input(item) +
                        "' is not a feature; the features are " + all);
        Aov a = static_cast<Aov>(it - kAovNames.begin());
        if (std::find(out.begin(), out.end(), a) != out.end())
            throw Error("--aov " + quote_input(text) + ": " + item + " twice");
        out.push_back(a);
    }
    if (out.empty() || text.back() == ',') throw Error("--aov " + quote_input(text) + ": expected a list of " + all);
    return out;
}

FeatureImages resolve_features(const Accumulation& a) {
    FeatureImages f;
    resolve_features(a, f);
    return f;
}

void resolve_features(const Accumulation& a, FeatureImages& f) {
    size_t n = static_cast<size_t>(a.width) * a.height;
    if (a.features.size() != kFeatureFloats * n)
        throw Error("internal: an accumulation of " + std::to_string(a.width) + "x" + std::to_string(a.height) +
                    " without its features");
    for (Image* img : {&f.albedo, &f.normal, &f.depth}) {
        img->width = a.width;
        img->height = a.height;
        img->pixels.resize(n);
    }
    const std::vector<float> counts = accumulation_samples(a);
    parallel_for(n, [&](size_t i) {
        float depth;
        resolve_feature_pixel(&a.features[kFeatureFloats * i], counts[i], f.albedo.pixels[i], f.normal.pixels[i],
                              depth);
        f.depth.pixels[i] = splat(depth);
    });
}

std::string encode_exr_with_aovs(const Image& image, const ExrAttributes& attributes, const FeatureImages& features,
                                 const std::vector<Aov>& aovs, const Image* noisy) {
    try {
        Imf::Header header(image.width, image.height);
        for (const auto& [name, value] : attributes) header.insert(name, Imf::StringAttribute(value));
        Imf::FrameBuffer fb;
        const size_t xs = sizeof(Vec3), ys = sizeof(Vec3) * image.width;
        auto add = [&](const std::string& name, const Image& from, int component) {
            if (from.width != image.width || from.height != image.height)
                throw Error("internal: a feature layer of another size than the image");
            header.channels().insert(name, Imf::Channel(Imf::FLOAT));
            char* base = reinterpret_cast<char*>(const_cast<Vec3*>(from.pixels.data())) + 4 * component;
            fb.insert(name, Imf::Slice(Imf::FLOAT, base, xs, ys));
        };
        add("R", image, 0);
        add("G", image, 1);
        add("B", image, 2);
        for (Aov a : aovs) {
            const Layer& l = layer_of(a);
            for (int c = 0; c < 3 && l.channels[c]; ++c) add(channel(l, c), image_of(features, a), c);
        }
        if (noisy)
            for (int c = 0; c < 3; ++c) add(channel(kNoisy, c), *noisy, c);
        Imf::StdOSStream stream;
        {
            // The file writes its line offset table as it closes: the bytes are whole only after that.
            Imf::OutputFile file(stream, header);
            file.setFrameBuffer(fb);
            file.writePixels(image.height);
        }
        return stream.str();
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(std::string("cannot encode EXR: ") + e.what());
    }
}

namespace {

struct LayerRead {
    const Layer* layer;
    Image* into;
    const char* flag;  // what writes it, for the error where it is missing
};

void read_layers(ExrInput& exr, int width, int height, const std::vector<LayerRead>& layers) {
    const std::string& path = exr.path();
    for (const LayerRead& r : layers) {
        r.into->width = width;
        r.into->height = height;
        r.into->pixels.assign(static_cast<size_t>(width) * height, splat(0.0f));
    }
    try {
        Imf::InputFile& file = exr.file();
        Imath::Box2i dw = file.header().dataWindow();
        if (dw.max.x - dw.min.x + 1 != width || dw.max.y - dw.min.y + 1 != height)
            throw Error(path + ": not " + std::to_string(width) + "x" + std::to_string(height));
        Imf::FrameBuffer fb;
        const size_t xs = sizeof(Vec3), ys = sizeof(Vec3) * width;
        for (const LayerRead& r : layers) {
            const Layer& l = *r.layer;
            for (int c = 0; c < 3 && l.channels[c]; ++c) {
                if (!file.header().channels().findChannel(channel(l, c)))
                    throw Error(path + ": has no " + channel(l, c) + " channel (rendered without " + r.flag + ")");
                char* base =
                    exr_slice_base(reinterpret_cast<char*>(r.into->pixels.data()) + 4 * c, dw, uint64_t(width), xs);
                fb.insert(channel(l, c), Imf::Slice(Imf::FLOAT, base, xs, ys));
            }
        }
        file.setFrameBuffer(fb);
        file.readPixels(dw.min.y, dw.max.y);
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw Error(path + ": cannot read EXR: " + quote_input(e.what()));
    }
}

}  // namespace

std::string encode_output_image(const std::string& path, const Image& image, const Look& look,
                                const ExrAttributes& attributes, const FeatureImages& features,
                                const std::vector<Aov>& aovs, const Image* noisy) {
    if (!aovs.empty() && image_extension(path) == ".exr")
        return encode_exr_with_aovs(image, attributes, features, aovs, noisy);
    return encode_image(path, image, look, attributes);
}

FeatureImages read_aov_layers(ExrInput& exr, int width, int height, const std::vector<Aov>& aovs) {
    FeatureImages f;
    std::vector<std::string> flags;
    for (Aov a : aovs) flags.push_back("--aov " + kAovNames[static_cast<int>(a)]);
    std::vector<LayerRead> reads;
    for (size_t k = 0; k < aovs.size(); ++k)
        reads.push_back({&layer_of(aovs[k]), &image_of(f, aovs[k]), flags[k].c_str()});
    read_layers(exr, width, height, reads);
    for (Image* img : {&f.albedo, &f.normal, &f.depth})  // the layers not read: black, of the size
        if (img->pixels.empty()) *img = Image{width, height, std::vector<Vec3>(static_cast<size_t>(width) * height)};
    // Depth is one channel; the image keeps it in every component, as resolve_features does.
    for (Vec3& d : f.depth.pixels) d = splat(d.x);
    return f;
}

FeatureImages read_aov_layers(const std::string& path, int width, int height, const std::vector<Aov>& aovs) {
    return read_exr_file(path, [&](ExrInput& exr) { return read_aov_layers(exr, width, height, aovs); });
}

bool has_noisy_layer(ExrInput& exr) {
    try {
        return exr.file().header().channels().findChannel(channel(kNoisy, 0)) != nullptr;
    } catch (const std::exception& e) {
        throw Error(exr.path() + ": cannot read EXR: " + quote_input(e.what()));
    }
}

bool has_noisy_layer(const std::string& path) {
    return read_exr_file(path, [](ExrInput& exr) { return has_noisy_layer(exr); });
}

Image read_noisy_layer(ExrInput& exr, int width, int height) {
    Image noisy;
    read_layers(exr, width, height, {{&kNoisy, &noisy, "--denoise"}});
    return noisy;
}

Image read_noisy_layer(const std::string& path, int width, int height) {
    return read_exr_file(path, [&](ExrInput& exr) { return read_noisy_layer(exr, width, height); });
}

}  // namespace pkrt
