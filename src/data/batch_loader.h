#pragma once
// The measured data pipeline: worker threads produce host batches (decoding, augmentation) ahead of
// the training loop, in pinned memory where the device can use it, and the training thread copies
// them to the device without blocking. Time spent waiting for a batch is reported separately.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace accelbench {

// A batch: the model's inputs (one or more tensors) and the target.
struct StagedBatch {
  at::Tensor input, target;
  at::Tensor mask;  // optional (bert-base's attention mask)
};

// Produces the index-th batch of the stream on the host. Called from worker threads: must be
// thread-safe and should not use torch's intra-op parallelism heavily.
using BatchProducer = std::function<StagedBatch(std::int64_t index)>;

class BatchLoader {
 public:
  // workers = 0: each batch is produced in the training thread when it is asked for.
  BatchLoader(BatchProducer produce, int workers, int prefetch_per_worker, c10::Device device);
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // The next batch, on the device. `wait_s` gets the time the caller was blocked (producing the
  // batch itself when there are no workers, else waiting for one) plus issuing the copy.
  StagedBatch next(double& wait_s);
  int workers() const { return static_cast<int>(threads_.size()); }
  bool pinned() const { return pin_; }

 private:
  void worker_loop();
  StagedBatch to_device(StagedBatch b) const;

  BatchProducer produce_;
  c10::Device device_;
  bool pin_ = false;
  std::size_t capacity_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable ready_, space_;
  std::map<std::int64_t, StagedBatch> done_;
  std::int64_t next_to_produce_ = 0, next_to_consume_ = 0;
  bool stop_ = false;
  std::map<std::int64_t, std::exception_ptr> errors_;  // per batch index: raised when that batch is asked for
};

}  // namespace accelbench
