#include "distributed/gradient_reducer.h"

#include <fmt/format.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>

#include <chrono>
#include <stdexcept>

namespace accelbench {

namespace {
// Adds the host time of its scope to a total.
class HostTimer {
 public:
  explicit HostTimer(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~HostTimer() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  HostTimer(const HostTimer&) = delete;
  HostTimer& operator=(const HostTimer&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};
}  // namespace

std::vector<std::vector<std::size_t>> assign_buckets(const std::vector<std::int64_t>& param_bytes,
                                                     std::int64_t bucket_bytes, std::int64_t first_bucket_bytes) {
  std::vector<std::vector<std::size_t>> buckets;
  std::vector<std::size_t> current;
  std::int64_t filled = 0;
  for (std::size_t k = param_bytes.size(); k-- > 0;) {
    const std::int64_t cap = buckets.empty() ? std::min(first_bucket_bytes, bucket_bytes) : bucket_bytes;
    if (!current.empty() && filled + param_bytes[k] > cap) {
      buckets.push_back(std::move(current));
      current.clear();
      filled = 0;
    }
    current.push_back(k);
    filled += param_bytes[k];
  }
  if (!current.empty()) buckets.push_back(std::move(current));
  return buckets;
}

GradientReducer::GradientReducer(std::vector<at::Tensor> params, Collectives& collectives, std::int64_t bucket_bytes,
                                 std::int64_t first_bucket_bytes, GradientLayout layout, ReducerLaunch launch)
    : params_(std::move(params)), collectives_(collectives), layout_(layout), launch_(launch) {
  std::vector<std::int64_t> bytes;
  for (const auto& p : params_) bytes.push_back(p.numel() * static_cast<std::int64_t>(p.element_size()));
  plan_ = assign_buckets(bytes, bucket_bytes, first_bucket_bytes);
  bucket_of_.resize(params_.size());
  slot_of_.resize(params_.size());
  arrived_.assign(params_.size(), false);
  buckets_.resize(plan_.size());
  for (std::size_t b = 0; b < plan_.size(); ++b) {
    std::int64_t numel = 0;
    for (std::size_t j = 0; j < plan_[b].size(); ++j) {
      const auto i = plan_[b][j];
      if (params_[i].scalar_type() != params_[plan_[b][0]].scalar_type())
        throw std::invalid_argument("GradientReducer: a bucket's parameters must share one dtype");
      bucket_of_[i] = b;
      slot_of_[i] = j;
      buckets_[b].offsets.push_back(numel);
      numel += params_[i].numel();
    }
    buckets_[b].flat = torch::zeros({numel}, params_[plan_[b][0]].options().requires_grad(false));
  }
  torch::NoGradGuard no_grad;
  views_.resize(params_.size());
  for (std::size_t i = 0; i < params_.size(); ++i) {
    auto& p = params_[i];
    const auto& flat = buckets_[bucket_of_[i]].flat;
    const auto offset = buckets_[bucket_of_[i]].offsets[slot_of_[i]];
    // As DDP: the view keeps the parameter's strides where it is dense (channels-last stays so).
    views_[i] = p.is_non_overlapping_and_dense() ? flat.as_strided(p.sizes(), p.strides(), offset)
                                                 : flat.narrow(0, offset, p.numel()).view(p.sizes());
    if (layout_ == GradientLayout::bucket_views) {
      if (p.grad().defined()) views_[i].copy_(p.grad());
      p.mutable_grad() = views_[i];
    }
    if (!p.requires_grad() || !p.is_leaf())
      throw std::invalid_argument("GradientReducer: a parameter is not a leaf that requires grad");
    if (launch_ == ReducerLaunch::after_backward) continue;
    // A hook after the accumulation (as DDP's on the grad accumulator); the accumulator is kept alive
    // so that autograd keeps using this one node for the parameter.
    auto acc = torch::autograd::impl::grad_accumulator(p);
    if (!acc) throw std::invalid_argument("GradientReducer: a parameter is not a leaf that requires grad");
    const auto key = acc->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
        [this, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
          on_accumulated(i);
          return outputs;
        }));
    unhook_.emplace_back([acc, key] { acc->del_post_hook(key); });
  }
}

GradientReducer::~GradientReducer() {
  for (auto& unhook : unhook_) {
    try {
      unhook();
    } catch (const std::exception&) {
    }
  }
}

bool GradientReducer::is_slot(const at::Tensor& grad, std::size_t i) const {
  return grad.defined() && grad.unsafeGetTensorImpl() == views_[i].unsafeGetTensorImpl();
}

bool GradientReducer::grad_is_view(std::size_t i) const { return is_slot(params_[i].grad(), i); }

void GradientReducer::on_accumulated(std::size_t i) {
  torch::NoGradGuard no_grad;
  std::lock_guard lock(mutex_);
  HostTimer timer(host_.total_s);
  arrived(i);
}

void GradientReducer::arrived(std::size_t i) {
  auto& bucket = buckets_[bucket_of_[i]];
  auto& p = params_[i];
  // copied: autograd's own gradient stays the .grad until the bucket's launch copies it in.
  if (layout_ == GradientLayout::bucket_views && !grad_is_view(i)) {  // a zero_grad set it to none: back into the bucket
    if (p.grad().defined()) {
      if (arrived_[i]) views_[i].add_(p.grad());
      else views_[i].copy_(p.grad());
    } else if (!arrived_[i]) {
      views_[i].zero_();
    }
    p.mutable_grad() = views_[i];
    ++copied_;
    ++copy_launches_;
  }
  if (arrived_[i]) {  // a second accumulation for the same parameter in one backward pass
    if (bucket.launched) throw std::runtime_error("GradientReducer: a gradient arrived after its bucket was launched");
    return;
  }
  arrived_[i] = true;
  ++bucket.filled;
  launch_ready_buckets();
}

void GradientReducer::launch_ready_buckets() {
  while (next_launch_ < buckets_.size() && buckets_[next_launch_].filled == plan_[next_launch_].size())
    launch(next_launch_++);
}

void GradientReducer::launch(std::size_t b) {
  auto& bucket = buckets_[b];
  if (layout_ == GradientLayout::copied) {
    // The bucket's new gradients into their slots by one multi-tensor copy. A parameter that got no
    // gradient this step: zeros (whatever its .grad still holds); one whose gradient autograd
    // accumulated into the slot itself (its .grad was left the slot): nothing to copy.
    std::vector<at::Tensor> slots, grads;
    slots.reserve(plan_[b].size());
    grads.reserve(plan_[b].size());
    for (const auto i : plan_[b]) {
      auto& p = params_[i];
      const auto& grad = p.grad();
      if (!arrived_[i] || !grad.defined()) {
        views_[i].zero_();
      } else if (!is_slot(grad, i)) {
        slots.push_back(views_[i]);
        grads.push_back(grad);
      }
      p.mutable_grad() = views_[i];
    }
    if (!slots.empty()) {
      HostTimer timer(host_.copies_s);
      // Below autograd's and ADInplaceOrView's kernels, as optimizers run: no graph records these
      // buffers, and their per-tensor checks and version bumps are host time a launch-bound step pays.
      at::AutoDispatchBelowADInplaceOrView below_autograd;
      at::_foreach_copy_(slots, grads);
      copied_ += static_cast<int>(slots.size());
      ++copy_launches_;
    }
  }
  {
    HostTimer timer(host_.allreduce_calls_s);
    bucket.work = collectives_.allreduce_sum(bucket.flat);
  }
  bucket.launched = true;
  if (!finishing_) ++launched_in_backward_;
}

void GradientReducer::finish() {
  torch::NoGradGuard no_grad;
  std::lock_guard lock(mutex_);
  HostTimer timer(host_.total_s);
  finishing_ = true;
  if (launch_ == ReducerLaunch::after_backward)  // no hooks: a gradient autograd left has arrived
    for (const auto& bucket_plan : plan_)
      for (const auto i : bucket_plan)
        if (params_[i].grad().defined()) arrived(i);
  for (; next_launch_ < buckets_.size(); ++next_launch_) {  // parameters with no gradient: zeros
    for (const auto i : plan_[next_launch_]) {
      if (arrived_[i] || layout_ == GradientLayout::copied) continue;  // copied: launch() zeroes the missing
      views_[i].zero_();
      if (!grad_is_view(i)) params_[i].mutable_grad() = views_[i];
    }
    launch(next_launch_);
  }
  const double world = static_cast<double>(collectives_.world_size());
  last_works_.clear();
  for (auto& bucket : buckets_) {  // the gradients are views of the buffers: averaged in place
    {
      HostTimer timer(host_.waits_s);
      bucket.work->wait();
    }
    if (world > 1) bucket.flat.div_(world);
    last_works_.push_back(std::move(bucket.work));
    bucket.filled = 0;
    bucket.launched = false;
  }
  arrived_.assign(params_.size(), false);
  next_launch_ = 0;
  last_launched_in_backward_ = launched_in_backward_;
  launched_in_backward_ = 0;
  last_copied_ = copied_;
  copied_ = 0;
  last_copy_launches_ = copy_launches_;
  copy_launches_ = 0;
  finishing_ = false;
}

void GradientReducer::rebind_and_zero() {
  if (layout_ == GradientLayout::copied) return;
  torch::NoGradGuard no_grad;
  std::lock_guard lock(mutex_);
  HostTimer timer(host_.total_s);
  for (auto& bucket : buckets_) bucket.flat.zero_();
  for (std::size_t i = 0; i < params_.size(); ++i)
    if (!grad_is_view(i)) params_[i].mutable_grad() = views_[i];
}

std::optional<double> GradientReducer::last_step_comm_s() {
  if (last_works_.empty()) return std::nullopt;
  double sum = 0;
  for (auto& w : last_works_) {
    const auto d = w->duration_s();
    if (!d) return std::nullopt;
    sum += *d;
  }
  return sum;
}

std::vector<std::int64_t> GradientReducer::bucket_bytes() const {
  std::vector<std::int64_t> out;
  for (const auto& b : buckets_) out.push_back(b.flat.numel() * static_cast<std::int64_t>(b.flat.element_size()));
  return out;
}

std::int64_t GradientReducer::total_bytes() const {
  std::int64_t n = 0;
  for (auto b : bucket_bytes()) n += b;
  return n;
}

}  // namespace accelbench
