#include "engine/torch_info.h"
#include "core/environment.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <fmt/format.h>
#include <torch/version.h>

#include <cstdlib>

#include "core/build_info.h"
#include "core/system_info.h"
#include "device/device.h"

namespace accelbench {

RunContext collect_context(const nlohmann::json& settings) {
  RunContext c;
  c.accelbench_version = accelbench_version();
  c.git_commit = accelbench_git_commit();
  c.timestamp_utc = utc_timestamp_now();
  const auto h = read_host_info();
  c.host = h.host;
  c.os = h.os;
  c.kernel = h.kernel;
  c.arch = h.arch;
  c.cpu_model = h.cpu_model;
  c.physical_cores = h.physical_cores;
  c.logical_cores = h.logical_cores;
  c.memory_bytes = h.memory_bytes;
  c.compiler = h.compiler;
  c.torch_version = TORCH_VERSION;
  c.cpu_capability = at::get_cpu_capability();
  c.parallel_backend = fmt::format("{} intra-op threads, {} inter-op threads", at::get_num_threads(),
                                   at::get_num_interop_threads());
  for (const auto& b : backend_status())
    c.backends[b.name] = {{"available", b.available}, {"detail", b.detail}};
  c.devices = list_devices();
  c.settings = settings;
  for (const auto& w : timing_environment_warnings()) c.warnings.push_back(w.problem + " (" + w.fix + ")");
  return c;
}

std::vector<EnvironmentWarning> timing_environment_warnings() {
  std::vector<EnvironmentWarning> out;
  const auto env = env_string;
  if (env("CUDA_LAUNCH_BLOCKING") == "1")
    out.push_back({"CUDA_LAUNCH_BLOCKING=1 makes every kernel launch synchronous and GPU timings too slow",
                   "unset CUDA_LAUNCH_BLOCKING"});
  if (!env("PYTORCH_NO_CUDA_MEMORY_CACHING").empty() && env("PYTORCH_NO_CUDA_MEMORY_CACHING") != "0")
    out.push_back({"PYTORCH_NO_CUDA_MEMORY_CACHING disables the caching allocator: every allocation hits the driver",
                   "unset PYTORCH_NO_CUDA_MEMORY_CACHING"});
  const auto read = read_host_info();
  for (const char* var : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}) {
    const auto v = env(var);
    if (v.empty()) continue;
    const int n = std::atoi(v.c_str());
    if (n > 0 && read.physical_cores > 0 && n < read.physical_cores)
      out.push_back({fmt::format("{}={} limits the CPU to {} of its {} cores", var, v, n, read.physical_cores),
                     fmt::format("unset {} or use --threads to choose on purpose", var)});
  }
  if (env("PYTORCH_ENABLE_MPS_FALLBACK") == "1")
    out.push_back({"PYTORCH_ENABLE_MPS_FALLBACK=1 silently runs unsupported MPS ops on the CPU",
                   "fine for running, but timings then include CPU fallbacks; check with accelbench profile"});
  if (env("TORCH_SHOW_CPP_STACKTRACES") == "1")
    out.push_back({"TORCH_SHOW_CPP_STACKTRACES=1 makes every error slow to build", "unset TORCH_SHOW_CPP_STACKTRACES"});
  return out;
}

}  // namespace accelbench
