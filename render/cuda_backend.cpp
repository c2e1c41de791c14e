// The CUDA backend: uploads the scene (textures as sRGB CUDA texture objects), owns the framebuffer
// and the queues, and runs a frame under one of four schedulers:
//   persistent  one launch of a co-resident grid whose warps share lock-free queues (kernels/persistent.cu)
//   relaunch    the classic wavefront: one launch per stage per bounce (kernels/wavefront.cu)
//   graph       the relaunch sequence of a wave captured once in a CUDA Graph and replayed
//   megakernel  one thread per path
// A "frame" is one accumulate() call: `samples` samples of every pixel.
#include "cuda_backend.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>

#include "error.h"
#include "kernels/gpu_launch.h"
#include "policy_tuner.h"

namespace pkrt {

namespace {

// Set when a persistent kernel could neither finish nor be stopped: freeing memory it still uses would
// block forever, so destructors leave everything to the driver's teardown at process exit.
std::atomic<bool> g_device_wedged{false};

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        cudaGetLastError();
        throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
    }
}

template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    ~DeviceArray() { release(); }
    void allocate(size_t n) {
        if (n == n_ && p_) return;
        release();
        if (n == 0) return;
        check(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)), "cudaMalloc");
        n_ = n;
    }
    void upload(const std::vector<T>& v) {
        allocate(std::max<size_t>(v.size(), 1));
        if (!v.empty()) check(cudaMemcpy(p_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
    }
    void release() {
        if (p_ && !g_device_wedged) cudaFree(p_);
        p_ = nullptr;
        n_ = 0;
    }
    T* get() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

// Pinned host memory mapped into the device's address space: the host reads or writes it while a
// kernel runs (stop flag, live statistics).
template <class T>
class MappedHost {
public:
    MappedHost() {
        check(cudaHostAlloc(reinterpret_cast<void**>(&h_), sizeof(T), cudaHostAllocMapped), "cudaHostAlloc");
        std::memset(static_cast<void*>(h_), 0, sizeof(T));
        check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_), h_, 0), "cudaHostGetDevicePointer");
    }
    ~MappedHost() {
        if (!g_device_wedged) cudaFreeHost(h_);
    }
    MappedHost(const MappedHost&) = delete;
    MappedHost& operator=(const MappedHost&) = delete;
    T* host() const { return h_; }
    T* device() const { return d_; }

private:
    T* h_ = nullptr;
    T* d_ = nullptr;
};

struct DeviceScene {
    DeviceArray<BvhNode> nodes;
    DeviceArray<TriVerts> tris;
    DeviceArray<TriShading> shading;
    DeviceArray<Material> materials;
    DeviceArray<int32_t> light_tris;
    DeviceArray<float> light_cdf, tri_pmf;
    DeviceArray<TextureView> textures;
    std::vector<cudaArray_t> arrays;
    std::vector<cudaTextureObject_t> objects;

    ~DeviceScene() { release_textures(); }

    void release_textures() {
        if (g_device_wedged) return;
        for (auto o : objects) cudaDestroyTextureObject(o);
        for (auto a : arrays) cudaFreeArray(a);
        objects.clear();
        arrays.clear();
    }

    void upload(const Scene& s) {
        nodes.upload(s.bvh.bvh2_nodes);
        tris.upload(s.tris);
        shading.upload(s.shading);
        materials.upload(s.materials);
        light_tris.upload(s.light_tris);
        light_cdf.upload(s.light_cdf);
        tri_pmf.upload(s.tri_light_pmf);
        release_textures();
        std::vector<TextureView> views;
        for (const auto& t : s.textures) {
            cudaChannelFormatDesc fmt = cudaCreateChannelDesc<uchar4>();
            cudaArray_t arr = nullptr;
            check(cudaMallocArray(&arr, &fmt, t.width, t.height), "cudaMallocArray");
            arrays.push_back(arr);
            check(cudaMemcpy2DToArray(arr, 0, 0, t.texels.data(), t.width * 4, t.width * 4, t.height, cudaMemcpyHostToDevice),
                  "texture upload");
            cudaResourceDesc res{};
            res.resType = cudaResourceTypeArray;
            res.res.array.array = arr;
            cudaTextureDesc td{};
            td.addressMode[0] = cudaAddressModeWrap;
            td.addressMode[1] = cudaAddressModeWrap;
            td.filterMode = cudaFilterModeLinear;
            td.readMode = cudaReadModeNormalizedFloat;
            td.normalizedCoords = 1;
            td.sRGB = 1;  // decode to linear before filtering, as the software path does
            cudaTextureObject_t obj = 0;
            check(cudaCreateTextureObject(&obj, &res, &td, nullptr), "cudaCreateTextureObject");
            objects.push_back(obj);
            views.push_back(TextureView{nullptr, t.width, t.height, static_cast<unsigned long long>(obj)});
        }
        textures.upload(views);
    }

