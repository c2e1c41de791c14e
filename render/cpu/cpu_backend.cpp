// The CPU backend: every (pixel, sample) path runs start to end on one thread through the same stage
// functions the GPU schedulers use (kernels/path.h), so its images are the reference the GPU modes
// are tested against. Threads take 8x8 tiles from a shared counter.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>

#include "render/backend.h"
#include "render/error.h"
#include "kernels/path_stages.h"
#include "render/cpu/parallel.h"
#include "render/cpu/proportional_rounds.h"

namespace pkrt {

namespace {

constexpr int kTile = kAdaptiveTile;  // adaptive sampling's tiles are the CPU's work items
constexpr size_t kMinWorkItems = 64;  // below this many tiles, frames are split along samples too

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(unsigned threads) : threads_(threads == 0 ? worker_count() : threads) {}

    std::string name() const override { return "cpu"; }
    std::string device() const override {
        return std::to_string(threads_) + (threads_ == 1 ? " CPU thread" : " CPU threads");
    }
    void set_scene(const Scene& scene) override {
        scene_ = &scene;
        camera_ = scene.camera;
    }

    void reset(int width, int height) override {
        width_ = width;
        height_ = height;
        block_ = 1;
        sum_.assign(static_cast<size_t>(width) * height, Vec3{0.0f, 0.0f, 0.0f});
        odd_.assign(static_cast<size_t>(width) * height, Vec3{0.0f, 0.0f, 0.0f});
        count_.assign(static_cast<size_t>(width) * height, 0u);
        rays_.assign(static_cast<size_t>(width) * height, 0u);
        features_.assign(features_on_ ? kFeatureFloats * static_cast<size_t>(width) * height : 0, 0.0f);
        adaptive_ = Adaptive{};
    }
    void set_features(bool on) override { features_on_ = on; }

    // A frame at a time, run in full when it is waited for (Backend::finish_frame).
    void render_frame(const FrameRequest& request, RenderStats& stats) override {
        const RenderSettings& rs = request.settings;
        const uint32_t first_sample = request.first_sample, samples = request.samples;
        FrameRecord fp = make_frame_record(camera_, width_, height_, rs, first_sample, samples, 0);
        block_ = std::max(1, rs.preview);
        std::vector<TileSpan> spans(adaptive_tiles(fp.width) * static_cast<size_t>(adaptive_tiles(fp.height)));
        for (size_t t = 0; t < spans.size(); ++t) spans[t] = TileSpan{static_cast<uint32_t>(t), first_sample};
        render_tiles(fp, spans, samples, stats);
    }

    // Rounds of tiles by class (kernels/adaptive.h), one step size each; the first round every tile at
    // min_spp (proportional: the pilot's power of two). After each, the rule decides the next round's tiles.
    void begin_adaptive(const RenderSettings& rs, const AdaptiveSettings& as) override {
        adaptive_ = Adaptive{};
        adaptive_.on = true;
        adaptive_.rule = as.rule();
        adaptive_.first_samples = adaptive_.rule.min_spp;
        if (as.method == AdaptiveMethod::proportional) {
            adaptive_.proportional.emplace(width_, height_, adaptive_.rule);
            adaptive_.first_samples = adaptive_.proportional->pilot_samples();
        }
        adaptive_.frame = make_frame_record(camera_, width_, height_, rs, 0, 0, 0);
        block_ = 1;
        const size_t tiles = static_cast<size_t>(adaptive_tiles(width_)) * adaptive_tiles(height_);
        adaptive_.classes.assign(kAdaptiveClasses + 1, {});
        adaptive_.classes[kAdaptiveClasses].resize(tiles);
        for (size_t t = 0; t < tiles; ++t)
            adaptive_.classes[kAdaptiveClasses][t] = TileSpan{static_cast<uint32_t>(t), 0u};
    }

    // Rounds run in end_adaptive_round (the CPU has nothing to overlap).
    void begin_adaptive_round() override {
        if (!adaptive_.on) throw Error("internal: an adaptive round without begin_adaptive");
    }

