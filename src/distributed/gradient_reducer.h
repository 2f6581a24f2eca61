#pragma once
// Gradient all-reduce in buckets, as PyTorch's DistributedDataParallel does it: the parameters in
// reverse order (the order the backward pass produces their gradients) grouped into buckets of about
// `bucket_bytes` (the first one smaller, so communication starts early), each bucket one flat buffer
// with a slot (a view of the parameter's shape) per parameter. A hook after each parameter's gradient
// accumulation marks it ready; when a bucket is full its asynchronous all-reduce is launched in place,
// in bucket order on every rank, while the backward pass goes on. finish(), before the optimizer step,
// waits for them all and divides each buffer by the world size in place; every .grad is then its slot.
// Two layouts (GradientLayout):
// - copied (the default): autograd makes each gradient as it does without data parallelism (the
//   optimizer's zero_grad set the last ones to none, so no accumulation kernel); a full bucket's
//   gradients are copied into it by one multi-tensor copy (_foreach_copy_), and the .grads pointed at
//   the slots. One kernel or a few per bucket, where DDP's default copies per parameter, in and back.
// - bucket_views (DDP's gradient_as_bucket_view=True): every .grad stays a view of its slot, so
//   autograd accumulates into the bucket (an add per parameter, no copy; one gradient's memory less).
//   rebind_and_zero(), after the optimizer step, zeroes the buffers (one fill a bucket) and points
//   back at them any gradient the optimizer's zero_grad set to none.
// Two launch points (ReducerLaunch):
// - from_hooks (the default, as DDP): the hooks above launch each bucket as it fills, so that its
//   all-reduce overlaps the rest of the backward pass.
// - after_backward: no hooks; finish() takes every gradient autograd left (a defined .grad arrived)
//   and launches the buckets then. With one rank there is nothing to overlap, and each hook, bucket
//   copy and all-reduce call is host time that a launch-bound step pays in full (about 42 us an
//   all-reduce call and 140 us of hooks a transformer step on the H200, docs/results.md).
#include <cstdint>
#include <functional>
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

enum class GradientLayout { copied, bucket_views };
enum class ReducerLaunch { from_hooks, after_backward };

class GradientReducer {
 public:
  static constexpr std::int64_t kDefaultFirstBucketBytes = 1 << 20;
  GradientReducer(std::vector<at::Tensor> params, Collectives& collectives, std::int64_t bucket_bytes,
                  std::int64_t first_bucket_bytes = kDefaultFirstBucketBytes,
                  GradientLayout layout = GradientLayout::copied, ReducerLaunch launch = ReducerLaunch::from_hooks);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // After backward, before the optimizer step: every bucket reduced, gradients averaged in place.
  // Buckets whose parameters got no gradient this step are launched here (zeros for those).
  void finish();
  // After the optimizer step, before the next backward. bucket_views: the buffers zeroed and every
  // gradient a view of its bucket again. copied: nothing (the next gradients overwrite the buffers).
  void rebind_and_zero();
  GradientLayout layout() const { return layout_; }
  ReducerLaunch launch_point() const { return launch_; }
  // Bucket b's flat buffer (every gradient in it is a view of it).
  const at::Tensor& bucket_buffer(std::size_t b) const { return buckets_[b].flat; }

  const std::vector<std::vector<std::size_t>>& bucket_params() const { return plan_; }
  std::vector<std::int64_t> bucket_bytes() const;
  std::int64_t total_bytes() const;
  // Buckets launched from the hooks, during the backward pass, in the last step (the rest in finish).
  int launched_during_backward() const { return last_launched_in_backward_; }
  // bucket_views: gradients the hooks found not to be their bucket's view in the last step, and so
  // copied into it one by one (0 when every step goes through rebind_and_zero: autograd accumulated
  // into the buckets). copied: gradients copied into the buckets by the multi-tensor copies.
  int copied_in_last_step() const { return last_copied_; }
  // Copy operations launched in the last step (bucket_views: one a copied gradient; copied: one a bucket).
  int copy_launches_in_last_step() const { return last_copy_launches_; }
  // Device seconds the last finished step's all-reduces ran, once the device has synchronized past
  // them; nullopt where the backend cannot tell.
  std::optional<double> last_step_comm_s();
  // Host seconds spent in the reducer since it was built: the part of a launch-bound step it costs.
  struct HostTimes {
    double total_s = 0;            // the hooks, finish() and rebind_and_zero(), all in
    double copies_s = 0;           // of which launching the copies into the buckets
    double allreduce_calls_s = 0;  // of which the all-reduce calls (the process group's host work)
    double waits_s = 0;            // of which finish()'s waits for the all-reduces
  };
  const HostTimes& host_times() const { return host_; }

 private:
  struct Bucket {
    at::Tensor flat;
    std::vector<std::int64_t> offsets;  // of each of its parameters in `flat`
    std::size_t filled = 0;
    bool launched = false;
    std::shared_ptr<CollectiveWork> work;
  };
  void on_accumulated(std::size_t param);  // after autograd accumulated the parameter's gradient
  void arrived(std::size_t param);         // its gradient is there (the caller holds the lock)
  bool is_slot(const at::Tensor& grad, std::size_t param) const;  // `grad` is the parameter's slot view
  bool grad_is_view(std::size_t param) const;                        // its .grad is
  void launch_ready_buckets();  // in bucket order, each at most once
  void launch(std::size_t b);

  std::vector<at::Tensor> params_;
  Collectives& collectives_;
  std::vector<std::vector<std::size_t>> plan_;
  std::vector<Bucket> buckets_;
  std::vector<std::size_t> bucket_of_, slot_of_;  // per parameter
  std::vector<bool> arrived_;
  std::vector<at::Tensor> views_;             // per parameter: its slot in its bucket, its shape
  std::vector<std::function<void()>> unhook_;  // removes a post-accumulation hook
  std::size_t next_launch_ = 0;
  int launched_in_backward_ = 0, last_launched_in_backward_ = 0, copied_ = 0, last_copied_ = 0;
  int copy_launches_ = 0, last_copy_launches_ = 0;
  GradientLayout layout_;
  ReducerLaunch launch_;
  bool finishing_ = false;
  HostTimes host_;
  std::vector<std::shared_ptr<CollectiveWork>> last_works_;
  std::mutex mutex_;
};

}  // namespace accelbench
