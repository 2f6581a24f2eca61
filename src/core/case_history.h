#pragma once
// A case's history as the stored runs give it: the points (one per stored run) and the filter that
// selects them. Read by the reports, the history's change detector and the run-to-run interval;
// filled by the history database (store/history_store.h). No torch here.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/results.h"

namespace accelbench {

// A case's median in one stored run: a point of its history.
struct CaseHistoryPoint {
  std::int64_t run_id = 0;
  std::string run_uid, timestamp_utc, torch_version, host;
  std::string workload, device, dtype;
  std::int64_t batch_size = 0;
  int threads = 0;
  std::size_t n = 0;
  double median = 0, ci_low = 0, ci_high = 0;  // seconds per training step
  bool next_run_range = false;  // ci_low/ci_high are the next run's range (run_to_run.widened), not the run's precision
  // What else tells one case from another (from the stored case's JSON; 0/false in older runs).
  std::int64_t width = 0;
  bool checkpoint = false, graphs = false;
  double device_busy_fraction = -1;  // the device's busy share of the step (-1: not measured)
  std::string impl, compile;  // the loop that trained it ("" the C++ engine, "python") and its compile mode
  std::size_t rounds = 0;     // its rounds (0: not stored)
  // The machine checks that found its run's timings distorted, ", "-separated ("load, busy
  // processes"; RunContext::distorted_by); empty: none.
  std::string distorted_by;
  // model_label() of its case: "mlp", "mlp[graphs]", "mlp[python]".
  std::string model() const { return model_label(CaseSpec{workload, "", "", 0, 0, width, checkpoint, graphs, impl, compile}); }
  // Whether this point is a measurement of `spec`'s case (model, how it is launched, device, dtype, batch).
  bool is_case(const CaseSpec& spec) const {
    return workload == spec.workload && width == spec.width && checkpoint == spec.checkpoint && graphs == spec.graphs &&
           impl == spec.impl && compile == spec.compile && device == spec.device && dtype == spec.dtype && batch_size == spec.batch_size;
  }
};

struct HistoryFilter {
  std::string workload;  // empty: any
  std::string device;    // empty: any; "cuda" matches "cuda:0", "cuda:1"...
  std::size_t limit = 0; // 0: no limit (most recent first when limited)
};

}  // namespace accelbench
