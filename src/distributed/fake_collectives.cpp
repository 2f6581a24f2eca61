#include "distributed/fake_collectives.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <stdexcept>

namespace accelbench {

FakeWorld::FakeWorld(int world_size, std::chrono::milliseconds timeout)
    : world_(world_size), timeout_(timeout), next_(static_cast<std::size_t>(world_size), 0),
      calls_(static_cast<std::size_t>(world_size)) {
  if (world_size < 1) throw std::invalid_argument("FakeWorld: world size must be at least 1");
}

std::vector<FakeWorld::Call> FakeWorld::calls_of(int rank) const {
  std::lock_guard lock(mutex_);
  return calls_.at(static_cast<std::size_t>(rank));
}

std::size_t FakeWorld::contribute(int rank, const std::string& kind, const at::Tensor& t) {
  std::lock_guard lock(mutex_);
  const auto r = static_cast<std::size_t>(rank);
  const std::size_t index = next_[r]++;
  if (slots_.size() <= index) slots_.resize(index + 1);
  auto& slot = slots_[index];
  const std::int64_t numel = t.defined() ? t.numel() : 0;
  if (slot.numel < 0) {
    slot.kind = kind;
    slot.numel = numel;
    slot.contributions.resize(static_cast<std::size_t>(world_));
  } else if (slot.kind != kind || slot.numel != numel) {
    throw std::runtime_error(fmt::format("collective mismatch at #{}: rank {} called {} of {} elements, another rank {} of {}",
                                         index, rank, kind, numel, slot.kind, slot.numel));
  }
  slot.contributions[r] = t.defined() ? t.detach().clone() : at::Tensor();
  ++slot.arrived;
  calls_[r].push_back({kind, numel});
  cv_.notify_all();
  return index;
}

at::Tensor FakeWorld::result(std::size_t index, int root) {
  std::unique_lock lock(mutex_);
  const bool done = cv_.wait_for(lock, timeout_, [&] { return slots_[index].arrived == world_; });
  if (!done)
    throw std::runtime_error(fmt::format("collective #{} timed out after {} ms: {} of {} ranks arrived", index,
                                         timeout_.count(), slots_[index].arrived, world_));
  auto& slot = slots_[index];
  if (!slot.result.defined() && slot.kind == "allreduce") {
    slot.result = slot.contributions[0].clone();
    for (int r = 1; r < world_; ++r) slot.result.add_(slot.contributions[static_cast<std::size_t>(r)]);
  }
  return slot.kind == "allreduce" ? slot.result : slot.contributions[static_cast<std::size_t>(root)];
}

namespace {
class FakeWork final : public CollectiveWork {
 public:
  FakeWork(FakeWorld& world, std::size_t index, at::Tensor target, std::function<at::Tensor(std::size_t)> fetch)
      : index_(index), target_(std::move(target)), fetch_(std::move(fetch)) {
    (void)world;
  }
  void wait() override {
    if (done_) return;
    torch::NoGradGuard no_grad;
    target_.copy_(fetch_(index_));
    done_ = true;
  }

 private:
  std::size_t index_;
  at::Tensor target_;
  std::function<at::Tensor(std::size_t)> fetch_;
  bool done_ = false;
};
}  // namespace

std::shared_ptr<CollectiveWork> FakeCollectives::allreduce_sum(at::Tensor& flat) {
  const auto index = world_.contribute(rank_, "allreduce", flat);
  return std::make_shared<FakeWork>(world_, index, flat, [this](std::size_t i) { return world_.result(i, 0); });
}

void FakeCollectives::broadcast(std::vector<at::Tensor>& tensors, int root) {
  torch::NoGradGuard no_grad;
  for (auto& t : tensors) {
    const auto index = world_.contribute(rank_, "broadcast", t);
    t.copy_(world_.result(index, root));
  }
}

void FakeCollectives::barrier() {
  const auto index = world_.contribute(rank_, "barrier", at::Tensor());
  world_.result(index, 0);
}

}  // namespace accelbench
