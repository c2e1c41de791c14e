// The CPU backend: every (pixel, sample) path runs start to end on one thread through the same stage
// functions the GPU schedulers use (kernels/path.h), so its images are the reference the GPU modes
// are tested against. Threads take 8x8 tiles from a shared counter.
#include <atomic>
#include <mutex>

#include "backend.h"
#include "kernels/path_stages.h"
#include "parallel.h"

namespace pkrt {

namespace {

constexpr int kTile = 8;
constexpr size_t kMinWorkItems = 64;  // below this many tiles, frames are split along samples too

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(unsigned threads) : threads_(threads == 0 ? worker_count() : threads) {}

    std::string name() const override { return "cpu"; }
    std::string device() const override { return std::to_string(threads_) + " CPU threads"; }
    void set_scene(const Scene& scene) override {
        scene_ = &scene;
        camera_ = scene.camera;
    }

    void reset(int width, int height) override {
        width_ = width;
        height_ = height;
        block_ = 1;
        sum_.assign(static_cast<size_t>(width) * height, Vec3{0.0f, 0.0f, 0.0f});
        count_.assign(static_cast<size_t>(width) * height, 0u);
    }

    void accumulate(const RenderSettings& rs, uint32_t first_sample, uint32_t samples, RenderStats& stats) override {
        SceneView view = view_scene(*scene_);
        FrameRecord fp = make_frame_record(camera_, width_, height_, rs, first_sample, samples, 0);
        block_ = std::max(1, rs.preview);
        const int width = fp.width, height = fp.height;  // a preview's, smaller (RenderSettings::preview)
        int tiles_x = (width + kTile - 1) / kTile, tiles_y = (height + kTile - 1) / kTile;
        size_t tiles = static_cast<size_t>(tiles_x) * tiles_y;
        // Small frames are also split along the sample range, so that every core has work. The number
        // of chunks depends on the frame alone, never on the thread count, and chunk sums are added in
        // chunk order: the image is the same whatever the number of threads.
        uint32_t chunks = tiles >= kMinWorkItems ? 1u : static_cast<uint32_t>(std::min<size_t>(samples, (kMinWorkItems + tiles - 1) / tiles));
        uint32_t chunk_len = (samples + chunks - 1) / chunks;
        chunks = (samples + chunk_len - 1) / chunk_len;
        size_t npix = static_cast<size_t>(width) * height;
        std::vector<Vec3> partial(chunks > 1 ? chunks * npix : 0, Vec3{0.0f, 0.0f, 0.0f});
        std::vector<RenderStats> local(threads_);
        parallel_chunks(tiles * chunks, 1, [&](unsigned w, size_t b, size_t e) {
            RenderStats& st = local[w];
            for (size_t item = b; item < e; ++item) {
                size_t tile = item / chunks;
                uint32_t chunk = static_cast<uint32_t>(item % chunks);
                uint32_t s0 = first_sample + chunk * chunk_len;
                uint32_t s1 = std::min(first_sample + samples, s0 + chunk_len);
                int tx = static_cast<int>(tile % tiles_x) * kTile, ty = static_cast<int>(tile / tiles_x) * kTile;
                for (int y = ty; y < std::min(ty + kTile, height); ++y) {
                    for (int x = tx; x < std::min(tx + kTile, width); ++x) {
                        uint32_t pixel = static_cast<uint32_t>(y) * width + x;
                        Vec3 sum = splat(0.0f);
                        for (uint32_t s = s0; s < s1; ++s) {
                            Vec3 l = trace_path(view, fp, pixel, s, st);
                            if (all_finite(l)) sum += l;
                            else ++st.nonfinite_samples;
                        }
                        if (chunks > 1) partial[chunk * npix + pixel] = sum;
                        else sum_[pixel] += sum;
                        st.samples += s1 - s0;
                    }
                }
            }
        }, threads_);
        for (uint32_t c = 0; c < chunks && chunks > 1; ++c)
            for (size_t i = 0; i < npix; ++i) sum_[i] += partial[c * npix + i];
        for (size_t i = 0; i < npix; ++i) count_[i] += samples;
        for (const auto& st : local) stats.merge(st);
    }

    using Backend::accumulation;  // the copy-returning one beside the override below

    std::vector<uint32_t> sample_counts() const override { return accumulation().counts; }

    void copy_accumulation(float* rgba) const override {
        for (int y = 0; y < height_; ++y) {
            for (int x = 0; x < width_; ++x) {
                size_t i = static_cast<size_t>(y) * width_ + x, s = preview_source(x, y, width_, block_);
                rgba[4 * i + 0] = sum_[s].x;
                rgba[4 * i + 1] = sum_[s].y;
                rgba[4 * i + 2] = sum_[s].z;
                rgba[4 * i + 3] = static_cast<float>(count_[s]);
            }
        }
    }

    void accumulation(Accumulation& a) const override {
        a.width = width_;
        a.height = height_;
        a.rgba.clear();
        a.sums.resize(3 * sum_.size());
        for (size_t i = 0; i < sum_.size(); ++i) {
            a.sums[3 * i] = sum_[i].x;
            a.sums[3 * i + 1] = sum_[i].y;
            a.sums[3 * i + 2] = sum_[i].z;
        }
        a.counts.assign(count_.begin(), count_.end());
        expand_preview(a, block_);
    }

private:
    // The CPU's Sink for the path stages: one path's radiance, summed in the order it arrives.
    struct PathSum {
        Vec3 l = splat(0.0f);
        void add(uint32_t, Vec3 v) { l += v; }
        void finish(uint32_t) {}
    };

    static Vec3 trace_path(const SceneView& view, const FrameRecord& fp, uint32_t pixel, uint32_t sample,
                           RenderStats& st) {
        PathState path = generate_path(fp, PathIndex{pixel, sample});
        PathSum sum;
        for (;;) {
            st.count_extension(path.depth);
            Hit hit = InlineTraversal::closest(view.bvh, Ray{path.origin, path.dir});
            ShadeResult r{};
            shade_path(view, fp, path, hit, r);
            add_shading(sum, pixel, r);
            if (r.dropped) ++st.nonfinite_samples;
            if (r.has_shadow) {
                ++st.shadow_rays;
                resolve_shadow<InlineTraversal>(sum, view.bvh, r.shadow);
            }
            if (!r.continues) break;
        }
        return sum.l;
    }

    unsigned threads_;
    const Scene* scene_ = nullptr;
    int width_ = 0, height_ = 0;
    int block_ = 1;  // the image's preview block (RenderSettings::preview), 1 for a full image
    std::vector<Vec3> sum_;
    std::vector<uint32_t> count_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(unsigned threads) { return std::make_unique<CpuBackend>(threads); }

}  // namespace pkrt
