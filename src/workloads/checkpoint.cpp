#include "workloads/checkpoint.h"

#include <ATen/autocast_mode.h>
#include <ATen/core/Generator.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <mutex>
#include <optional>
#include <utility>

namespace accelbench {

namespace {

// --- random generators ----------------------------------------------------------------------------
struct GeneratorState {
  at::Generator generator;
  at::Tensor state;
};

// The default generator of a device, or nullopt where it cannot be had or read (a backend without
// get_state, a device type this libtorch was not built for): the recompute then draws new numbers.
std::optional<GeneratorState> capture_generator(const c10::Device& device) {
  try {
    auto gen = at::globalContext().defaultGenerator(device);
    std::lock_guard<std::mutex> lock(gen.mutex());  // Note [Acquire lock when using random generators]
    return GeneratorState{gen, gen.get_state()};
  } catch (const c10::Error&) {
    return std::nullopt;
  }
}

void set_generator(const GeneratorState& g) {
  auto gen = g.generator;
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(g.state);
}

// The CPU's generator always (CPU ops inside a device block may draw from it, as Python's
// checkpoint assumes), plus the input's device's.
std::vector<GeneratorState> capture_generators(const c10::Device& device) {
  std::vector<GeneratorState> states;
  if (auto cpu = capture_generator(c10::Device(c10::kCPU))) states.push_back(std::move(*cpu));
  if (device.type() != c10::kCPU)
    if (auto dev = capture_generator(device)) states.push_back(std::move(*dev));
  return states;
}

// Sets the forward's generator states for the recompute; puts the current ones back afterwards
// (Python's torch.random.fork_rng), so the random stream goes on as if nothing was recomputed.
class GeneratorReplay {
 public:
  explicit GeneratorReplay(const std::vector<GeneratorState>& forward_states) {
    for (const auto& g : forward_states) {
      auto gen = g.generator;
      std::lock_guard<std::mutex> lock(gen.mutex());
      current_.push_back(GeneratorState{gen, gen.get_state()});
    }
    for (const auto& g : forward_states) set_generator(g);
  }
  ~GeneratorReplay() {
    for (const auto& g : current_) set_generator(g);
  }
  GeneratorReplay(const GeneratorReplay&) = delete;
  GeneratorReplay& operator=(const GeneratorReplay&) = delete;

 private:
  std::vector<GeneratorState> current_;
};

// --- autocast -------------------------------------------------------------------------------------
struct AutocastState {
  c10::DeviceType device_type;
  bool enabled;
  at::ScalarType dtype;
};

std::vector<AutocastState> capture_autocast(c10::DeviceType device_type) {
  std::vector<c10::DeviceType> types{c10::kCPU};
  if (device_type != c10::kCPU) types.push_back(device_type);
  std::vector<AutocastState> states;
  for (const auto type : types) {
    if (!at::autocast::is_autocast_available(type)) continue;
    states.push_back({type, at::autocast::is_autocast_enabled(type), at::autocast::get_autocast_dtype(type)});
  }
  return states;
}

// The forward's autocast state (enabled or not, dtype) during the recompute, whatever the state of
// the backward pass (which normally runs outside autocast, and on CUDA in another thread: autocast
// state is thread-local); the backward's own state afterwards. As AutocastGuard (optim/autocast.h),
// but it can also switch autocast off.
class AutocastReplay {
 public:
  explicit AutocastReplay(const std::vector<AutocastState>& forward_states) {
    for (const auto& s : forward_states) {
      current_.push_back({s.device_type, at::autocast::is_autocast_enabled(s.device_type),
                          at::autocast::get_autocast_dtype(s.device_type)});
      at::autocast::set_autocast_enabled(s.device_type, s.enabled);
      at::autocast::set_autocast_dtype(s.device_type, s.dtype);
      nested_ = nested_ || s.enabled;
    }
    if (nested_) at::autocast::increment_nesting();
  }
  ~AutocastReplay() {
    if (nested_ && at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    for (const auto& s : current_) {
      at::autocast::set_autocast_enabled(s.device_type, s.enabled);
      at::autocast::set_autocast_dtype(s.device_type, s.dtype);
    }
  }
  AutocastReplay(const AutocastReplay&) = delete;
  AutocastReplay& operator=(const AutocastReplay&) = delete;

 private:
  std::vector<AutocastState> current_;
  bool nested_ = false;
};

// --- the autograd function ------------------------------------------------------------------------
// What the backward pass needs besides the saved input: the block, its parameters and the state
// the forward ran in. Kept in saved_data as a capsule.
struct CheckpointState : torch::CustomClassHolder {
  CheckpointBlock block;
  std::vector<at::Tensor> params;
  std::vector<GeneratorState> generators;
  std::vector<AutocastState> autocast;
};

struct CheckpointFunction : torch::autograd::Function<CheckpointFunction> {
  // Inputs as autograd sees them: state (not a tensor), x, then each of params (a TensorList is
  // flattened into inputs; a std::vector<Tensor> would not be).
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const c10::intrusive_ptr<CheckpointState>& state,
                            const at::Tensor& x, at::TensorList /*params*/) {
    // Grad mode is off here (Function::apply): the block builds no graph.
    state->generators = capture_generators(x.device());
    state->autocast = capture_autocast(x.device().type());
    ctx->save_for_backward({x});
    ctx->saved_data["state"] = c10::IValue::make_capsule(state);
    return state->block(x);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    auto state = c10::static_intrusive_pointer_cast<CheckpointState>(ctx->saved_data["state"].toCapsule());
    const auto saved = ctx->get_saved_variables();
    // Edges: 0 = x, 1 + i = params[i] (the state argument has no edge).
    const bool x_needs_grad = ctx->needs_input_grad(0);
    auto x = saved[0].detach().requires_grad_(x_needs_grad);
    std::vector<at::Tensor> inputs;
    std::vector<std::size_t> slots;  // where each input's gradient goes in the result
    if (x_needs_grad) {
      inputs.push_back(x);
      slots.push_back(1);
    }
    for (std::size_t i = 0; i < state->params.size(); ++i) {
      if (!ctx->needs_input_grad(1 + i) || !state->params[i].requires_grad()) continue;
      inputs.push_back(state->params[i]);
      slots.push_back(2 + i);
    }
    torch::autograd::variable_list result(2 + state->params.size());  // undefined: no gradient
    if (inputs.empty()) return result;

    at::Tensor y;
    {
      GeneratorReplay rng(state->generators);
      AutocastReplay autocast(state->autocast);
      at::AutoGradMode grad_mode(true);
      y = state->block(x);
    }
    if (!y.requires_grad()) return result;
    const auto grads = torch::autograd::grad({y}, inputs, {grad_outputs[0]}, /*retain_graph=*/false,
                                             /*create_graph=*/false, /*allow_unused=*/true);
    for (std::size_t k = 0; k < grads.size(); ++k) result[slots[k]] = grads[k];
    return result;
  }
};

}  // namespace

at::Tensor checkpointed(const CheckpointBlock& block, const at::Tensor& x, const std::vector<at::Tensor>& params) {
  bool any_requires_grad = x.requires_grad();
  for (const auto& p : params) any_requires_grad = any_requires_grad || p.requires_grad();
  if (!at::GradMode::is_enabled() || !any_requires_grad) return block(x);  // no backward: nothing to save
  auto state = c10::make_intrusive<CheckpointState>();
  state->block = block;
  state->params = params;
  return CheckpointFunction::apply(state, x, at::TensorList(params));
}

}  // namespace accelbench
