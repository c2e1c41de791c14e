// The megakernel (kernels/gpu/megakernel.cu): one launch per wave, one thread per path, start to end.
#include "render/cuda/wave_scheduler.h"

namespace pkrt::cuda {

namespace {

class MegakernelScheduler final : public WaveScheduler {
public:
    using WaveScheduler::WaveScheduler;

protected:
    uint64_t enqueue_wave(const WavefrontParams& p, int max_depth, cudaStream_t stream) override {
        (void)max_depth;
        check(launch_megakernel(p, stream), "megakernel launch");
        return 1;
    }
    bool staged() const override { return false; }
};

}  // namespace

std::unique_ptr<GpuScheduler> make_megakernel_scheduler(const SchedulerOptions& options) {
    return std::make_unique<MegakernelScheduler>(options);
}

}  // namespace pkrt::cuda
