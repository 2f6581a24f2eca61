// engine.h's data-parallel part: GPUs, NCCL, one rank of `scale`.
#include <ATen/DeviceAccelerator.h>
#include <c10/util/Exception.h>

#include "distributed/collectives.h"
#include "engine/engine.h"
#include "engine/scale_measurement.h"
#include "report/json_report.h"

namespace accelbench::engine {

int cuda_device_count() {
  const auto acc = at::accelerator::getAccelerator(false);
  if (!acc || *acc != c10::kCUDA) return 0;
  return static_cast<int>(at::accelerator::deviceCount());
}

bool has_nccl() { return nccl_available(); }

RankMeasurement run_scale_rank(const ScaleRankRequest& request, const Rendezvous& rendezvous, const std::string& out_path) {
  std::unique_ptr<Collectives> collectives;
  try {
    collectives = make_nccl_collectives(rendezvous);
  } catch (const std::exception& e) {
    RankMeasurement m;
    m.rank = rendezvous.rank;
    m.world_size = rendezvous.world_size;
    m.local_rank = rendezvous.local_rank;
    const auto* torch_error = dynamic_cast<const c10::Error*>(&e);
    std::string msg = torch_error ? torch_error->what_without_backtrace() : e.what();
    m.error = "joining the process group: " + msg.substr(0, msg.find('\n'));
    if (!out_path.empty()) write_json_document(nlohmann::json(m), out_path);
    return m;
  }
  return measure_scale_rank(request, *collectives, rendezvous.local_rank, out_path);
}

}  // namespace accelbench::engine
