#pragma once
// The engine as the command line sees it: what the CLI must ask of libtorch (which workloads,
// devices and precisions exist, whether a case's inputs are valid, the host's threads) and the
// measurers it hands to the drivers. Declarations only, no torch: the CLI never includes an ATen,
// c10 or torch header. Implemented in engine/engine.cpp on libtorch.
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/measurement.h"
#include "core/options.h"
#include "core/peak_records.h"
#include "core/results.h"
#include "core/scale_records.h"

namespace accelbench::engine {

// Workloads, in the article's order; check_workload throws UsageError naming them when unknown
// (a model file's case name is known when `inputs` name the file: --model-file).
std::vector<std::string> workload_names();
void check_workload(const std::string& name, const WorkloadInputs& inputs = {});
// Whether the workload has a hidden width (--width) or blocks to checkpoint (--checkpoint).
bool workload_has_width(const std::string& name);
// Why the workload cannot be trained data-parallel (`scale`, `run --gpus`); empty when it can.
std::string data_parallel_refusal(const std::string& name);
// What the command line says of each workload and checks for it (its WorkloadInfo, and its entry
// in workloads/registry.cpp): the help texts' lists of names, the flags it reads, its --quick size.
struct WorkloadFacts {
  std::string name;
  std::int64_t default_width = 0;     // --width: its hidden width without it; 0: it has none to set
  bool has_checkpoint = false;        // --checkpoint
  std::vector<std::string> variants;  // --variant's values, the default first; empty: none
  bool reads_text = false;            // --text and --seq-len
  std::string dataset;                // what --data-dir holds for it ("Fashion-MNIST IDX files"); "": none
  bool data_parallel = false;         // `scale`, `run --gpus`
  bool python_twin = false;           // --impl python
  // --quick: its batch and sequence length where the default case takes too long; 0: the run's own.
  std::int64_t quick_batch_size = 0;
  std::int64_t quick_seq_len = 0;
};
std::vector<WorkloadFacts> workload_facts();  // in workload_names()'s order

// Devices: "all" or a comma list to canonical ids ("cpu", "cuda:0"); UsageError on an unknown or
// absent device, naming those available.
std::vector<std::string> resolve_devices(const std::string& list);
DeviceDescription describe_device(const std::string& device);   // opens it: UsageError when absent
bool is_cpu(const std::string& device_id);

// Precisions: the canonical name ("fp16" -> "float16"), UsageError when unknown; whether the device
// runs it (UsageError: tfloat32 off CUDA, ...); every precision the device runs, in sweep order.
std::string canonical_precision(const std::string& name);
void check_precision(const std::string& precision, const std::string& device_id);
std::vector<std::string> precisions_for(const std::string& device_id);

// --graphs: why `device_id` cannot capture a training step as a graph ("" when it can: CUDA in a
// build with the CUDA-specific code).
std::string graphs_refusal(const std::string& device_id);

// The checks of a case's inputs before anything is measured (--width, --checkpoint where the
// workload has them, data files, variants, the text file). UsageError (one line).
void validate_case(const CaseSpec& spec, const WorkloadInputs& inputs);

// Time promises before measuring: seconds of one training step of the case, in this process (the
// model built on its device, one step timed up to a device synchronization; when that first step
// is under a second, a second one, since one-time costs dominate the first). Throws what building
// or training throws (out of memory, a missing data file): the measurement will say it again.
double probe_step_s(const CaseSpec& spec, const WorkloadInputs& inputs);

// CPU intra-op threads torch uses now (the default: one per physical core).
int host_threads();

// --memory-limit: checks it against the device (UsageError) and, for in-process measurement,
// caps this process's allocator.
void check_memory_limit(const std::string& device_id, std::uint64_t bytes);
void apply_memory_limit(const std::string& device_id, std::uint64_t bytes);

// libtorch as it runs here (for `doctor`).
struct TorchRuntime {
  std::string version;                  // "2.13.0"
  int headers_major = 0, headers_minor = 0;  // the headers this binary was built against
  std::string cpu_capability;           // "AVX512"
  int intra_op_threads = 0, inter_op_threads = 0;
  std::string build_config;             // at::show_config()
  std::string library_dir;              // the folder of the libtorch loaded (a wheel's torch/lib); "" unknown
};
TorchRuntime torch_runtime();

// When `e` is a torch error (c10::Error), its message without the C++ backtrace; else "".
std::string torch_error_message(const std::exception& e);

// Data-parallel scaling (`scale`, engine/scale_engine.cpp): the CUDA GPUs visible here, whether
// this build has c10d's NCCL process group, and one rank: joins the group at `rendezvous`
// (TCPStore + ProcessGroupNCCL), measures, writes its result to `out_path`. Never throws for a
// failed measurement (the result's error says why).
int cuda_device_count();
bool has_nccl();
RankMeasurement run_scale_rank(const ScaleRankRequest& request, const Rendezvous& rendezvous, const std::string& out_path);

// `accelbench peak` (engine/peak_measurement.cpp): the device's ceilings, measured in this process;
// `progress` (may be empty) is told each ceiling before it is measured. A ceiling that cannot be
// measured (out of memory, no pinned memory on the backend) is recorded with the reason.
struct PeakSettings {
  bool quick = false;  // fewer, shorter samples and smaller buffers (a few seconds on any device)
};
DeviceCeilings measure_ceilings(const std::string& device_id, const PeakSettings& settings,
                                const std::function<void(const std::string&)>& progress);

// Measures in this process (each case opens its workload and device).
std::unique_ptr<CaseMeasurer> in_process_measurer();
std::unique_ptr<ParityTrainer> parity_trainer();

}  // namespace accelbench::engine
