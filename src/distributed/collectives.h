#pragma once
// The Collectives seam: what data-parallel training asks of a process group. One rank per process
// (NCCL over c10d, nccl_collectives.cpp) or ranks as threads of one process (fake_collectives.h,
// for unit tests without GPUs). Torch-side: the tensors are at::Tensor.
#include <ATen/core/Tensor.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/scale_records.h"  // Rendezvous

namespace accelbench {

// An asynchronous collective. wait(): the result is in place for work queued after it on this
// rank's current stream (CUDA: the stream waits, the host does not); throws when the collective
// failed or timed out.
class CollectiveWork {
 public:
  virtual ~CollectiveWork() = default;
  virtual void wait() = 0;
  // Seconds the collective ran on the device, once it has completed (the device synchronized past
  // it); nullopt where the backend cannot tell.
  virtual std::optional<double> duration_s() { return std::nullopt; }
};

class Collectives {
 public:
  virtual ~Collectives() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual std::string backend() const = 0;  // "nccl", "fake"
  // Sum over the ranks, in place, of a flat contiguous tensor; asynchronous. Every rank must call
  // the collectives in the same order with tensors of the same size.
  virtual std::shared_ptr<CollectiveWork> allreduce_sum(at::Tensor& flat) = 0;
  // `root`'s tensors copied into every rank's, in place; returns when done on this rank's stream.
  virtual void broadcast(std::vector<at::Tensor>& tensors, int root) = 0;
  virtual void barrier() = 0;
  // From now on, collectives record their device time (CollectiveWork::duration_s). Off at first:
  // with NCCL the timing events cost host time on every collective (5-10% of a launch-bound step
  // on the H200, docs/results.md), so steps that are timed run without it.
  virtual void enable_timing() {}
};

// Whether every rank says yes (one small allreduce; synchronizes). Used so that all ranks take the
// same decision (warm-up over, enough samples) and so run the same number of collectives.
bool all_ranks_agree(Collectives& c, bool mine, const c10::Device& device);
// `root`'s value on every rank (one small broadcast; synchronizes).
double broadcast_value(Collectives& c, double value, int root, const c10::Device& device);

// Whether this build has the NCCL process group (libtorch with CUDA and c10d NCCL).
bool nccl_available();
// Joins the group through a c10d TCPStore (rank 0 serves it) and creates a ProcessGroupNCCL on
// cuda:local_rank. Throws std::runtime_error where NCCL is not built in.
std::unique_ptr<Collectives> make_nccl_collectives(const Rendezvous& info);

}  // namespace accelbench
