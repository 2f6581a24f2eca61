#include "data/batch_loader.h"

#include <chrono>

namespace accelbench {

BatchLoader::BatchLoader(BatchProducer produce, int workers, int prefetch_per_worker, c10::Device device)
    : produce_(std::move(produce)),
      device_(device),
      capacity_(static_cast<std::size_t>(std::max(1, workers * std::max(1, prefetch_per_worker)))) {
  // Pinned host memory lets the copy to a CUDA device run asynchronously.
  pin_ = device_.is_cuda();
  for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { worker_loop(); });
}

BatchLoader::~BatchLoader() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  space_.notify_all();
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void BatchLoader::worker_loop() {
  while (true) {
    std::int64_t index;
    {
      std::unique_lock<std::mutex> lock(mu_);
      space_.wait(lock, [&] {
        return stop_ || next_to_produce_ < next_to_consume_ + static_cast<std::int64_t>(capacity_);
      });
      if (stop_) return;
      index = next_to_produce_++;
    }
    try {
      auto b = produce_(index);
      if (pin_) {
        b.input = b.input.pin_memory();
        b.target = b.target.pin_memory();
        if (b.mask.defined()) b.mask = b.mask.pin_memory();
      }
      std::lock_guard<std::mutex> lock(mu_);
      done_.emplace(index, std::move(b));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      errors_.emplace(index, std::current_exception());
    }
    ready_.notify_all();
  }
}

StagedBatch BatchLoader::to_device(StagedBatch b) const {
  if (device_.is_cpu()) return b;
  b.input = b.input.to(device_, /*non_blocking=*/pin_);
  b.target = b.target.to(device_, /*non_blocking=*/pin_);
  if (b.mask.defined()) b.mask = b.mask.to(device_, /*non_blocking=*/pin_);
  return b;
}

StagedBatch BatchLoader::next(double& wait_s) {
  const auto t0 = std::chrono::steady_clock::now();
  StagedBatch b;
  if (threads_.empty()) {
    b = produce_(next_to_consume_++);
  } else {
    std::unique_lock<std::mutex> lock(mu_);
    const auto want = next_to_consume_;
    ready_.wait(lock, [&] { return errors_.count(want) > 0 || done_.count(want) > 0; });
    if (auto e = errors_.find(want); e != errors_.end()) {
      ++next_to_consume_;  // that batch is lost; the caller decides whether to go on
      auto error = e->second;
      errors_.erase(e);
      lock.unlock();
      space_.notify_all();
      std::rethrow_exception(error);
    }
    auto it = done_.find(want);
    b = std::move(it->second);
    done_.erase(it);
    ++next_to_consume_;
    lock.unlock();
    space_.notify_all();
  }
  b = to_device(std::move(b));
  wait_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

}  // namespace accelbench