    SceneView view(const Scene& s, int w, int h) const {
        SceneView v = view_scene(s, w, h);  // camera, environment, counts
        v.bvh.nodes = nodes.get();
        v.bvh.tris = tris.get();
        v.shading = shading.get();
        v.materials = materials.get();
        v.textures = textures.get();
        v.lights.tris = light_tris.get();
        v.lights.cdf = light_cdf.get();
        v.lights.tri_pmf = tri_pmf.get();
        return v;
    }
};

template <class Record>
struct QueueStorage {
    DeviceArray<QueueCounters> counters;
    DeviceArray<unsigned long long> seq;
    DeviceArray<Record> slots;
    uint32_t capacity = 0;

    void allocate(uint32_t cap, cudaStream_t stream) {
        capacity = cap;
        counters.allocate(1);
        seq.allocate(cap);
        slots.allocate(cap);
        check(launch_queue_init(view(), stream), "queue init");
    }
    DeviceQueue<Record> view() const { return DeviceQueue<Record>{counters.get(), seq.get(), slots.get(), capacity}; }
};

constexpr int kStallSeconds = 10;

uint32_t next_pow2(uint64_t v) {
    uint32_t p = 1;
    while (p < v && p < (1u << 30)) p <<= 1;
    return p;
}

class CudaBackend final : public Backend {
public:
    CudaBackend(const GpuDevice& dev, const CudaOptions& opt) : dev_(dev), opt_(opt) {
        check(cudaSetDevice(dev.index), "cudaSetDevice");
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        check(cudaEventCreate(&start_), "cudaEventCreate");
        check(cudaEventCreate(&stop_), "cudaEventCreate");
        control_.allocate(1);
        counters_.allocate(1);
        check(cudaHostAlloc(reinterpret_cast<void**>(&control_host_), sizeof(FrameControl), cudaHostAllocDefault), "cudaHostAlloc");
        check(cudaHostAlloc(reinterpret_cast<void**>(&wave_host_), sizeof(WaveParams), cudaHostAllocDefault), "cudaHostAlloc");
        wave_.allocate(1);
        if (opt_.register_variant != 0 &&
            std::find(std::begin(kPersistentVariants), std::end(kPersistentVariants), opt_.register_variant) ==
                std::end(kPersistentVariants))
            throw Error("persistent register variant " + std::to_string(opt_.register_variant) +
                        " is not compiled (0 = automatic, 4, 6, 8 or 10)");
        // Every variant this backend may launch must be able to hold the whole grid resident.
        int max_blocks = 0;
        for (int v : candidate_variants()) {
            if (opt_.smem_carveout >= 0) check(set_persistent_carveout(v, opt_.smem_carveout), "shared memory carveout");
            int occupancy = persistent_blocks_per_sm(v);
            if (occupancy <= 0) throw Error("CUDA: the persistent kernel cannot be resident on " + dev.name);
            int resident = occupancy * dev.multiprocessors;
            if (opt_.persistent_blocks > resident) {
                throw Error("persistent grid of " + std::to_string(opt_.persistent_blocks) + " blocks exceeds the " +
                            std::to_string(resident) + " that can be co-resident on " + dev.name + " (" +
                            std::to_string(occupancy) + " per SM x " + std::to_string(dev.multiprocessors) +
                            " SMs, register variant " + std::to_string(v) + ")");
            }
            variant_blocks_[v] = opt_.persistent_blocks > 0 ? opt_.persistent_blocks : resident;
            max_blocks = std::max(max_blocks, variant_blocks_[v]);
        }
        // Whatever variants are allowed, "latency-bound" means: fits in one wave of the 128-register one.
        int latency_blocks = opt_.persistent_blocks > 0 ? opt_.persistent_blocks
                                                        : persistent_blocks_per_sm(kLatencyVariant) * dev.multiprocessors;
        latency_paths_ = static_cast<unsigned long long>(latency_blocks) * kPersistentThreads;
        uint32_t cap = opt_.queue_capacity ? opt_.queue_capacity : next_pow2(2ull * max_blocks * kPersistentThreads);
        if (cap & (cap - 1)) throw Error("queue capacity " + std::to_string(cap) + " is not a power of two");
        if (cap < 32) throw Error("queue capacity must be at least 32 (one warp)");
        paths_.allocate(cap, stream_);
        shadows_.allocate(cap, stream_);
        check(cudaStreamSynchronize(stream_), "queue init");
        set_mode(opt_.mode);
    }