    AdaptiveStep end_adaptive_round(RenderStats& stats) override {
        if (!adaptive_.on) throw Error("internal: an adaptive round without begin_adaptive");
        const AdaptiveRule& rule = adaptive_.rule;
        auto& classes = adaptive_.classes;
        auto class_samples = [&](int c) { return c == kAdaptiveClasses ? adaptive_.first_samples : 2u << c; };
        AdaptiveStep step;
        for (int c = 0; c <= kAdaptiveClasses; ++c) {
            if (classes[c].empty()) continue;
            render_tiles(adaptive_.frame, classes[c], class_samples(c), stats);
            step.tiles_sampled += static_cast<uint32_t>(classes[c].size());
            step.samples_per_tile = std::max(step.samples_per_tile, class_samples(c));
        }
        if (adaptive_.proportional) {
            std::vector<uint32_t> next;
            step.converged_pixels = adaptive_.proportional->end_round(
                AllAndOddSums{&sum_[0].x, &odd_[0].x, count_.data()}, rays_.data(), next, threads_);
            for (auto& c : classes) c.clear();
            for (uint32_t t : next) {  // each doubles its samples
                uint32_t n = count_[tile_first_pixel(t)];
                classes[adaptive_class(n)].push_back(TileSpan{t, n});
            }
            step.more = !next.empty();
            return step;
        }
        step.converged_pixels = converged_pixels(width_, height_, &sum_[0].x, &odd_[0].x, count_.data(), rule);
        const int tiles_x = adaptive_tiles(width_);
        std::vector<unsigned char> needs(static_cast<size_t>(tiles_x) * adaptive_tiles(height_));
        parallel_chunks(
            needs.size(), 16,
            [&](unsigned, size_t b, size_t e) {
                for (size_t t = b; t < e; ++t)
                    needs[t] = tile_needs_samples(static_cast<int>(t % tiles_x), static_cast<int>(t / tiles_x), width_,
                                                  height_, AllAndOddSums{&sum_[0].x, &odd_[0].x, count_.data()}, rule);
            },
            threads_);
        for (auto& c : classes) c.clear();
        for (size_t t = 0; t < needs.size(); ++t) {
            if (!needs[t]) continue;
            uint32_t n = count_[tile_first_pixel(t)];
            classes[adaptive_class(adaptive_tile_samples(n, rule.max_spp))].push_back(
                TileSpan{static_cast<uint32_t>(t), n});
            step.more = true;
        }
        return step;
    }

    void end_adaptive() override {
        if (adaptive_.proportional) adaptive_.proportional->finish(sum_, odd_, count_);
        adaptive_ = Adaptive{};
    }

    using Backend::accumulation;  // the copy-returning one beside the override below

    std::vector<uint32_t> sample_counts() const override { return accumulation().counts; }

    void copy_accumulation(float* rgba) const override {
        for (int y = 0; y < height_; ++y) {
            for (int x = 0; x < width_; ++x) {
                size_t i = static_cast<size_t>(y) * width_ + x, s = preview_source(x, y, width_, block_);
                const Vec3 sum = image_sum(s);
                rgba[4 * i + 0] = sum.x;
                rgba[4 * i + 1] = sum.y;
                rgba[4 * i + 2] = sum.z;
                rgba[4 * i + 3] = static_cast<float>(count_[s]);
            }
        }
    }

    void accumulation(Accumulation& a) const override {
        a.width = width_;
        a.height = height_;
        a.rgba.clear();
        const size_t n = sum_.size();
        auto flatten = [n](auto value, std::vector<float>& to) {
            to.resize(3 * n);
            for (size_t i = 0; i < n; ++i) {
                const Vec3 v = value(i);
                to[3 * i] = v.x;
                to[3 * i + 1] = v.y;
                to[3 * i + 2] = v.z;
            }
        };
        flatten([this](size_t i) { return image_sum(i); }, a.sums);  // proportional rounds: the weighted image
        flatten([this](size_t i) { return odd_[i]; }, a.odd_sums);
        a.counts.assign(count_.begin(), count_.end());
        a.features = features_;
        expand_preview(a, block_);
    }

private:
    // Every pixel of a tile has the tile's count; its first pixel's says it.
    size_t tile_first_pixel(uint32_t t) const {
        const int tiles_x = adaptive_tiles(width_);
        return (t / tiles_x) * kTile * static_cast<size_t>(width_) + (t % tiles_x) * kTile;
    }

    // Pixel p's sum as its image has it: the samples' sum, or proportional rounds' weighted mean times
    // the count.
    Vec3 image_sum(size_t p) const {
        if (!adaptive_.proportional) return sum_[p];
        return adaptive_.proportional->estimate(p, sum_[p], count_[p]) * static_cast<float>(count_[p]);
    }

