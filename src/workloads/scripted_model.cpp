// A model of the user's (accelbench run --model-file FILE.pt): a TorchScript module loaded onto the
// device (torch::jit::load), its trainable parameters trained by the same engine as the built-ins
// (fused Adam, autocast, loss scaling), on synthetic batches built from the batch's description
// (core/model_spec.h), embedded in the file by tools/export_model.py (extra file accelbench.json) or
// given with --input / --target. The one translation unit with torch::jit headers. docs/own-model.md.
#include <caffe2/serialize/inline_container.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/python/update_graph_executor_opt.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "core/errors.h"
#include "core/model_spec.h"
#include "optim/adam.h"
#include "optim/autocast.h"
#include "optim/grad_scaler.h"
#include "workloads/frozen_devices.h"
#include "workloads/workload.h"

namespace accelbench {

namespace {

constexpr const char* kExtraFile = "accelbench.json";
constexpr std::int64_t kSamplesPerEpoch = 10000;  // synthetic data: an epoch is a nominal 10,000 samples
constexpr std::int64_t kCheckBatch = 2;           // the batch of the forward checked before measuring

struct ModelDescription {
  std::string input_text, target_text;
  std::vector<TensorSpec> inputs;
  TargetSpec target;
  double flops_per_sample = 0;  // training (forward + backward), 0: unknown
  std::string exported_by;      // "torch.jit.script" | "torch.jit.trace" | "" (not said)
};

// The last line of a torch error that says something: the TorchScript interpreter puts its own
// traceback first and the error ("RuntimeError: mat1 and mat2 shapes ...") last.
std::string torch_message(const c10::Error& e) {
  const std::string text = e.what_without_backtrace();
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    auto line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  if (lines.empty()) return "unknown error";
  std::string last = lines.back();
  for (const char* prefix : {"RuntimeError: ", "builtins.RuntimeError: "})
    if (last.rfind(prefix, 0) == 0) last = last.substr(std::string(prefix).size());
  return last;
}

std::string last_line(const std::string& text) {
  auto end = text.find_last_not_of(" \r\n");
  if (end == std::string::npos) return text;
  const auto start = text.find_last_of('\n', end);
  auto line = text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
  for (const char* prefix : {"RuntimeError: ", "builtins.RuntimeError: "})
    if (line.rfind(prefix, 0) == 0) line = line.substr(std::string(prefix).size());
  return line;
}

// The forward, its errors as one line: the interpreter rethrows an op's error behind its own
// traceback (and an out-of-memory error as a plain c10::Error), so the engine, which reads the
// first line and the type, would see neither the cause nor the out-of-memory.
c10::IValue run_forward(torch::jit::Module& m, const std::vector<c10::IValue>& inputs) {
  try {
    return m.forward(inputs);
  } catch (const c10::OutOfMemoryError&) {
    throw;
  } catch (const c10::Error& e) {
    const auto msg = torch_message(e);
    if (msg.find("out of memory") != std::string::npos) throw c10::OutOfMemoryError(msg);
    throw c10::Error(msg);
  } catch (const std::exception& e) {  // torch::jit::JITException: a `raise` in the script
    throw CaseError(last_line(e.what()));
  }
}

// An error as one line: a torch error's last line that says something, else the message's first.
std::string first_line(const std::exception& e) {
  if (const auto* t = dynamic_cast<const c10::Error*>(&e)) return torch_message(*t);
  const std::string text = e.what();
  return text.substr(0, text.find('\n'));
}

// The embedded description (accelbench.json), or "" when the file has none. Reads the archive's
// record without loading the module. c10::Error when the file is not a TorchScript archive.
std::string embedded_description(const std::string& path) {
  caffe2::serialize::PyTorchStreamReader reader(path);
  const std::string record = std::string("extra/") + kExtraFile;
  if (!reader.hasRecord(record)) return "";
  auto [data, size] = reader.getRecord(record);
  return std::string(static_cast<const char*>(data.get()), size);
}

ModelDescription read_description(const WorkloadInputs& in) {
  ModelDescription d;
  const auto name = model_file_case_name(in.model_file);
  nlohmann::json embedded = nlohmann::json::object();
  std::string text;
  try {
    text = embedded_description(in.model_file);
  } catch (const c10::Error&) {
    // Not an archive: validate() says so when it loads the module.
  }
  if (!text.empty()) {
    embedded = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!embedded.is_object()) throw UsageError(fmt::format("{}: its embedded {} is not a JSON object", name, kExtraFile));
  }
  auto field = [&](const char* key) {
    const auto it = embedded.find(key);
    return it != embedded.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  d.input_text = in.model_input.empty() ? field("input") : in.model_input;
  d.target_text = in.model_target.empty() ? field("target") : in.model_target;
  d.exported_by = field("exported_by");
  if (d.input_text.empty() || d.target_text.empty())
    throw UsageError(fmt::format("{}: no {} description: none embedded in the file (export it with tools/export_model.py) and "
                                 "no {} given", name, d.input_text.empty() ? "input" : "target",
                                 d.input_text.empty() ? "--input" : "--target"));
  d.inputs = parse_input_specs(d.input_text);
  d.target = parse_target_spec(d.target_text);
  d.flops_per_sample = in.model_flops_per_sample;
  if (d.flops_per_sample <= 0 && embedded.contains("flops_per_sample") && embedded["flops_per_sample"].is_number())
    d.flops_per_sample = embedded["flops_per_sample"].get<double>();
  return d;
}

// One synthetic batch: the forward's arguments and the loss's target (undefined for "loss").
struct ScriptedBatch {
  std::vector<c10::IValue> inputs;
  at::Tensor target;
};

at::ScalarType scalar_type(const std::string& dtype) {
  static const std::map<std::string, at::ScalarType> types = {
      {"float32", at::kFloat}, {"float64", at::kDouble}, {"float16", at::kHalf},
      {"bfloat16", at::kBFloat16}, {"int64", at::kLong}, {"int32", at::kInt}};
  return types.at(dtype);
}

std::vector<std::int64_t> with_batch(std::int64_t batch, const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> sizes{batch};
  sizes.insert(sizes.end(), dims.begin(), dims.end());
  return sizes;
}

at::Tensor synthetic_tensor(const TensorSpec& s, std::int64_t batch) {
  const auto sizes = with_batch(batch, s.dims);
  if (s.is_integer())
    return torch::randint(static_cast<std::int64_t>(s.low), static_cast<std::int64_t>(s.high), sizes, torch::kLong)
        .to(scalar_type(s.dtype));
  auto t = s.has_range ? torch::rand(sizes) * (s.high - s.low) + s.low : torch::randn(sizes);
  return t.to(scalar_type(s.dtype));
}

// The index-th batch, the same on every device: made on the CPU from the seed, then moved.
ScriptedBatch make_batch(const ModelDescription& d, std::int64_t batch, std::uint64_t seed, int index,
                         const c10::Device& device) {
  torch::manual_seed(seed * 1000003ULL + static_cast<std::uint64_t>(index) + 1);
  ScriptedBatch b;
  for (const auto& s : d.inputs) b.inputs.emplace_back(synthetic_tensor(s, batch).to(device));
  if (d.target.kind == TargetSpec::Kind::classes) b.target = torch::randint(0, d.target.classes, {batch}, torch::kLong);
  if (d.target.kind == TargetSpec::Kind::mse) b.target = torch::randn(with_batch(batch, d.target.dims));
  if (b.target.defined()) b.target = b.target.to(device);
  return b;
}

std::string shapes_text(const std::vector<c10::IValue>& inputs) {
  std::vector<std::string> parts;
  for (const auto& v : inputs) {
    const auto t = v.toTensor();
    parts.push_back(fmt::format("{} {}", dims_text(t.sizes().vec()), c10::toString(t.scalar_type())));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The tensor the loss reads from the forward's output: a tensor, or the first tensor of a tuple or
// list, or a dict's "loss" / "logits" entry (Hugging Face outputs).
at::Tensor output_tensor(const c10::IValue& out, bool want_loss) {
  if (out.isTensor()) return out.toTensor();
  auto first_tensor = [](const auto& elements) -> at::Tensor {
    for (const auto& e : elements)
      if (e.isTensor()) return e.toTensor();
    return {};
  };
  at::Tensor t;
  if (out.isTuple()) t = first_tensor(out.toTupleRef().elements());
  else if (out.isList()) t = first_tensor(out.toListRef());
  else if (out.isGenericDict()) {
    for (const auto& e : out.toGenericDict())
      if (e.key().isString() && e.key().toStringRef() == (want_loss ? "loss" : "logits") && e.value().isTensor())
        t = e.value().toTensor();
  }
  if (!t.defined()) throw CaseError(fmt::format("the model's output is a {} with no tensor the loss can take", out.tagKind()));
  return t;
}

// "" when `out` fits the loss, else why not (one line).
std::string output_mismatch(const at::Tensor& out, const TargetSpec& t, std::int64_t batch) {
  if (!at::isFloatingType(out.scalar_type()))
    return fmt::format("the model's output is {} {}; {} needs floating point", dims_text(out.sizes().vec()),
                       c10::toString(out.scalar_type()), describe(t));
  std::vector<std::int64_t> want;
  if (t.kind == TargetSpec::Kind::classes) want = {batch, t.classes};
  if (t.kind == TargetSpec::Kind::mse) want = with_batch(batch, t.dims);
  const bool fits = t.kind == TargetSpec::Kind::model_loss ? out.numel() == 1 : out.sizes().vec() == want;
  if (fits) return "";
  return fmt::format("the model's output is {}; {} needs {}", dims_text(out.sizes().vec()), describe(t),
                     t.kind == TargetSpec::Kind::model_loss ? "one value (a 0-dim tensor)" : dims_text(want));
}

at::Tensor loss_of(const c10::IValue& output, const at::Tensor& target, const TargetSpec& t, std::int64_t batch) {
  const auto out = output_tensor(output, t.kind == TargetSpec::Kind::model_loss);
  const auto why = output_mismatch(out, t, batch);
  if (!why.empty()) throw CaseError(why);
  switch (t.kind) {
    case TargetSpec::Kind::classes: return torch::nn::functional::cross_entropy(out, target);
    case TargetSpec::Kind::mse: return torch::nn::functional::mse_loss(out, target.to(out.scalar_type()));
    case TargetSpec::Kind::model_loss: return out.reshape({});
  }
  return out;
}

std::vector<at::Tensor> module_parameters_to_train(const torch::jit::Module& m) {
  std::vector<at::Tensor> params;
  for (const auto& p : m.parameters())
    if (p.requires_grad()) params.push_back(p);
  return params;
}

// Dropout off, everything else in training mode (numerical parity runs: masks differ by device).
// A traced module keeps the mode it was traced in.
void dropout_off(torch::jit::Module& m) {
  for (auto sub : m.modules()) {
    const auto type = sub.type()->name();
    if (type && type->name().find("Dropout") != std::string::npos) sub.train(false);
  }
}

class ScriptedTask final : public TrainingTask {
 public:
  ScriptedTask(torch::jit::Module module, ModelDescription desc, const WorkloadOptions& o, std::size_t retargeted)
      : module_(std::move(module)), desc_(std::move(desc)), batch_(o.batch_size), retargeted_(retargeted),
        device_(o.device.str()) {
    params_ = module_parameters_to_train(module_);
    if (params_.empty()) throw CaseError("the model has no trainable parameters");
    const int n = std::max(1, o.staged_batches);
    for (int i = 0; i < n; ++i) train_.push_back(make_batch(desc_, batch_, o.inputs.seed, i, o.device));
    schedule_ = o.lr_schedule.value_or(LrSchedule{.peak = 1e-3});  // Adam at 1e-3, constant
    optimizer_ = std::make_unique<Adam>(params_, AdamConfig{.lr = schedule_.lr_for_update(1)});
    const auto precision = parse_precision(o.dtype);
    autocast_ = precision.autocast;
    autocast_dtype_ = precision.dtype;
    device_type_ = o.device.type();
    if (precision.dtype == at::kHalf) scaler_ = std::make_unique<GradScaler>(o.device);
  }

  at::Tensor forward_loss() override {
    const auto& b = train_[next_++ % train_.size()];
    AutocastGuard autocast(device_type_, autocast_dtype_, autocast_);  // forward and loss; backward outside
    return loss_of(run_forward(module_, b.inputs), b.target, desc_.target, batch_);
  }
  void backward(const at::Tensor& loss) override {
    if (scaler_) scaler_->scale(loss).backward();
    else loss.backward();
  }
  void optimizer_step() override {
    if (scaler_) {
      scaler_->step(*optimizer_, params_);
      scaler_->update();
    } else {
      optimizer_->step();
    }
    optimizer_->zero_grad();
    ++steps_;
    optimizer_->set_lr(schedule_.lr_for_update(steps_ + 1));
  }
  double evaluation_loss() override {
    torch::NoGradGuard no_grad;
    module_.eval();
    AutocastGuard autocast(device_type_, autocast_dtype_, autocast_);
    const auto& b = train_.front();
    const double value = loss_of(run_forward(module_, b.inputs), b.target, desc_.target, batch_).item<double>();
    module_.train();
    return value;
  }
  std::optional<double> gradient_norm() override { return unscaled_gradient_norm(params_, scaler_.get()); }

  bool last_step_skipped() override { return scaler_ && scaler_->last_step_skipped(); }
  std::vector<at::Tensor> trainable_parameters() override { return params_; }
  std::int64_t parameter_count() const override {
    std::int64_t n = 0;
    for (const auto& p : params_) n += p.numel();
    return n;
  }
  std::string data_source() const override {
    return fmt::format("synthetic batches: input {}, target {}{}", desc_.input_text, desc_.target_text,
                       retargeted_ ? fmt::format("; {} device constant{} that a trace froze as cpu moved to {}", retargeted_,
                                                 retargeted_ == 1 ? "" : "s", device_)
                                   : "");
  }
  bool synthetic_data() const override { return true; }
  std::string optimizer_description() const override {
    return optimizer_->description() + ", " + schedule_.description() + (scaler_ ? " + loss scaling (GradScaler)" : "");
  }

 private:
  torch::jit::Module module_;
  ModelDescription desc_;
  std::int64_t batch_;
  std::size_t retargeted_ = 0;  // device constants frozen by a trace, moved to the case's device
  std::string device_;
  std::vector<ScriptedBatch> train_;
  std::vector<at::Tensor> params_;
  LrSchedule schedule_;
  std::unique_ptr<Adam> optimizer_;
  std::unique_ptr<GradScaler> scaler_;
  std::size_t next_ = 0;
  std::int64_t steps_ = 0;
  bool autocast_ = false;
  at::ScalarType autocast_dtype_ = at::kFloat;
  c10::DeviceType device_type_ = c10::kCPU;
};

// Loads the module onto `device`; UsageError (one line) when the file is not a TorchScript module.
torch::jit::Module load_module(const std::string& path, const c10::Device& device) {
  const auto name = model_file_case_name(path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError(fmt::format("--model-file {}: no such file", path));
  try {
    return torch::jit::load(path, device);
  } catch (const c10::Error& e) {
    // A TorchScript file is a zip archive: one that starts like a zip is damaged, else it is no archive.
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    in.read(magic, sizeof magic);
    if (!in || std::string(magic, 4) != std::string("PK\x03\x04", 4))
      throw UsageError(fmt::format("{}: not a TorchScript file (not a zip archive); export the model with "
                                   "tools/export_model.py or torch.jit.save", name));
    bool torchscript = true;
    try {
      caffe2::serialize::PyTorchStreamReader reader(path);
      torchscript = reader.hasRecord("constants.pkl") || reader.hasRecord("code/__torch__.py");
    } catch (const c10::Error&) {
      // The archive itself is damaged: reported below.
    }
    if (!torchscript)
      throw UsageError(fmt::format("{}: a PyTorch archive but not TorchScript (torch.save of a model or a state_dict?); "
                                   "export the model with tools/export_model.py", name));
    auto msg = torch_message(e);  // miniz's first sentence; its advice follows
    if (const auto end = msg.find(". "); end != std::string::npos) msg.resize(end);
    throw UsageError(fmt::format("{}: corrupt or truncated TorchScript file: {}", name, msg));
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: cannot load it as TorchScript: {}", name, e.what()));
  }
}

// Before anything is measured, on the CPU at batch 2: the file loads, has trainable parameters,
// its forward runs on the declared input, and its output fits the loss. UsageError otherwise.
void check_model(const WorkloadInputs& in) {
  const auto name = model_file_case_name(in.model_file);
  auto module = load_module(in.model_file, c10::Device(c10::kCPU));  // first: a file that is no model says so
  const auto desc = read_description(in);
  if (module_parameters_to_train(module).empty())
    throw UsageError(fmt::format("{}: the model has no trainable parameters (none with requires_grad)", name));
  module.train();
  torch::NoGradGuard no_grad;
  const auto b = make_batch(desc, kCheckBatch, in.seed, 0, c10::Device(c10::kCPU));
  c10::IValue out;
  try {
    out = run_forward(module, b.inputs);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: the forward failed on input {} (declared --input {}): {}", name, shapes_text(b.inputs),
                                 desc.input_text, first_line(e)));
  }
  try {
    loss_of(out, b.target, desc.target, kCheckBatch);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: the output cannot take the loss ({}): {}", name, desc.target_text, first_line(e)));
  }
}

class ScriptedModelWorkload final : public Workload {
 public:
  explicit ScriptedModelWorkload(std::string name) : name_(std::move(name)) {}
  WorkloadInfo info() const override {
    WorkloadInfo i;
    i.name = name_;
    i.description = "TorchScript model file";
    i.graph_refusal = "a TorchScript model file's step is not captured as a graph (never tried)";
    i.samples_per_epoch = kSamplesPerEpoch;
    return i;
  }
  WorkloadInfo info_for(const WorkloadOptions& o) const override {
    auto i = info();
    if (o.inputs.model_file.empty()) return i;
    ModelDescription d;
    try {
      d = read_description(o.inputs);
    } catch (const UsageError&) {
      return i;  // validate() says what is wrong with the file
    }
    i.description = fmt::format("TorchScript model {}{}: input {}, {}", name_,
                                d.exported_by.empty() ? "" : " (" + d.exported_by + ")", d.input_text, describe(d.target));
    i.train_flops_per_sample = d.flops_per_sample;
    return i;
  }
  void validate(const WorkloadOptions& o) const override {
    // Once per file and description: validate_case runs for every precision of a run.
    static std::mutex mutex;
    static std::set<std::string> checked;
    const auto key = o.inputs.model_file + "\n" + o.inputs.model_input + "\n" + o.inputs.model_target;
    std::lock_guard lock(mutex);
    if (checked.count(key)) return;
    check_model(o.inputs);
    checked.insert(key);
  }
  std::unique_ptr<TrainingTask> build(const WorkloadOptions& o) const override {
    // The interpreter op by op, as eager code runs (no profiling-executor fusion or autodiff
    // subgraphs): the same kernels as a built-in workload, and no recompilation in the timing.
    torch::jit::setGraphExecutorOptimize(false);
    const auto desc = read_description(o.inputs);
    auto module = load_module(o.inputs.model_file, o.device);
    const auto retargeted = retarget_frozen_devices(module, o.device);  // a trace's cpu constants
    module.train();
    if (!o.dropout) dropout_off(module);
    return std::make_unique<ScriptedTask>(std::move(module), desc, o, retargeted);
  }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Workload> make_scripted_model_workload(const std::string& name) {
  return std::make_unique<ScriptedModelWorkload>(name);
}

}  // namespace accelbench