    ~CudaBackend() override {
        if (g_device_wedged) return;
        if (pending_.active) cudaStreamSynchronize(stream_);  // a frame begun and never ended
        if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
        cudaFreeHost(control_host_);
        cudaFreeHost(wave_host_);
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
        cudaStreamDestroy(stream_);
    }

    std::string name() const override { return "cuda"; }
    std::string device() const override { return dev_.name; }
    std::string default_mode() const override { return "persistent"; }
    std::vector<std::string> modes() const override { return {"persistent", "relaunch", "graph", "megakernel"}; }

    void set_scene(const Scene& scene) override {
        drain();
        if (scene_ == &scene) return;
        scene_ = &scene;
        dscene_.upload(scene);
        drop_graph();
    }

    void reset(int width, int height) override {
        drain();
        size_t n = static_cast<size_t>(width) * height;
        width_ = width;
        height_ = height;
        radiance_.allocate(3 * n);
        samples_.allocate(n);
        check(cudaMemsetAsync(radiance_.get(), 0, 3 * n * sizeof(float), stream_), "clear framebuffer");
        check(cudaMemsetAsync(samples_.get(), 0, n * sizeof(uint32_t), stream_), "clear framebuffer");
        check(cudaStreamSynchronize(stream_), "clear framebuffer");
    }

    void cancel() override { stop_flag_.host()[0] = 1; }

    void accumulate(const RenderSettings& rs, uint32_t first_sample, uint32_t samples, RenderStats& stats) override {
        begin_accumulate(rs, first_sample, samples);
        end_accumulate(stats);
    }