    // Samples [first_sample, first_sample + n) of every pixel of one 8x8 tile (n is the caller's).
    struct TileSpan {
        uint32_t tile, first_sample;
    };

    // Small frames are also split along the sample range, so that every core has work. The number of
    // chunks depends on the work alone, never on the thread count, and a pixel's chunk sums are added
    // in chunk order: the image is the same whatever the number of threads. Odd-numbered samples are
    // summed apart as well, for adaptive sampling's error estimate (kernels/adaptive.h).
    void render_tiles(const FrameRecord& frame, const std::vector<TileSpan>& spans, uint32_t samples,
                      RenderStats& stats) {
        SceneView view = view_scene(*scene_);
        const int width = frame.width, height = frame.height;  // a preview's, smaller (RenderSettings::preview)
        const int tiles_x = adaptive_tiles(width);
        uint32_t chunks =
            spans.size() >= kMinWorkItems
                ? 1u
                : static_cast<uint32_t>(std::min<size_t>(samples, (kMinWorkItems + spans.size() - 1) / spans.size()));
        uint32_t chunk_len = (samples + chunks - 1) / chunks;
        chunks = (samples + chunk_len - 1) / chunk_len;
        constexpr size_t kTilePixels = kTile * kTile;
        // Per (span, chunk): the tile's pixel sums, all and odd, and its features, when the span is split.
        std::vector<Vec3> partial(chunks > 1 ? 2 * spans.size() * chunks * kTilePixels : 0, Vec3{0.0f, 0.0f, 0.0f});
        const bool features = !features_.empty();
        std::vector<float> partial_features(
            chunks > 1 && features ? kFeatureFloats * spans.size() * chunks * kTilePixels : 0);
        std::vector<uint32_t> partial_rays(chunks > 1 ? spans.size() * chunks * kTilePixels : 0);
        std::vector<RenderStats> local(threads_);
        parallel_chunks(
            spans.size() * chunks, 1,
            [&](unsigned w, size_t b, size_t e) {
                RenderStats& st = local[w];
                for (size_t item = b; item < e; ++item) {
                    const TileSpan& span = spans[item / chunks];
                    uint32_t chunk = static_cast<uint32_t>(item % chunks);
                    uint32_t s0 = span.first_sample + chunk * chunk_len;
                    uint32_t s1 = std::min(span.first_sample + samples, s0 + chunk_len);
                    int tx = static_cast<int>(span.tile % tiles_x) * kTile,
                        ty = static_cast<int>(span.tile / tiles_x) * kTile;
                    for (int y = ty; y < std::min(ty + kTile, height); ++y) {
                        for (int x = tx; x < std::min(tx + kTile, width); ++x) {
                            uint32_t pixel = static_cast<uint32_t>(y) * width + x;
                            Vec3 sum = splat(0.0f), odd = splat(0.0f);
                            FeatureSum fsum;
                            const uint64_t rays0 = st.total_rays();
                            for (uint32_t s = s0; s < s1; ++s) {
                                Vec3 l = trace_path(view, frame, pixel, s, st, fsum);
                                if (!all_finite(l)) {
                                    ++st.nonfinite_samples;
                                    continue;
                                }
                                sum += l;
                                if (s & 1u) odd += l;
                            }
                            if (chunks > 1) {
                                size_t slot =
                                    2 * ((item * kTilePixels) + static_cast<size_t>(y - ty) * kTile + (x - tx));
                                partial[slot] = sum;
                                partial[slot + 1] = odd;
                                partial_rays[slot / 2] = static_cast<uint32_t>(st.total_rays() - rays0);
                                if (features)
                                    std::copy_n(fsum.f, kFeatureFloats, &partial_features[kFeatureFloats * slot / 2]);
                            } else {
                                sum_[pixel] += sum;
                                odd_[pixel] += odd;
                                rays_[pixel] += static_cast<uint32_t>(st.total_rays() - rays0);
                                if (features) fsum.add_to(&features_[kFeatureFloats * pixel]);
                            }
                            st.samples += s1 - s0;
                        }
                    }
                }
            },
            threads_);
        for (size_t i = 0; i < spans.size(); ++i) {
            int tx = static_cast<int>(spans[i].tile % tiles_x) * kTile,
                ty = static_cast<int>(spans[i].tile / tiles_x) * kTile;
            for (int y = ty; y < std::min(ty + kTile, height); ++y) {
                for (int x = tx; x < std::min(tx + kTile, width); ++x) {
                    size_t pixel = static_cast<size_t>(y) * width + x;
                    for (uint32_t c = 0; c < chunks && chunks > 1; ++c) {
                        size_t slot =
                            2 * (((i * chunks + c) * kTilePixels) + static_cast<size_t>(y - ty) * kTile + (x - tx));
                        sum_[pixel] += partial[slot];
                        odd_[pixel] += partial[slot + 1];
                        rays_[pixel] += partial_rays[slot / 2];
                        if (features) {
                            FeatureSum part;
                            std::copy_n(&partial_features[kFeatureFloats * slot / 2], kFeatureFloats, part.f);
                            part.add_to(&features_[kFeatureFloats * pixel]);
                        }
                    }
                    count_[pixel] += samples;
                }
            }
        }
        for (const auto& st : local) stats.merge(st);
    }

