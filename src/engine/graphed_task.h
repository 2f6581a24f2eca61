#pragma once
// --graphs: a training task whose step is one replay of a device graph of another task's whole
// step (forward, loss, backward, optimizer), captured once after eager warm-up steps on the
// capture stream. The measurement engine times it like any task (engine/case_measurement.cpp).
#include <c10/core/Device.h>

#include <memory>

#include "workloads/workload.h"

namespace accelbench {

// Puts `task` in graph mode, runs `eager_steps` eager steps on the capture stream, captures
// task->captured_step() and returns the task that replays it. Throws CaseError with the reason when
// the device cannot capture graphs or the step cannot be captured (a host synchronization inside
// it, say): a case asked for with --graphs is never run eagerly instead.
std::unique_ptr<TrainingTask> capture_training_step(std::unique_ptr<TrainingTask> task, c10::Device device,
                                                    int eager_steps = 3);

}  // namespace accelbench
