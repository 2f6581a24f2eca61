#include "engine/parity.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <torch/torch.h>

#include "core/errors.h"
#include "device/device.h"
#include "engine/case_measurement.h"
#include "optim/autocast.h"
#include "workloads/workload.h"

namespace accelbench {

ParityTrace train_for_parity(const CaseSpec& spec, const Workload& workload, Device& device, const MeasureOptions& opt,
                             int steps) {
  ParityTrace trace;
  try {
    Tf32Guard tf32(parse_precision(spec.dtype).tf32);
    if (spec.threads > 0) at::set_num_threads(spec.threads);
    auto wo = workload_options_for(spec, device, opt.inputs);
    wo.inputs.workers = -1;  // staged batches: the same ones on every device
    wo.dropout = false;
    auto task = workload.build(wo);
    for (int k = 1; k <= steps; ++k) {
      at::Tensor loss;
      if (task->supports_phases()) {
        loss = task->forward_loss();
        task->backward(loss);
        if (k == steps) trace.grad_norm = task->gradient_norm();
        task->optimizer_step();
        if (task->last_step_skipped()) ++trace.skipped_steps;
      } else {
        loss = task->step();
      }
      trace.losses.push_back(loss.item<double>());
    }
    task.reset();
  } catch (const UsageError&) {
    throw;
  } catch (const c10::Error& e) {
    const std::string msg = e.what_without_backtrace();
    trace.error = msg.substr(0, msg.find('\n'));
  } catch (const std::exception& e) {
    trace.error = e.what();
  }
  device.empty_cache();
  return trace;
}

ParityTrace EngineParityTrainer::train(const CaseSpec& spec, const MeasureOptions& options, int steps) {
  auto workload = make_workload(spec.workload, options.inputs);
  auto device = open_device(spec.device);
  return train_for_parity(spec, *workload, *device, options, steps);
}

}  // namespace accelbench