    // Queues the frame and returns: the persistent kernel, or the stages of the last (usually only)
    // wave. Earlier waves are waited for here, as their staging is reused.
    void begin_accumulate(const RenderSettings& rs, uint32_t first_sample, uint32_t samples) override {
        if (pending_.active) throw Error("internal: a CUDA frame was begun while another is in flight");
        std::string mode = rs.mode.empty() ? mode_ : rs.mode;
        set_mode(mode);
        stop_flag_.host()[0] = 0;
        FrameParams fp{width_, height_, rs.max_depth, rs.seed};
        SceneView sv = dscene_.view(*scene_, width_, height_);
        DeviceFramebuffer fb{radiance_.get(), samples_.get()};
        uint32_t pixels = static_cast<uint32_t>(width_) * static_cast<uint32_t>(height_);
        unsigned long long total = static_cast<unsigned long long>(pixels) * samples;

        check(cudaMemsetAsync(counters_.get(), 0, sizeof(GpuCounters), stream_), "clear counters");
        // Aim the timeline at timeline_points from the time per path the last frame took, scaled to this
        // frame's paths (a viewer's frames change size; a first frame with a fixed interval filled the
        // buffer half-way through a 1080p frame). Warps look at the clock only every few iterations, so
        // short frames (mostly a tail of few busy warps) land nearer a third of the aim.
        timeline_interval_ns_ = static_cast<unsigned>(
            std::clamp(timeline_ns_per_path_ * static_cast<double>(total) / opt_.timeline_points, 200.0, 1e7));
        check(cudaMemcpyAsync(reinterpret_cast<char*>(counters_.get()) + offsetof(GpuCounters, timeline_interval_ns),
                              &timeline_interval_ns_, sizeof(unsigned), cudaMemcpyHostToDevice, stream_),
              "timeline interval");
        pending_ = PendingFrame{};
        pending_.total = total;
        pending_.max_depth = rs.max_depth;
        uint64_t& launches = pending_.launches;
        pending_.path_before = read_queue(paths_);
        pending_.shadow_before = read_queue(shadows_);

        check(cudaEventRecord(start_, stream_), "cudaEventRecord");
        if (mode_ == "persistent") {
            *control_host_ = FrameControl{};
            control_host_->end_sample = total;
            check(cudaMemcpyAsync(control_.get(), control_host_, sizeof(FrameControl), cudaMemcpyHostToDevice, stream_),
                  "frame control");
            PersistentParams p{};
            p.scene = sv;
            p.frame = fp;
            p.fb = fb;
            p.paths = paths_.view();
            p.shadows = shadows_.view();
            p.control = control_.get();
            p.counters = counters_.get();
            p.live = live_.device();
            p.first_sample = first_sample;
            p.pixels = pixels;
            p.fetch_threshold = opt_.fetch_threshold;
            p.push_continuations = opt_.push_continuations;
            p.timeline = opt_.timeline;
            p.backoff_max_shift = opt_.backoff_max_shift;
            p.host_stop = opt_.poll_stop ? stop_flag_.device() : nullptr;
            // Frames of other sample counts share the measurements (times are per path); a frame that
            // changes class (latency- or throughput-bound) changes the candidates, which restarts them.
            std::string key = std::to_string(reinterpret_cast<uintptr_t>(scene_)) + " " + std::to_string(width_) + "x" +
                              std::to_string(height_) + " d" + std::to_string(rs.max_depth);
            PersistentPolicy policy = tuner_.next(key, policy_candidates(total), &pending_.tuning);
            pending_.policy = policy;
            int blocks = variant_blocks_.at(policy.register_variant);
            p.queue_shadows = policy.queue_shadows;
            p.pool_stragglers = policy.pool_stragglers;
            uint32_t lanes = static_cast<uint32_t>(blocks) * kPersistentThreads;
            p.low_water = static_cast<int>(std::min<uint32_t>(lanes, paths_.capacity / 2));
            live_.host()->running = 1;
            check(launch_persistent(p, blocks, policy.register_variant, stream_), "persistent kernel launch");
            launches = 1;
        } else {
            // Grids are sized for the frame's paths (capped by the wave buffers): the host knows that bound
            // without reading anything back, and empty blocks past it would only cost launch time.
            wave_capacity_ = static_cast<uint32_t>(std::min<unsigned long long>(opt_.wave_capacity, total));
            WavefrontParams wp = wavefront_params(sv, fp, fb, pixels, rs.max_depth);
            for (unsigned long long first = 0; first < total; first += wave_capacity_) {
                if (first > 0) finish_wave();  // staging reuse, and cancellation between waves
                if (stop_flag_.host()[0]) break;
                *wave_host_ = WaveParams{first, static_cast<uint32_t>(std::min<unsigned long long>(wave_capacity_, total - first)),
                                         first_sample};
                // Waves reuse the same pinned staging; wait until the previous wave's copy was consumed.
                check(cudaMemcpyAsync(wave_.get(), wave_host_, sizeof(WaveParams), cudaMemcpyHostToDevice, stream_), "wave params");
                if (mode_ == "megakernel") {
                    check(launch_megakernel(wp, stream_), "megakernel launch");
                    ++launches;
                } else if (mode_ == "graph") {
                    ensure_graph(wp, rs.max_depth);
                    check(cudaGraphLaunch(graph_exec_, stream_), "cudaGraphLaunch");
                    ++launches;
                } else {
                    launches += enqueue_wave(wp, rs.max_depth);
                }
                pending_.wave_unfinished = true;
            }
        }
        check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
        pending_.active = true;
    }

