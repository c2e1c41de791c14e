// The one switch from a mode to its scheduler (scheduler.h).
#include "render/cuda/scheduler.h"

namespace pkrt::cuda {

int max_outstanding(SchedulerMode mode) { return mode == SchedulerMode::kResident ? kResidentRingSlots - 1 : 1; }

bool holds_device_between_frames(SchedulerMode mode) { return mode == SchedulerMode::kResident; }

bool plans_rounds(SchedulerMode mode) { return mode == SchedulerMode::kResident; }

std::unique_ptr<GpuScheduler> make_scheduler(SchedulerMode mode, const GpuDevice& device,
                                             const SchedulerOptions& options) {
    switch (mode) {
        case SchedulerMode::kPersistent: return make_persistent_scheduler(device, options);
        case SchedulerMode::kRelaunch: return make_wavefront_scheduler(false, options);
        case SchedulerMode::kGraph: return make_wavefront_scheduler(true, options);
        case SchedulerMode::kMegakernel: return make_megakernel_scheduler(options);
        case SchedulerMode::kResident: return make_resident_scheduler(device, options);
    }
    throw Error("internal: an unknown scheduler mode");
}

}  // namespace pkrt::cuda
