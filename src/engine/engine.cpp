// The torch-free engine interface (engine/engine.h) on libtorch: the CLI's questions answered by
// the device, workload and precision code, and the measurers handed to the drivers.
#include "engine/engine.h"

#include <ATen/Parallel.h>
#include <dlfcn.h>

#include <chrono>
#include <filesystem>
#include <ATen/Version.h>
#include <torch/version.h>
#include <c10/util/Exception.h>

#include "device/device.h"
#include "core/errors.h"
#include "device/step_graph.h"
#include "device/memory_limit.h"
#include "engine/case_measurement.h"
#include "engine/parity.h"
#include "core/sweep_logic.h"
#include "optim/autocast.h"
#include "workloads/workload.h"

namespace accelbench::engine {

namespace {
c10::DeviceType device_type(const std::string& device_id) {
  return device_id == "cpu" ? c10::kCPU : open_device(device_id)->torch_device().type();
}
}  // namespace

std::vector<std::string> workload_names() { return accelbench::workload_names(); }
void check_workload(const std::string& name, const WorkloadInputs& inputs) { make_workload(name, inputs); }
bool workload_has_width(const std::string& name) { return make_workload(name)->info().has_width; }
std::string data_parallel_refusal(const std::string& name) { return make_workload(name)->info().data_parallel_refusal; }
std::vector<WorkloadFacts> workload_facts() {
  std::vector<WorkloadFacts> out;
  for (const auto& name : accelbench::workload_names()) {
    const auto i = make_workload(name)->info();
    out.push_back({name, i.has_width ? i.default_width : 0, i.has_checkpoint, i.variants, i.reads_text, i.dataset,
                   i.data_parallel_refusal.empty(), has_python_twin(name), i.quick_batch_size, i.quick_seq_len});
  }
  return out;
}

std::vector<std::string> resolve_devices(const std::string& list) { return resolve_device_list(list); }
DeviceDescription describe_device(const std::string& device) { return open_device(device)->description(); }
bool is_cpu(const std::string& device_id) { return device_type(device_id) == c10::kCPU; }

std::string canonical_precision(const std::string& name) { return parse_precision(name).name; }
void check_precision(const std::string& precision, const std::string& device_id) {
  check_precision_on_device(parse_precision(precision), device_type(device_id), device_id);
}
std::vector<std::string> precisions_for(const std::string& device_id) {
  return accelbench::precisions_for(device_type(device_id));
}

double probe_step_s(const CaseSpec& spec, const WorkloadInputs& inputs) {
  auto workload = make_workload(spec.workload, inputs);
  auto device = open_device(spec.device);
  const int threads_before = at::get_num_threads();
  if (spec.threads > 0) at::set_num_threads(spec.threads);
  struct RestoreThreads {
    int n;
    ~RestoreThreads() { at::set_num_threads(n); }
  } restore{threads_before};
  Tf32Guard tf32(parse_precision(spec.dtype).tf32);
  std::unique_ptr<TrainingTask> task = workload->build(workload_options_for(spec, *device, inputs));
  const auto timed_step = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    const auto loss = task->step();
    device->synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // The first step pays one-off costs (an accelerator's context, cuDNN's benchmark mode choosing
  // its convolutions: 4-8 s for a 2 ms step on the H200), so a second one is timed, except on the
  // CPU when the first took a second or more (the CPU's one-off costs are small; its slow steps long).
  const double first = timed_step();
  const double step = first < 1.0 || !device->is_cpu() ? timed_step() : first;
  task.reset();
  device->empty_cache();  // the rounds' own processes get the device's memory back
  return step;
}

std::string graphs_refusal(const std::string& device_id) {
  const auto refusal = step_graph_refusal(c10::Device(device_id).type());
  return refusal.empty() ? refusal : device_id + ": " + refusal;
}

void validate_case(const CaseSpec& spec, const WorkloadInputs& inputs) {
  if (spec.graphs && !spec.device.empty())
    if (const auto refusal = graphs_refusal(spec.device); !refusal.empty()) throw UsageError("--graphs: " + refusal);
  WorkloadOptions check;
  check.dtype = spec.dtype;
  check.width = spec.width;
  check.checkpoint = spec.checkpoint;
  check.graphs = spec.graphs;
  check.inputs = inputs;
  validate_workload_options(*make_workload(spec.workload, inputs), check);
}

int host_threads() { return at::get_num_threads(); }

void check_memory_limit(const std::string& device_id, std::uint64_t bytes) {
  accelbench::check_memory_limit(describe_device(device_id), bytes);
}
void apply_memory_limit(const std::string& device_id, std::uint64_t bytes) {
  accelbench::apply_memory_limit(*open_device(device_id), bytes);
}

TorchRuntime torch_runtime() {
  TorchRuntime t;
  t.version = TORCH_VERSION;
  t.headers_major = TORCH_VERSION_MAJOR;
  t.headers_minor = TORCH_VERSION_MINOR;
  t.cpu_capability = at::get_cpu_capability();
  t.intra_op_threads = at::get_num_threads();
  t.inter_op_threads = static_cast<int>(at::get_num_interop_threads());
  t.build_config = at::show_config();
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&at::get_num_threads), &info) != 0 && info.dli_fname)
    t.library_dir = std::filesystem::path(info.dli_fname).lexically_normal().parent_path().string();
  return t;
}

std::string torch_error_message(const std::exception& e) {
  const auto* torch_error = dynamic_cast<const c10::Error*>(&e);
  return torch_error ? torch_error->what_without_backtrace() : std::string();
}

std::unique_ptr<CaseMeasurer> in_process_measurer() { return std::make_unique<InProcessMeasurer>(); }
std::unique_ptr<ParityTrainer> parity_trainer() { return std::make_unique<EngineParityTrainer>(); }

}  // namespace accelbench::engine