    void end_accumulate(RenderStats& stats) override {
        if (!pending_.active) throw Error("internal: no CUDA frame in flight to end");
        pending_.active = false;
        const unsigned long long total = pending_.total;
        const uint64_t launches = pending_.launches;
        const QueueCounters &path_before = pending_.path_before, &shadow_before = pending_.shadow_before;
        wait_for_frame();
        if (pending_.wave_unfinished) finish_wave();
        const uint64_t wf_enqueued = pending_.wf_enqueued;
        check(cudaGetLastError(), "frame");
        live_.host()->running = 0;
        float ms = 0.0f;
        check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");

        // Statistics.
        GpuCounters* c = counters_host();
        check(cudaMemcpy(c, counters_.get(), sizeof(GpuCounters), cudaMemcpyDeviceToHost), "read counters");
        RenderStats f;
        f.frames = 1;
        f.kernel_launches = launches;
        f.frame_gpu_ms.push_back(ms);
        for (int d = 0; d < kStatsMaxDepth; ++d)
            if (c->rays_by_depth[d]) f.count_extension(d, c->rays_by_depth[d]);
        f.shadow_rays = c->shadow_rays;
        f.samples = c->paths_completed;
        f.paths_generated = c->paths_generated;
        f.paths_completed = c->paths_completed;
        f.idle_iterations = c->idle_iterations;
        f.backoff_sleeps = c->backoff_sleeps;
        f.backoff_ns = c->backoff_ns;
        f.warp_iterations = c->warp_iterations;
        f.kept_paths = c->kept_paths;
        f.inline_shadows = c->inline_shadows;
        f.rays_per_sm.assign(c->rays_per_sm, c->rays_per_sm + std::min(kStatsMaxSms, std::max(1, dev_.multiprocessors)));
        if (mode_ == "persistent") f.phase_cycles.assign(c->phase_cycles, c->phase_cycles + kPhaseCount);
        int points = std::min(c->timeline_count, kTimelinePoints);
        std::vector<RenderStats::TimelinePoint> tl;
        double occ_sum = 0.0;
        for (int i = 0; i < points; ++i) {
            const TimelinePoint& t = c->timeline[i];
            tl.push_back({t.t_ns / 1000.0, t.path_queue, t.shadow_queue, t.in_flight});
            occ_sum += t.path_queue + t.shadow_queue;
        }
        std::sort(tl.begin(), tl.end(), [](const auto& a, const auto& b) { return a.t_us < b.t_us; });
        f.timeline = std::move(tl);
        f.mean_queue = points ? occ_sum / points : 0.0;
        if (mode_ == "persistent") {
            QueueCounters pa = read_queue(paths_), sh = read_queue(shadows_);
            f.enqueued = (pa.tail - path_before.tail) + (sh.tail - shadow_before.tail);
            f.dequeued = (pa.head - path_before.head) + (sh.head - shadow_before.head);
            f.peak_queue = static_cast<uint64_t>(pa.peak) + static_cast<uint64_t>(sh.peak);
            bool cancelled = stop_flag_.host()[0] != 0;
            if (cancelled || pa.reserved != 0 || sh.reserved != 0) reinit_queues();  // abandoned records
        } else {
            f.enqueued = f.dequeued = wf_enqueued;
        }
        const bool persistent = mode_ == "persistent";
        const PersistentPolicy& policy = pending_.policy;
        stats.grid_blocks = persistent ? variant_blocks_.at(policy.register_variant) : 0;
        stats.register_variant = persistent ? policy.register_variant : 0;
        stats.shadows_queued = persistent ? policy.queue_shadows : -1;
        stats.pool_stragglers = persistent ? policy.pool_stragglers : -1;
        stats.policy_trial = persistent && pending_.tuning;
        if (persistent && pending_.tuning && !stop_flag_.host()[0] && total > 0)
            tuner_.record(ms * 1e6f / static_cast<float>(total));  // ns per path
        stats.block_threads = persistent ? kPersistentThreads : 256;
        stats.queue_capacity = static_cast<int>(paths_.capacity);
        stats.merge(f);
        stats.nonfinite_samples += c->nonfinite;
        if (total > 0 && ms > 0.0f) timeline_ns_per_path_ = ms * 1e6 / static_cast<double>(total);
    }

    std::vector<uint32_t> sample_counts() const override {
        std::vector<uint32_t> out(static_cast<size_t>(width_) * height_);
        check(cudaMemcpy(out.data(), samples_.get(), out.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost), "read samples");
        return out;
    }

    bool output_on_device() const override { return true; }

    void copy_accumulation(float* rgba) const override {
        DeviceFramebuffer fb{radiance_.get(), samples_.get()};
        uint32_t pixels = static_cast<uint32_t>(width_) * static_cast<uint32_t>(height_);
        check(launch_pack_accumulation(fb, pixels, reinterpret_cast<float4*>(rgba), stream_), "pack accumulation");
        check(cudaStreamSynchronize(stream_), "pack accumulation");
    }

    bool copy_accumulation_to_surface(unsigned long long surface) const override {
        DeviceFramebuffer fb{radiance_.get(), samples_.get()};
        check(launch_pack_accumulation_surface(fb, width_, height_, static_cast<cudaSurfaceObject_t>(surface), stream_),
              "pack accumulation");
        check(cudaStreamSynchronize(stream_), "pack accumulation");
        return true;
    }

