#include "render/cuda/gpu_adaptive.h"

namespace pkrt::cuda {

void GpuAdaptiveRounds::start(const RenderSettings& rs, const AdaptiveSettings& as, bool kernel_plans, int width,
                              int height, const DeviceFramebuffer& fb, cudaStream_t stream) {
    const AdaptiveRule rule = as.rule();
    const size_t n = static_cast<size_t>(width) * height;
    r_ = Rounds{};
    work_.allocate(n);
    tile_class_.allocate(static_cast<size_t>(adaptive_tiles(width)) * adaptive_tiles(height));
    device_.allocate(1);
    AdaptiveDevice& init = *host_.host();
    init = AdaptiveDevice{};
    init.rule = rule;
    init.width = width;
    init.height = height;
    init.work = work_.get();
    init.tile_class = tile_class_.get();
    init.fb = fb;
    init.plan.pixels[0] = static_cast<uint32_t>(n);
    for (int k = 1; k <= kAdaptiveClasses; ++k)
        init.plan.first_path[k] = static_cast<unsigned long long>(n) * rule.min_spp;
    check(cudaMemcpyAsync(device_.get(), &init, sizeof(AdaptiveDevice), cudaMemcpyHostToDevice, stream),
          "adaptive state");
    check(cudaStreamSynchronize(stream), "adaptive state");
    r_.on = true;
    r_.first = true;
    r_.paths = kernel_plans ? 0 : static_cast<unsigned long long>(n) * rule.min_spp;
    r_.rule = rule;
    r_.round = rs;
    r_.round.preview = 1;
    r_.tiles = static_cast<uint32_t>(adaptive_tiles(width) * adaptive_tiles(height));
    r_.step = rule.min_spp;
}

void GpuAdaptiveRounds::attach(GpuFrame& f) const {
    f.record.plan = &device_.get()->plan;
    f.record.work = r_.first ? nullptr : work_.get();
    f.record.plan_paths = r_.paths;  // 0 where the kernel reads the plan
    f.adaptive = device_.get();
    f.job_flags |= kJobAdaptive;
}

void GpuAdaptiveRounds::scan(int width, int height, cudaStream_t stream) {
    check(launch_adaptive_scan(device_.get(), width, height, stream), "adaptive scan");
}

AdaptiveStep GpuAdaptiveRounds::end_round(cudaStream_t stream) {
    const AdaptiveDevice& state = read(stream);
    AdaptiveStep s = step(state.log[r_.ended++ % kAdaptiveLogRounds]);
    r_.first = false;
    r_.paths = state.plan.first_path[kAdaptiveClasses];
    return s;
}

const AdaptiveDevice& GpuAdaptiveRounds::read(cudaStream_t stream) {
    check(cudaMemcpyAsync(host_.host(), device_.get(), sizeof(AdaptiveDevice), cudaMemcpyDeviceToHost, stream),
          "adaptive state");
    check(cudaStreamSynchronize(stream), "adaptive state");
    return *host_.host();
}

AdaptiveStep GpuAdaptiveRounds::step(const AdaptiveRoundLog& log) {
    AdaptiveStep s;
    s.tiles_sampled = r_.tiles;
    s.samples_per_tile = r_.step;
    s.converged_pixels = log.converged_pixels;
    s.more = log.next_paths > 0;
    r_.tiles = log.tiles;
    r_.step = log.next_step;
    return s;
}

}  // namespace pkrt::cuda
