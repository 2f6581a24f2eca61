#pragma once
// Gradient all-reduce in buckets, as PyTorch's DistributedDataParallel does it: the parameters in
// reverse order (the order the backward pass produces their gradients) grouped into buckets of
// about `bucket_bytes` (the first one smaller, so communication starts early); a hook on each
// parameter copies its gradient into its bucket's flat buffer, and when a bucket is full its
// asynchronous all-reduce is launched, in bucket order on every rank, while the backward pass goes
// on. finish(), before the optimizer step, waits for them all, divides by the world size and copies
// the averages back into the gradients.
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "distributed/collectives.h"

namespace accelbench {

// Bucket assignment (torch-free logic on sizes): parameter indices, in reverse order, cut into
// buckets whose bytes stay within the cap (a parameter larger than the cap gets a bucket alone).
// The first bucket's cap is `first_bucket_bytes` (DDP: 1 MiB).
std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<std::int64_t>& param_bytes,
                                                     std::int64_t bucket_bytes, std::int64_t first_bucket_bytes);

class GradientReducer {
 public:
  static constexpr std::int64_t kDefaultFirstBucketBytes = 1 << 20;
  GradientReducer(std::vector<at::Tensor> params, Collectives& collectives, std::int64_t bucket_bytes,
                  std::int64_t first_bucket_bytes = kDefaultFirstBucketBytes);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // After backward, before the optimizer step: every bucket reduced, gradients averaged in place.
  // Buckets whose parameters got no gradient this step are launched here (zeros for those).
  void finish();

  const std::vector<std::vector<std::size_t>>& bucket_params() const { return plan_; }
  std::vector<std::int64_t> bucket_bytes() const;
  std::int64_t total_bytes() const;
  // Buckets launched from the hooks, during the backward pass, in the last step (the rest in finish).
  int launched_during_backward() const { return last_launched_in_backward_; }
  // Device seconds the last finished step's all-reduces ran, once the device has synchronized past
  // them; nullopt where the backend cannot tell.
  std::optional<double> last_step_comm_s();

 private:
  struct Bucket {
    at::Tensor flat;
    std::vector<std::int64_t> offsets;  // of each of its parameters in `flat`
    std::size_t filled = 0;
    bool launched = false;
    std::shared_ptr<CollectiveWork> work;
  };
  void on_gradient(std::size_t param, const at::Tensor& grad);
  void launch_ready_buckets();  // in bucket order, each at most once
  void launch(std::size_t b);

  std::vector<at::Tensor> params_;
  Collectives& collectives_;
  std::vector<std::vector<std::size_t>> plan_;
  std::vector<Bucket> buckets_;
  std::vector<std::size_t> bucket_of_, slot_of_;  // per parameter
  std::vector<bool> arrived_;
  std::vector<unsigned> hooks_;
  std::size_t next_launch_ = 0;
  int launched_in_backward_ = 0, last_launched_in_backward_ = 0;
  bool finishing_ = false;
  std::vector<std::shared_ptr<CollectiveWork>> last_works_;
  std::mutex mutex_;
};

}  // namespace accelbench