    Image resolve() const override {
        size_t n = static_cast<size_t>(width_) * height_;
        std::vector<float> rad(3 * n);
        std::vector<uint32_t> cnt = sample_counts();
        check(cudaMemcpy(rad.data(), radiance_.get(), rad.size() * sizeof(float), cudaMemcpyDeviceToHost), "read framebuffer");
        Image img;
        img.width = width_;
        img.height = height_;
        img.pixels.resize(n);
        for (size_t i = 0; i < n; ++i) {
            float inv = cnt[i] ? 1.0f / static_cast<float>(cnt[i]) : 0.0f;
            img.pixels[i] = Vec3{rad[3 * i] * inv, rad[3 * i + 1] * inv, rad[3 * i + 2] * inv};
        }
        return img;
    }

private:
    // Waits for the frame. A persistent frame is watched: the kernel updates the host-mapped live
    // statistics at every timeline point (at least every 10 ms while any warp iterates), and if none of
    // them changes for kStallSeconds the frame is stopped and reported instead of hanging the process.
    void wait_for_frame() {
        if (mode_ != "persistent" || !opt_.timeline) {
            check(cudaEventSynchronize(stop_), "frame");
            return;
        }
        using clock = std::chrono::steady_clock;
        const LiveStats* live = live_.host();
        auto snapshot = [live] {
            return std::array<long long, 5>{static_cast<long long>(live->rays), static_cast<long long>(live->samples_done),
                                            live->path_queue, live->shadow_queue, live->in_flight};
        };
        auto start = clock::now(), last_change = start;
        auto seen = snapshot();
        for (;;) {
            cudaError_t e = cudaEventQuery(stop_);
            if (e == cudaSuccess) return;
            if (e != cudaErrorNotReady) check(e, "persistent kernel");
            auto now = clock::now();
            if (now - start > std::chrono::milliseconds(1)) std::this_thread::sleep_for(std::chrono::microseconds(200));
            auto current = snapshot();
            if (current != seen) {
                seen = current;
                last_change = now;
            } else if (now - last_change > std::chrono::seconds(kStallSeconds)) {
                report_stall(seen);
            }
        }
    }

