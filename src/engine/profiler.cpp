#include "engine/profiler.h"

#include "engine/case_measurement.h"
#include "optim/autocast.h"

#ifdef ACCELBENCH_NO_PROFILER
#include "core/errors.h"
namespace accelbench {
ProfileCapture profile_training(const CaseSpec&, const ProfileOptions&) {
  throw UsageError("profile is not available in this build: libtorch's kineto headers were not found at configure time");
}
}  // namespace accelbench
#else

// libtorch is built with kineto (linked into libtorch_cpu); its profiler headers are read the same way.
#ifndef USE_KINETO
#define USE_KINETO 1
#endif
#include <ATen/Parallel.h>
#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/profiler/collection.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cmath>
#include <mutex>
#include <set>
#include <unordered_map>
#include <variant>

#include <unistd.h>

#include "core/errors.h"
#include "core/safe_write.h"
#include "device/device.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {

namespace pi = torch::profiler::impl;
namespace ap = torch::autograd::profiler;

// Counts the MPS CPU-fallback warnings per op (libtorch-facts section 4). With warn-always on,
// TORCH_WARN_ONCE warns on every call, so the counts are calls, not first occurrences. Warnings
// raised in the autograd engine's device threads are replayed on the thread that called backward().
class FallbackCounter final : public c10::WarningHandler {
 public:
  void process(const c10::Warning& w) override {
    std::lock_guard<std::mutex> lock(mu_);
    const auto& msg = w.msg();
    const auto op = fallback_op_from_warning(msg);
    if (!op.empty()) {
      ++per_op_[op];
      return;
    }
    auto line = msg.substr(0, msg.find('\n'));
    if (line.size() > 300) line = line.substr(0, 300) + "...";
    if (other_.size() < 10 && seen_.insert(line).second) other_.push_back(line);
  }
  std::map<std::string, std::int64_t> per_op() const { return per_op_; }
  std::vector<std::string> other() const { return other_; }

 private:
  std::mutex mu_;
  std::map<std::string, std::int64_t> per_op_;
  std::vector<std::string> other_;
  std::set<std::string> seen_;
};

ProfileTensor to_profile_tensor(const pi::TensorMetadata& t) {
  ProfileTensor p;
  p.device = t.device_.str();
  p.dtype = c10::toString(t.dtype_);
  p.sizes = t.sizes_;
  p.element_size = static_cast<std::int64_t>(c10::elementSize(t.dtype_));
  return p;
}

// The event tree (roots per thread, children nested) as a flat vector with parent indices.
class Flattener {
 public:
  void add_roots(const std::vector<std::shared_ptr<pi::Result>>& roots) {
    for (const auto& r : roots) visit(r, -1);
    // Device events not placed under their launch by the tree: link them through linked_activity_.
    for (const auto& [ptr, i] : index_) {
      auto& e = events_[static_cast<std::size_t>(i)];
      if (!e.device_side || e.parent >= 0) continue;
      if (const auto* k = std::get_if<pi::ExtraFields<pi::EventType::Kineto>>(&ptr->extra_fields_)) {
        if (auto linked = k->linked_activity_.lock()) {
          auto it = index_.find(linked.get());
          if (it != index_.end()) e.parent = it->second;
        }
      }
    }
  }
  std::vector<ProfileEvent> take() { return std::move(events_); }

 private:
  void visit(const std::shared_ptr<pi::Result>& r, int parent) {
    if (!r || index_.count(r.get())) return;
    const int me = static_cast<int>(events_.size());
    index_.emplace(r.get(), me);
    ProfileEvent e;
    e.name = r->name();
    e.start_ns = r->start_time_ns_;
    e.duration_ns = std::max<std::int64_t>(0, r->endTimeNS() - r->start_time_ns_);
    e.device_side = r->deviceType() != c10::kCPU;
    e.parent = parent;
    // Kineto's runtime calls and device events share CUPTI's correlation ids; an op's own id is
    // another counter, so it is left out (no false matches).
    if (std::holds_alternative<pi::ExtraFields<pi::EventType::Kineto>>(r->extra_fields_)) e.correlation_id = r->correlationID();
    if (const auto* op = std::get_if<pi::ExtraFields<pi::EventType::TorchOp>>(&r->extra_fields_)) {
      for (const auto& in : op->inputs_) {
        if (const auto* t = std::get_if<pi::TensorMetadata>(&in)) {
          if (t->dtype_ != c10::ScalarType::Undefined) e.inputs.push_back(to_profile_tensor(*t));
        } else if (const auto* list = std::get_if<std::vector<pi::TensorMetadata>>(&in)) {
          for (const auto& t2 : *list)
            if (t2.dtype_ != c10::ScalarType::Undefined) e.inputs.push_back(to_profile_tensor(t2));
        }
      }
    }
    events_.push_back(std::move(e));
    for (const auto& c : r->children_) visit(c, me);
  }

