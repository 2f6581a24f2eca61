#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <algorithm>

#include "core/errors.h"
#include "core/lists.h"
#include "core/model_spec.h"
#include "workloads/workload.h"

namespace accelbench {

// The built-in workloads, one file each (mlp.cpp, ...).
std::unique_ptr<Workload> make_mlp_workload();
std::unique_ptr<Workload> make_cnn_workload();
std::unique_ptr<Workload> make_transformer_workload();
std::unique_ptr<Workload> make_resnet18_workload();
std::unique_ptr<Workload> make_bert_base_workload();
std::unique_ptr<Workload> make_dcgan_workload();
// Test-only workloads (test_workloads.cpp), listed only when ACCELBENCH_TEST_WORKLOADS=1.
std::unique_ptr<Workload> make_test_abort_workload();
std::unique_ptr<Workload> make_test_oom_workload();
std::unique_ptr<Workload> make_test_sync_workload();

namespace {
struct Entry {
  const char* name;
  std::function<std::unique_ptr<Workload>()> make;
  bool python_twin = false;  // python/accelbench_worker/models.py trains its twin (--impl python)
};
const std::vector<Entry>& entries() {
  static const std::vector<Entry> e = [] {
    std::vector<Entry> v = {
        {"mlp", make_mlp_workload, true},
        {"cnn", make_cnn_workload, true},
        {"transformer", make_transformer_workload, true},
        {"resnet18", make_resnet18_workload, true},
        {"bert-base", make_bert_base_workload, true},
        {"dcgan", make_dcgan_workload, true},
    };
    const char* test = std::getenv("ACCELBENCH_TEST_WORKLOADS");
    if (test && std::strcmp(test, "1") == 0) {
      v.push_back({"test-abort", make_test_abort_workload});
      v.push_back({"test-oom", make_test_oom_workload});
      v.push_back({"test-sync", make_test_sync_workload});
    }
    return v;
  }();
  return e;
}

// Workloads registered by a program built on the installed package (include/accelbench/accelbench.h),
// after the built-ins. Filled by static initializers, before main.
std::vector<std::pair<std::string, WorkloadFactory>>& registered() {
  static std::vector<std::pair<std::string, WorkloadFactory>> r;
  return r;
}
}  // namespace

bool register_workload(const std::string& name, WorkloadFactory make) {
  registered().emplace_back(name, std::move(make));
  return true;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& e : entries()) names.push_back(e.name);
  for (const auto& r : registered()) names.push_back(r.first);
  return names;
}

bool has_python_twin(const std::string& name) {
  return std::any_of(entries().begin(), entries().end(), [&](const Entry& e) { return e.python_twin && name == e.name; });
}

std::unique_ptr<Workload> make_workload(const std::string& name, const WorkloadInputs& inputs) {
  for (const auto& e : entries())
    if (name == e.name) return e.make();
  for (const auto& r : registered())
    if (name == r.first) return r.second();
  if (!inputs.model_file.empty() && name == model_file_case_name(inputs.model_file)) return make_scripted_model_workload(name);
  throw UsageError(fmt::format("unknown model '{}'; available: {}", name, fmt::join(workload_names(), ", ")));
}

namespace {
// "mlp", "transformer and bert-base": the names of the workloads whose info has `trait`.
std::string names_with(bool WorkloadInfo::*trait) {
  std::vector<std::string> names;
  for (const auto& name : workload_names())
    if (make_workload(name)->info().*trait) names.push_back(name);
  return join_as_prose(names, " and ");
}
}  // namespace

void validate_workload_options(const Workload& workload, const WorkloadOptions& options) {
  const auto info = workload.info_for(options);
  if (options.width != 0 && !info.has_width)
    throw UsageError(fmt::format("--width applies to the {} only, not to {}", names_with(&WorkloadInfo::has_width), info.name));
  if (options.width < 0) throw UsageError(fmt::format("--width must be positive (got {})", options.width));
  if (options.checkpoint && !info.has_checkpoint)
    throw UsageError(fmt::format("--checkpoint applies to {} only, not to {}", names_with(&WorkloadInfo::has_checkpoint), info.name));
  if (options.graphs && !info.graph_refusal.empty())
    throw UsageError(fmt::format("--graphs: {} cannot be captured as a graph: {}", info.name, info.graph_refusal));
  if (options.graphs && options.checkpoint)
    throw UsageError("--graphs with --checkpoint: the recompute restores the random generator's state from the host, "
                     "which a graph capture cannot hold");
  workload.validate(options);
}

}  // namespace accelbench