    [[noreturn]] void report_stall(const std::array<long long, 5>& s) {
        stop_flag_.host()[0] = 1;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
        bool stopped = false;
        while (std::chrono::steady_clock::now() < deadline) {
            if (cudaEventQuery(stop_) != cudaErrorNotReady) {
                stopped = true;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        std::string what = "persistent kernel made no progress for " + std::to_string(kStallSeconds) + " s (" +
                           std::to_string(s[1]) + " samples done, " + std::to_string(s[4]) + " in flight, path queue " +
                           std::to_string(s[2]) + ", shadow queue " + std::to_string(s[3]) + ")";
        if (stopped) {
            cudaGetLastError();
            reinit_queues();
            throw Error(what + "; the frame was stopped");
        }
        g_device_wedged = true;
        throw Error(what + "; it did not stop either, so the GPU is left to the driver at exit");
    }

    void set_mode(const std::string& mode) {
        if (mode != "persistent" && mode != "relaunch" && mode != "graph" && mode != "megakernel")
            throw Error("--mode " + mode + ": must be persistent, relaunch, graph or megakernel");
        mode_ = mode;
    }

    QueueCounters read_queue(const QueueStorage<PathRecord>& q) const { return read_counters(q.counters.get()); }
    QueueCounters read_queue(const QueueStorage<ShadowRecord>& q) const { return read_counters(q.counters.get()); }
    QueueCounters read_counters(const QueueCounters* d) const {
        QueueCounters h{};
        check(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost), "read queue counters");
        return h;
    }

    void reinit_queues() {
        check(launch_queue_init(paths_.view(), stream_), "queue init");
        check(launch_queue_init(shadows_.view(), stream_), "queue init");
        check(cudaStreamSynchronize(stream_), "queue init");
    }

    GpuCounters* counters_host() {
        if (!counters_host_) counters_host_ = std::make_unique<GpuCounters>();
        return counters_host_.get();
    }

    WavefrontParams wavefront_params(const SceneView& sv, const FrameParams& fp, const DeviceFramebuffer& fb,
                                     uint32_t pixels, int max_depth) {
        uint32_t cap = wave_capacity_;
        if (mode_ != "megakernel") {
            wf_paths_[0].allocate(cap);
            wf_paths_[1].allocate(cap);
            wf_hits_.allocate(cap);
            wf_shadows_.allocate(cap);
            wf_path_counts_.allocate(static_cast<size_t>(max_depth) + 2);
            wf_shadow_counts_.allocate(static_cast<size_t>(max_depth) + 1);
        }
        WavefrontParams wp{};
        wp.scene = sv;
        wp.frame = fp;
        wp.fb = fb;
        wp.counters = counters_.get();
        wp.wave = wave_.get();
        wp.paths[0] = wf_paths_[0].get();
        wp.paths[1] = wf_paths_[1].get();
        wp.hits = wf_hits_.get();
        wp.shadows = wf_shadows_.get();
        wp.path_counts = wf_path_counts_.get();
        wp.shadow_counts = wf_shadow_counts_.get();
        wp.pixels = pixels;
        wp.capacity = cap;
        return wp;
    }

    // The launches of one wave: clear the counts, generate, then extend/shade/shadow per bounce.
    uint64_t enqueue_wave(const WavefrontParams& wp, int max_depth) {
        check(cudaMemsetAsync(wp.path_counts, 0, (max_depth + 2) * sizeof(int), stream_), "clear counts");
        check(cudaMemsetAsync(wp.shadow_counts, 0, (max_depth + 1) * sizeof(int), stream_), "clear counts");
        check(launch_wf_generate(wp, stream_), "generate launch");
        uint64_t launches = 1;
        for (int b = 0; b <= max_depth; ++b) {
            check(launch_wf_extend(wp, b, stream_), "extend launch");
            check(launch_wf_shade(wp, b, stream_), "shade launch");
            check(launch_wf_shadow(wp, b, stream_), "shadow launch");
            launches += 3;
        }
        return launches;
    }

    // A frame still in flight when the buffers or scene change under it: wait, drop its counters.
    void drain() {
        if (!pending_.active) return;
        RenderStats ignored;
        end_accumulate(ignored);
    }

    // Waits for the wave in flight and counts its queue traffic.
    void finish_wave() {
        check(cudaStreamSynchronize(stream_), "wave");
        pending_.wave_unfinished = false;
        if (mode_ != "megakernel") pending_.wf_enqueued += read_wave_counts(pending_.max_depth);
    }

    uint64_t read_wave_counts(int max_depth) {
        std::vector<int> pc(max_depth + 2), sc(max_depth + 1);
        check(cudaMemcpy(pc.data(), wf_path_counts_.get(), pc.size() * sizeof(int), cudaMemcpyDeviceToHost), "read counts");
        check(cudaMemcpy(sc.data(), wf_shadow_counts_.get(), sc.size() * sizeof(int), cudaMemcpyDeviceToHost), "read counts");
        uint64_t n = 0;
        for (int v : pc) n += static_cast<uint64_t>(v);
        for (int v : sc) n += static_cast<uint64_t>(v);
        return n;
    }

    // The graph depends on everything baked into kernel parameters; the wave and its first sample come
    // from device memory, so one graph serves every wave of every frame with the same settings.
    void ensure_graph(const WavefrontParams& wp, int max_depth) {
        // Kernel parameters are baked into the graph: any change of them (camera, size, seed, depth,
        // buffers) needs a new capture.
        std::vector<unsigned char> key(sizeof wp + sizeof max_depth);
        std::memcpy(key.data(), &wp, sizeof wp);
        std::memcpy(key.data() + sizeof wp, &max_depth, sizeof max_depth);
        if (graph_exec_ && key == graph_key_) return;
        drop_graph();
        cudaGraph_t graph = nullptr;
        check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
        try {
            enqueue_wave(wp, max_depth);
        } catch (...) {
            cudaStreamEndCapture(stream_, &graph);
            if (graph) cudaGraphDestroy(graph);
            throw;
        }
        check(cudaStreamEndCapture(stream_, &graph), "cudaStreamEndCapture");
        cudaError_t e = cudaGraphInstantiate(&graph_exec_, graph, 0);
        cudaGraphDestroy(graph);
        check(e, "cudaGraphInstantiate");
        graph_key_ = std::move(key);
    }

    void drop_graph() {
        if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
        graph_exec_ = nullptr;
    }

    GpuDevice dev_;
    CudaOptions opt_;
    std::string mode_ = "persistent";
    cudaStream_t stream_ = nullptr;
    cudaEvent_t start_ = nullptr, stop_ = nullptr;
    const Scene* scene_ = nullptr;
    DeviceScene dscene_;
    int width_ = 0, height_ = 0;
    DeviceArray<float> radiance_;
    DeviceArray<uint32_t> samples_;
    QueueStorage<PathRecord> paths_;
    QueueStorage<ShadowRecord> shadows_;
    DeviceArray<FrameControl> control_;
    DeviceArray<GpuCounters> counters_;
    std::unique_ptr<GpuCounters> counters_host_;
    FrameControl* control_host_ = nullptr;
    WaveParams* wave_host_ = nullptr;
    DeviceArray<WaveParams> wave_;
    MappedHost<LiveStats> live_;
    MappedHost<int> stop_flag_;
    PolicyTuner tuner_;

    // The scheduling policies a persistent frame may use: what the options fix, and otherwise the
    // candidates the tuner times. Frames whose paths fit in one wave of the 128-register variant are
    // latency-bound: that variant and no pooling. Larger ones try 48 and 64 registers and sorted pooling.
    std::vector<PersistentPolicy> policy_candidates(unsigned long long paths) const {
        bool latency = paths <= latency_paths_;
        std::vector<int> variants = opt_.register_variant ? std::vector<int>{opt_.register_variant}
                                    : latency             ? std::vector<int>{kLatencyVariant}
                                                          : std::vector<int>{kThroughputVariant, kMiddleVariant};
        std::vector<int> shadows = opt_.queue_shadows >= 0 ? std::vector<int>{opt_.queue_shadows} : std::vector<int>{1, 0};
        std::vector<int> pools = opt_.pool_stragglers >= 0 ? std::vector<int>{opt_.pool_stragglers}
                                 : latency                 ? std::vector<int>{0}
                                                           : std::vector<int>{0, 2};
        std::vector<PersistentPolicy> out;
        for (int pool : pools)
            for (int v : variants)
                for (int q : shadows) out.push_back(PersistentPolicy{v, q, pool});
        return out;
    }

    // A frame between begin_accumulate() and end_accumulate().
    struct PendingFrame {
        bool active = false;
        bool tuning = false;           // persistent: a trial frame of the policy tuner
        PersistentPolicy policy;       // persistent: how this frame is scheduled
        bool wave_unfinished = false;  // relaunch/graph/megakernel: the last wave is not yet waited for
        unsigned long long total = 0;  // paths
        int max_depth = 0;
        uint64_t launches = 0, wf_enqueued = 0;
        QueueCounters path_before{}, shadow_before{};
    };
    PendingFrame pending_;

    static constexpr int kLatencyVariant = 4, kMiddleVariant = 8, kThroughputVariant = 10;
    std::vector<int> candidate_variants() const {
        if (opt_.register_variant) return {opt_.register_variant};
        return {kLatencyVariant, kMiddleVariant, kThroughputVariant};
    }
    std::map<int, int> variant_blocks_;  // grid size of each variant this backend may launch
    unsigned long long latency_paths_ = 0;  // frames of at most this many paths fit in one wave of the latency variant
    uint32_t wave_capacity_ = 0;
    unsigned timeline_interval_ns_ = 1000;
    double timeline_ns_per_path_ = 6.0;  // first frames: about what an H200 takes on Crytek Sponza 1080p
    DeviceArray<PathRecord> wf_paths_[2];
    DeviceArray<Hit> wf_hits_;
    DeviceArray<ShadowRecord> wf_shadows_;
    DeviceArray<int> wf_path_counts_, wf_shadow_counts_;
    cudaGraphExec_t graph_exec_ = nullptr;
    std::vector<unsigned char> graph_key_;
};

}  // namespace

