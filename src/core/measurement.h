#pragma once
// The seam between what decides which cases to measure (the suite, the sweeps: no torch) and what
// measures one case (engine/case_measurement.h in this process, drivers/isolated_measurer.h in a
// child process, a fake in the tests). Progress events flow back to the printers (report/printer.h).
#include <cstddef>
#include <functional>
#include <string>

#include "core/options.h"
#include "core/parity.h"
#include "core/results.h"

namespace accelbench {

struct ProgressEvent {
  const CaseSpec* spec = nullptr;
  std::string stage;                  // "build", "warm-up", "measure", "full epoch"
  std::size_t samples = 0;
  double relative_half_width = 0;
  double case_elapsed_s = 0;
  double case_allowance_s = 0;
};
using ProgressFn = std::function<void(const ProgressEvent&)>;

// Measures one case. Never throws for what goes wrong inside the case (out of memory, a diverging
// loss, a backend error, a crashed child): the result says so. Bad input (UsageError) passes through.
class CaseMeasurer {
 public:
  virtual ~CaseMeasurer() = default;
  virtual CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) = 0;
};

// Trains K identical steps for numerical parity (engine/parity.h on libtorch; a fake in the tests):
// same seeded weights and batches, dropout off. Never throws for what goes wrong inside: the trace
// carries the error.
class ParityTrainer {
 public:
  virtual ~ParityTrainer() = default;
  virtual ParityTrace train(const CaseSpec& spec, const MeasureOptions& options, int steps) = 0;
};

}  // namespace accelbench