  std::vector<ProfileEvent> events_;
  std::unordered_map<const pi::Result*, int> index_;
};

// kineto writes the Chrome trace itself, and logs a failure without reporting it: into a temporary
// file first, checked, then through the atomic writer (core/safe_write.h), so that --trace never
// leaves half a trace over an earlier file.
void save_trace(ap::ProfilerResult& result, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto tmp = (fs::temp_directory_path(ec) / fmt::format("accelbench-trace-{}.json", ::getpid())).string();
  result.save(tmp);
  std::string bytes;
  {
    std::ifstream in(tmp, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  fs::remove(tmp, ec);
  if (bytes.empty()) throw std::runtime_error(fmt::format("the Chrome trace could not be written to {}", path));
  write_file_atomically(path, bytes);
}
}  // namespace

ProfileCapture profile_training(const CaseSpec& spec, const ProfileOptions& o) {
  auto workload_ptr = make_workload(spec.workload, o.inputs);
  auto device_ptr = open_device(spec.device);
  const Workload& workload = *workload_ptr;
  Device& device = *device_ptr;
  using Clock = std::chrono::steady_clock;
  // Kineto logs its stages ("profiler_start", "Completed Stage: ...") to stderr; level 6 silences
  // them. A KINETO_LOG_LEVEL set by the user is kept.
  ::setenv("KINETO_LOG_LEVEL", "6", /*overwrite=*/0);
  if (spec.threads > 0) at::set_num_threads(spec.threads);
  ProfileCapture cap;
  cap.workload = spec.workload;
  cap.device = device.id();
  const auto type = device.torch_device().type();
  cap.device_type = c10::DeviceTypeName(type, /*lower_case=*/true);
  cap.batch_size = spec.batch_size;
  cap.steps = o.steps;
  cap.warmup_steps = o.warmup_steps;

  // The workload as measure_case builds it (staged batches, no pipeline).
  auto inputs = o.inputs;
  inputs.workers = -1;
  const auto wo = workload_options_for(spec, device, inputs);
  Tf32Guard tf32(parse_precision(spec.dtype).tf32);  // tfloat32: TF32 matmuls while profiling
  auto task = workload.build(wo);
  for (int i = 0; i < o.warmup_steps; ++i) {
    auto loss = task->step();
    device.synchronize();
    const double v = loss.item<double>();
    if (!std::isfinite(v)) throw CaseError(fmt::format("loss became {} in warm-up step {}", v, i + 1));
  }

  // Kineto records the CPU side everywhere; the device side only where it has an activity type
  // for the backend (CUDA, XPU). MPS has none (libtorch-facts section 5).
  std::set<pi::ActivityType> activities{pi::ActivityType::CPU};
  if (type == c10::kCUDA) activities.insert(pi::ActivityType::CUDA);
  if (type == c10::kXPU) activities.insert(pi::ActivityType::XPU);
  cap.device_activity = activities.size() > 1;
  const pi::ProfilerConfig config(pi::ProfilerState::KINETO, /*report_input_shapes=*/true, /*profile_memory=*/false);
  ap::prepareProfiler(config, activities);  // before enableProfiler, or it crashes (libtorch-facts section 5)

  FallbackCounter counter;
  std::unique_ptr<ap::ProfilerResult> result;
  {
    c10::WarningUtils::WarnAlways warn_always(true);
    c10::WarningUtils::WarningHandlerGuard guard(&counter);
    ap::enableProfiler(config, activities);
    const auto t0 = Clock::now();
    try {
      for (int i = 0; i < o.steps; ++i) task->step();
      device.synchronize();
    } catch (...) {
      ap::disableProfiler();
      throw;
    }
    cap.wall_ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    result = ap::disableProfiler();
  }
  cap.fallback_warnings = counter.per_op();
  cap.other_warnings = counter.other();
  if (!result) throw CaseError("the profiler returned no result");

  Flattener flat;
  flat.add_roots(result->event_tree());
  cap.events = flat.take();
  if (!o.trace_path.empty()) {
    save_trace(*result, o.trace_path);
    cap.trace_path = o.trace_path;
  }
  return cap;
}

}  // namespace accelbench

#endif  // ACCELBENCH_NO_PROFILER