    // One pixel's feature sums over its samples in a span (kernels/features.h), in sample order.
    struct FeatureSum {
        float f[kFeatureFloats] = {};
        void add(const FeatureSample& s) {
            float v[kFeatureFloats];
            feature_floats(s, v);
            for (int i = 0; i < kFeatureFloats; ++i) f[i] += v[i];
        }
        void add_to(float* dst) const {
            for (int i = 0; i < kFeatureFloats; ++i) dst[i] += f[i];
        }
    };

    // The CPU's Sink for the path stages: one path's radiance, summed in the order it arrives, and its
    // features.
    struct PathSum {
        Vec3 l = splat(0.0f);
        FeatureSum& features;
        void add(uint32_t, Vec3 v) { l += v; }
        void feature(uint32_t, const FeatureSample& s) { features.add(s); }
        void finish(uint32_t) {}
    };

    // The CPU's Step of a path (kernels/path_stages.h): one lane, traced inline, shadows at once.
    struct CpuStep {
        const SceneView& view;
        const FrameRecord& frame;
        RenderStats& st;
        PathSum sink;
        Hit closest(const Ray& ray) { return InlineTraversal::closest(view, ray); }
        void extended(bool, const PathState& path) { st.count_extension(path.depth); }
        void shade(PathState& path, const Hit& hit, ShadeResult& r) { shade_path(view, frame, path, hit, r, sink); }
        void dropped(bool d) {
            if (d) ++st.nonfinite_samples;
        }
        void shadow(bool want, const ShadowRay& s, int) {
            if (!want) return;
            ++st.shadow_rays;
            resolve_shadow<InlineTraversal>(sink, view, s);
        }
        void finish(bool, const PathState&) {}
    };

    static Vec3 trace_path(const SceneView& view, const FrameRecord& fp, uint32_t pixel, uint32_t sample,
                           RenderStats& st, FeatureSum& features) {
        PathState path = generate_path(fp, PathIndex{pixel, sample});
        CpuStep step{view, fp, st, PathSum{splat(0.0f), features}};
        while (advance_path(step, path, true)) {}
        return step.sink.l;
    }

    unsigned threads_;
    const Scene* scene_ = nullptr;
    int width_ = 0, height_ = 0;
    int block_ = 1;                // the image's preview block (RenderSettings::preview), 1 for a full image
    std::vector<Vec3> sum_, odd_;  // all samples' radiance per pixel, and the odd-numbered samples'
    std::vector<uint32_t> count_;
    std::vector<uint32_t> rays_;  // per pixel, its samples' rays: adaptive sampling's cost per sample
    bool features_on_ = false;
    std::vector<float> features_;  // kFeatureFloats a pixel, empty when off
    // Between begin_adaptive and end_adaptive: the rule, the frame, and the next round's tiles by class
    // (the last one: every tile at first_samples, the first round); proportional rounds' state.
    struct Adaptive {
        bool on = false;
        AdaptiveRule rule{};
        uint32_t first_samples = 0;
        std::optional<ProportionalRounds> proportional;
        FrameRecord frame{};
        std::vector<std::vector<TileSpan>> classes;
    };
    Adaptive adaptive_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(unsigned threads) { return std::make_unique<CpuBackend>(threads); }

}  // namespace pkrt
