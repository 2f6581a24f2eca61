#pragma once
// Op profiles of training steps: the profiler's events (host ops, device kernels and copies) as
// plain structs, aggregated into per-op rows (calls, self CPU time, device time), host and device
// totals, host<->device copies, ops that ran on the CPU during an accelerator run and the MPS
// CPU-fallback warnings. No torch here: the kineto glue (src/engine/profiler.cpp) fills a
// ProfileCapture; the rules are written out in docs/profile.md.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace accelbench {

struct ProfileTensor {
  std::string device;               // "cpu", "cuda:0", "mps:0"
  std::string dtype;                // "float", "long", ...
  std::vector<std::int64_t> sizes;
  std::int64_t element_size = 0;    // bytes per element
  std::int64_t bytes() const;       // numel x element size
  bool on_cpu() const { return device.rfind("cpu", 0) == 0; }
};

struct ProfileEvent {
  std::string name;
  std::int64_t start_ns = 0;
  std::int64_t duration_ns = 0;
  // Ran on the device (a kernel, memcpy, memset): device time, never host time.
  bool device_side = false;
  // Host events: the enclosing host event (-1 at the root of a thread).
  // Device events: the host event that launched it (a runtime call or the op itself), -1 if unknown.
  int parent = -1;
  // Runtime calls (cudaLaunchKernel) and device events: the profiler's correlation id (0: none).
  // A device event whose launcher is unknown is matched to the host event with the same id.
  std::uint64_t correlation_id = 0;
  std::vector<ProfileTensor> inputs;  // host ops with shapes recorded: the tensor inputs, in order
  std::int64_t bytes = -1;            // device memcpy: bytes moved when the profiler says (else -1)
};

struct ProfileCapture {
  std::string workload, device;     // "cnn", "cuda:0"
  std::string device_type;          // "cpu", "cuda", "mps", ...
  std::int64_t batch_size = 0;
  int steps = 0;                    // profiled training steps
  int warmup_steps = 0;
  double wall_ns = 0;               // host clock around the profiled steps, closed by a device sync
  bool device_activity = false;     // the profiler records this backend's device work (CUDA, XPU...)
  std::vector<ProfileEvent> events;
  // MPS CPU fallback: warnings "The operator 'aten::x' is not currently supported on the MPS backend
  // and will fall back to run on the CPU" captured during the profiled steps, per op.
  std::map<std::string, std::int64_t> fallback_warnings;
  std::vector<std::string> other_warnings;  // distinct, first few
  std::string trace_path;           // --trace: the Chrome trace written
};

struct OpRow {
  std::string name;
  std::int64_t calls = 0;
  double self_cpu_ns = 0;           // duration minus host children
  double total_cpu_ns = 0;          // inclusive (nested calls of the same op counted once)
  double device_ns = 0;             // device events launched inside this op (innermost aten op)
  std::int64_t device_events = 0;
  double share = 0;                 // of the profiled wall time (see share_basis)
};

struct CopyRow {
  std::string direction;            // "host-to-device", "device-to-host", "device-to-device"
  std::int64_t count = 0;
  std::int64_t bytes = 0;
  double host_ns = 0;               // inclusive host time of the copy ops
};

struct DeviceCopyRow {
  std::string direction;            // from the memcpy event's name: "HtoD", "DtoH", "DtoD", ...
  std::int64_t count = 0;
  std::int64_t bytes = -1;          // -1: the profiler gave no byte counts
  double device_ns = 0;
};

struct CpuOpRow {                   // an op whose tensor inputs were all on the CPU, accelerator run
  std::string name;
  std::int64_t calls = 0;
  double host_ns = 0;               // inclusive
  std::string example_inputs;       // "float[64, 1, 28, 28] cpu, long[64] cpu"
};

struct OpProfile {
  std::string workload, device, device_type;
  std::int64_t batch_size = 0;
  int steps = 0, warmup_steps = 0;
  double wall_ns = 0;
  bool device_activity = false;
  std::string share_basis;          // "self CPU" or "device"
  std::vector<OpRow> ops;           // aten:: ops, sorted by the share basis, descending
  OpRow other_host;                 // every other host event (autograd engine nodes, runtime calls)
  double host_busy_ns = 0;          // sum of the root host events' durations (all threads)
  double host_self_ns = 0;          // sum of self times of all host events (= host_busy_ns)
  std::optional<double> device_busy_ns;  // sum of device events' durations; none when not recorded
  std::vector<CopyRow> copies;      // from aten::copy_ / aten::_local_scalar_dense inputs
  std::vector<DeviceCopyRow> device_copies;  // memcpy events on the device
  std::vector<CpuOpRow> cpu_ops;    // accelerator runs only
  std::map<std::string, std::int64_t> fallback_warnings;
  std::map<std::string, std::int64_t> fallback_suspects;  // ops that called aten::_to_cpu
  std::vector<std::string> other_warnings;
  std::string trace_path;
};

OpProfile analyze_profile(const ProfileCapture& capture);

// The op named in an MPS fallback warning ("The operator 'aten::foo' is not currently supported on
// the MPS backend and will fall back to run on the CPU..."), or "" when the message is not one.
std::string fallback_op_from_warning(const std::string& message);

// "Memcpy HtoD (Pageable -> Device)" -> "HtoD"; "" when the name is not a memcpy.
std::string memcpy_direction(const std::string& event_name);

// Everything, with the top `top` ops (0: all).
nlohmann::json profile_to_json(const OpProfile& p, std::size_t top);

}  // namespace accelbench