std::vector<int> persistent_register_variants() {
    return {std::begin(kPersistentVariants), std::end(kPersistentVariants)};
}

CudaOptions cuda_options_from_environment() {
    CudaOptions o;
    auto env_int = [](const char* name, int fallback) {
        const char* v = std::getenv(name);
        return v && *v ? std::atoi(v) : fallback;
    };
    o.fetch_threshold = std::clamp(env_int("PKRT_FETCH_THRESHOLD", o.fetch_threshold), 1, 32);
    o.push_continuations = env_int("PKRT_PUSH_CONTINUATIONS", o.push_continuations) != 0;
    o.queue_shadows = std::clamp(env_int("PKRT_QUEUE_SHADOWS", o.queue_shadows), -1, 1);
    o.queue_capacity = static_cast<uint32_t>(env_int("PKRT_QUEUE_CAPACITY", 0));
    o.register_variant = env_int("PKRT_REGISTER_VARIANT", o.register_variant);
    o.timeline = env_int("PKRT_TIMELINE", o.timeline) != 0;
    o.poll_stop = env_int("PKRT_POLL_STOP", o.poll_stop) != 0;
    o.timeline_points = std::clamp(env_int("PKRT_TIMELINE_POINTS", o.timeline_points), 256, kTimelinePoints);
    o.pool_stragglers = std::clamp(env_int("PKRT_POOL_STRAGGLERS", o.pool_stragglers), -1, 2);
    o.smem_carveout = std::clamp(env_int("PKRT_SMEM_CARVEOUT", o.smem_carveout), -1, 100);
    o.backoff_max_shift = std::clamp(env_int("PKRT_BACKOFF_MAX_SHIFT", o.backoff_max_shift), 0, 12);
    return o;
}

std::unique_ptr<Backend> make_cuda_backend(const GpuDevice& device, const CudaOptions& options) {
    return std::make_unique<CudaBackend>(device, options);
}

}  // namespace pkrt
