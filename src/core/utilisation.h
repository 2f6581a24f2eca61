#pragma once
// Utilisation per case: the case's achieved FLOP/s against the device's measured matmul ceiling for
// its precision (`accelbench peak`, stored in the history), and a verdict in plain words from that
// and the device-busy share (rounds issue: the queue held, core/results.h), with its evidence:
//   launch-bound   the device is busy under half the step (kLaunchBoundShare): the host's launches
//                  set the speed;
//   compute-bound  busy at least half the step and at least half the matmul ceiling;
//   small-kernel-bound  busy at least half the step, under half the matmul ceiling, and its kernels
//                  are known (a captured graph's nodes) and average under kSmallKernelS of device
//                  time each: the step is a chain of kernels too small to fill the device, whose
//                  fixed costs (start, ramp, tail) dominate; larger batches or fused kernels help,
//                  more bandwidth would not;
//   memory-bound   busy at least half the step but under half the matmul ceiling (and not the
//                  above): the time goes to kernels that are not dense matmuls (element-wise,
//                  normalisation, the optimizer), which move memory rather than compute.
// Without a busy share (the CPU, MPS) only compute-bound can be said (at least half the ceiling).
// No torch here.
#include <string>

#include "core/peak_records.h"
#include "core/results.h"

namespace accelbench {

inline constexpr double kComputeBoundShare = 0.5;
// A kernel of under 10 us: on the H200 a kernel's fixed cost is 2-4 us (docs/peak.md's launch
// figures), and 10 us at the copy ceiling (4.25 TB/s) moves 42 MB, more than any activation of the
// small workloads at batch 64.
inline constexpr double kSmallKernelS = 10e-6;

// The precision whose matmul ceiling applies to the case: ceiling_precision, else its dtype.
const std::string& ceiling_precision_of(const CaseResult& c);

// Sets the case's ceiling, share, verdict and evidence from `ceilings` (a device's, for the run's
// torch). Leaves them empty when the ceilings lack the case's precision or the case has no FLOP count.
void apply_ceilings(CaseResult& c, const DeviceCeilings& ceilings);

// The note of the case's table row: "8% of the bfloat16 matmul ceiling: MEMORY-BOUND", "" when none
// (a launch-bound case's verdict is in its busy-share note already).
std::string utilisation_note(const CaseResult& c);

}  // namespace accelbench
