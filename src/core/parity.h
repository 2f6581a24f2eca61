#pragma once
// Numerical parity: how far a training run drifts from a reference run (float32 on the same device,
// or the CPU) given the same initial weights and batches. The figures only; engine/parity.h trains.
// No torch here.
#include <optional>
#include <string>
#include <vector>

#include "core/results.h"

namespace accelbench {

// What K steps of training gave: the training loss at each step, and the gradients' L2 norm at the
// last step (before its optimizer step); `error` when the run failed.
struct ParityTrace {
  std::vector<double> losses;
  std::optional<double> grad_norm;
  std::string error;
  int skipped_steps = 0;  // optimizer steps skipped by float16's loss scaling
};

// Relative differences of `run` against `reference`: at the last step, the largest over the steps
// both have, and of the gradient norms. A failed trace (either) gives a Parity with `error` set.
Parity make_parity(const ParityTrace& run, const ParityTrace& reference, const std::string& reference_label);

// "loss +0.12% (max 0.30%), grad norm -1.1% after 10 steps" or "parity: <error>".
std::string describe_parity(const Parity& p);

}  // namespace accelbench
