#pragma once
// Ranks as threads of one process, for unit tests without GPUs or a collective backend (the CPU
// wheel has neither Gloo headers nor NCCL): a FakeWorld of N ranks, one FakeCollectives per rank
// (each used from its own thread). Collectives meet by their sequence number on each rank; a wait
// that no other rank answers within the timeout throws, as NCCL's watchdog would end it.
#include <condition_variable>
#include <mutex>

#include "distributed/collectives.h"

namespace accelbench {

class FakeWorld {
 public:
  explicit FakeWorld(int world_size, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  int world_size() const { return world_; }

  // What each collective was, in the order rank 0 called them (for the tests): kind and elements.
  struct Call {
    std::string kind;  // "allreduce", "broadcast", "barrier"
    std::int64_t numel = 0;
  };
  std::vector<Call> calls_of(int rank) const;

 private:
  friend class FakeCollectives;
  struct Slot {
    std::string kind;
    std::int64_t numel = -1;
    std::vector<at::Tensor> contributions;  // by rank
    int arrived = 0;
    at::Tensor result;
  };
  // Adds `rank`'s contribution to its next collective; returns the slot's index.
  std::size_t contribute(int rank, const std::string& kind, const at::Tensor& t);
  // Blocks until every rank contributed to slot `index`; returns the sum (or rank `root`'s tensor).
  at::Tensor result(std::size_t index, int root);

  int world_;
  std::chrono::milliseconds timeout_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Slot> slots_;
  std::vector<std::size_t> next_;  // per rank: its next collective's index
  std::vector<std::vector<Call>> calls_;
};

class FakeCollectives final : public Collectives {
 public:
  FakeCollectives(FakeWorld& world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int world_size() const override { return world_.world_size(); }
  std::string backend() const override { return "fake"; }
  std::shared_ptr<CollectiveWork> allreduce_sum(at::Tensor& flat) override;
  void broadcast(std::vector<at::Tensor>& tensors, int root) override;
  void barrier() override;

 private:
  FakeWorld& world_;
  int rank_;
};

}  // namespace accelbench
