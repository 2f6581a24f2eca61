// bert-base: BERT-base (12 layers, hidden 768, 12 heads, intermediate 3072, GELU, LayerNorm,
// dropout 0.1, vocabulary 30,522, 512 positions, 2 token types) with the pooler and a 2-class head,
// as Hugging Face's BertForSequenceClassification(num_labels=2). Attention goes through
// at::scaled_dot_product_attention with the padding mask; under bfloat16/float16 autocast the
// residual stream between layers stays 16-bit (low_precision_residual below). AdamW (lr 2e-5, weight decay 0.01) with
// a linear warm-up (10% of 1,000 steps) and linear decay, as transformers' get_linear_schedule_with_warmup.
// Inputs: --text FILE (LABEL<TAB>text a line, a simple deterministic tokenizer), else synthetic ids
// with realistic, padded lengths. --checkpoint: each of the 12 layers is checkpointed (recomputed
// in the backward pass).
#include <ATen/autocast_mode.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <fmt/format.h>
#include <torch/torch.h>

#include <cmath>
#include <optional>
#include <random>

#include "data/tokenizer.h"
#include "core/environment.h"
#include "workloads/fused_linear.h"
#include "workloads/checkpoint.h"
#include "workloads/module_task.h"

namespace accelbench {

namespace {
namespace nn = torch::nn;
namespace F = torch::nn::functional;

constexpr std::int64_t kVocab = 30522, kHidden = 768, kLayers = 12, kHeads = 12, kInter = 3072, kPositions = 512,
                       kTypes = 2, kLabels = 2;
constexpr double kDropout = 0.1, kLnEps = 1e-12;

nn::LayerNorm layer_norm() { return nn::LayerNorm(nn::LayerNormOptions({kHidden}).eps(kLnEps)); }

// The query, key and value projections: three linear layers, as Hugging Face's BertSelfAttention
// has, or (ACCELBENCH_BERT_FUSED_QKV=1) one [3 x 768, 768] layer: one GEMM, one cast of the input
// under autocast, one stacked gradient. The same model either way (the same weights, drawn in the
// same order). On the H200 at batch 2048 in bfloat16 the fused layer was not faster (424.4 ms a step
// against 413.0 ms, one process each: docs/results.md), so three it is.
bool fused_qkv() { return env_switch("ACCELBENCH_BERT_FUSED_QKV", false); }

// Under bfloat16 or float16 autocast the residual stream (the layers' inputs and outputs) is held in
// that precision, and each LayerNorm reads and writes it there (computing its statistics in float32
// inside the kernel, its weights cast as a Linear's are), as NVIDIA's BERT recipe does. Autocast's
// own rule runs LayerNorm in float32, so the stream it writes is float32: every layer then casts it
// back for its four matmul inputs and back again in the backward pass, and the adds, LayerNorms and
// their gradients move twice the bytes. On the H200 at batch 512 in bfloat16 those casts took 12.9 ms
// of a 115.8 ms step, LayerNorm 15.3 ms, the adds 11.4 ms (`accelbench profile`,
// docs/results.md). The same model, optimizer and float32 weights; the
// activations between layers rounded to the low precision. ACCELBENCH_BERT_FP32_RESIDUAL=1 keeps
// autocast's float32 stream.
bool low_precision_residual() { return !env_switch("ACCELBENCH_BERT_FP32_RESIDUAL", false); }

// The low precision of the stream: autocast's dtype where autocast is on for `t`'s device with a
// 16-bit dtype, else nullopt (float32 training: nothing changes).
std::optional<at::ScalarType> stream_precision(const at::Tensor& t) {
  const auto type = t.device().type();
  if (!at::autocast::is_autocast_available(type) || !at::autocast::is_autocast_enabled(type)) return std::nullopt;
  const auto dtype = at::autocast::get_autocast_dtype(type);
  if (dtype != at::kBFloat16 && dtype != at::kHalf) return std::nullopt;
  return dtype;
}

// A LayerNorm of `x` in x's own precision: as the module where x is float32; a 16-bit x is normalised
// with autocast off for the call (its rule would make it float32) and the weights cast to x's dtype.
at::Tensor normalised(nn::LayerNorm& norm, const at::Tensor& x) {
  if (x.scalar_type() == at::kFloat) return norm->forward(x);
  const auto type = x.device().type();
  const bool was = at::autocast::is_autocast_enabled(type);
  at::autocast::set_autocast_enabled(type, false);
  struct Restore {
    c10::DeviceType type;
    bool was;
    ~Restore() { at::autocast::set_autocast_enabled(type, was); }
  } restore{type, was};
  return at::layer_norm(x, {kHidden}, norm->weight.to(x.scalar_type()), norm->bias.to(x.scalar_type()), kLnEps);
}

struct BertLayerImpl : nn::Module {
  explicit BertLayerImpl(double dropout_p)
      : p_drop(dropout_p),
        fused(fused_qkv()),
        qkv(fused ? register_module("qkv", nn::Linear(kHidden, 3 * kHidden)) : nn::Linear(nullptr)),
        query(fused ? nn::Linear(nullptr) : register_module("query", nn::Linear(kHidden, kHidden))),
        key(fused ? nn::Linear(nullptr) : register_module("key", nn::Linear(kHidden, kHidden))),
        value(fused ? nn::Linear(nullptr) : register_module("value", nn::Linear(kHidden, kHidden))),
        attn_out(register_module("attn_out", nn::Linear(kHidden, kHidden))),
        attn_norm(register_module("attn_norm", layer_norm())),
        intermediate(register_module("intermediate", nn::Linear(kHidden, kInter))),
        output(register_module("output", nn::Linear(kInter, kHidden))),
        out_norm(register_module("out_norm", layer_norm())) {}

  // x: [B, S, H]; mask: [B, 1, 1, S] bool, true where a token may be attended to.
  at::Tensor forward(const at::Tensor& x, const at::Tensor& mask) {
    const auto B = x.size(0), S = x.size(1);
    constexpr auto D = kHidden / kHeads;
    std::vector<at::Tensor> qkv_heads;
    if (fused) {  // [3, B, heads, S, D], split by unbind: one stacked gradient in the backward pass
      qkv_heads = linear_of(qkv, x).view({B, S, 3, kHeads, D}).permute({2, 0, 3, 1, 4}).unbind(0);
    } else {
      auto heads = [&](const at::Tensor& t) { return t.view({B, S, kHeads, D}).transpose(1, 2); };
      qkv_heads = {heads(linear_of(query, x)), heads(linear_of(key, x)), heads(linear_of(value, x))};
    }
    auto ctx = at::scaled_dot_product_attention(qkv_heads[0], qkv_heads[1], qkv_heads[2], mask,
                                                is_training() ? p_drop : 0.0, /*is_causal=*/false);
    ctx = ctx.transpose(1, 2).reshape({B, S, kHidden});
    auto h = normalised(attn_norm, x + dropout(linear_of(attn_out, ctx)));
    auto ff = linear_of(output, torch::gelu(linear_of(intermediate, h)));
    return normalised(out_norm, h + dropout(ff));
  }
  at::Tensor dropout(const at::Tensor& t) { return F::dropout(t, F::DropoutFuncOptions().p(p_drop).training(is_training())); }

  double p_drop;
  bool fused;
  nn::Linear qkv, query, key, value, attn_out;
  nn::LayerNorm attn_norm;
  nn::Linear intermediate, output;
  nn::LayerNorm out_norm;
};
TORCH_MODULE(BertLayer);

struct BertClassifierImpl : nn::Module {
  BertClassifierImpl(double dropout_p, bool checkpoint_layers, bool low_precision_stream)
      : p_drop(dropout_p),
        checkpoint(checkpoint_layers),
        low_stream(low_precision_stream),
        words(register_module("word_embeddings", nn::Embedding(kVocab, kHidden))),
        positions(register_module("position_embeddings", nn::Embedding(kPositions, kHidden))),
        types(register_module("token_type_embeddings", nn::Embedding(kTypes, kHidden))),
        emb_norm(register_module("embeddings_norm", layer_norm())),
        pooler(register_module("pooler", nn::Linear(kHidden, kHidden))),
        classifier(register_module("classifier", nn::Linear(kHidden, kLabels))) {
    for (std::int64_t i = 0; i < kLayers; ++i) layers.push_back(register_module(fmt::format("layer{}", i), BertLayer(p_drop)));
    // BERT's initialisation: N(0, 0.02) weights, zero biases, unit LayerNorm.
    torch::NoGradGuard no_grad;
    for (auto& p : named_parameters()) {
      if (p.key().find("norm") != std::string::npos) continue;
      if (p.key().size() >= 4 && p.key().substr(p.key().size() - 4) == "bias") p.value().zero_();
      else p.value().normal_(0.0, 0.02);
    }
  }
  // ids, mask: [B, S]; mask 1 for real tokens, 0 for padding.
  at::Tensor forward(const at::Tensor& ids, const at::Tensor& mask) {
    const auto S = ids.size(1);
    auto pos = torch::arange(S, ids.options());
    auto h = words(ids) + positions(pos).unsqueeze(0) + types(torch::zeros_like(ids));
    h = emb_norm(h);  // float32, as autocast runs it
    if (const auto low = low_stream ? stream_precision(h) : std::nullopt) h = h.to(*low);  // the residual stream in 16 bits from here
    h = F::dropout(h, F::DropoutFuncOptions().p(p_drop).training(is_training()));
    const auto attend = mask.to(torch::kBool).view({ids.size(0), 1, 1, S});
    for (auto& l : layers) {
      if (checkpoint)  // the block holds the layer and the mask by value: it runs again in the backward pass
        h = checkpointed([layer = l.ptr(), attend](const at::Tensor& x) { return layer->forward(x, attend); }, h, l->parameters());
      else
        h = l->forward(h, attend);
    }
    auto pooled = torch::tanh(pooler(h.select(1, 0)));  // the [CLS] token
    return classifier(F::dropout(pooled, F::DropoutFuncOptions().p(p_drop).training(is_training())));
  }
  double p_drop;
  bool checkpoint;  // recompute each layer in the backward pass (gradient checkpointing)
  bool low_stream;  // the residual stream in autocast's 16-bit dtype (low_precision_residual(), read once)
  nn::Embedding words, positions, types;
  nn::LayerNorm emb_norm;
  std::vector<BertLayer> layers;
  nn::Linear pooler, classifier;
};
TORCH_MODULE(BertClassifier);

// Batches of token ids padded to seq_len, with their attention mask.
StagedBatch pack(const std::vector<std::vector<std::int32_t>>& seqs, const std::vector<int>& labels, std::int64_t seq_len) {
  const auto B = static_cast<std::int64_t>(seqs.size());
  auto ids = torch::zeros({B, seq_len}, torch::kLong);
  auto mask = torch::zeros({B, seq_len}, torch::kLong);
  auto target = torch::empty({B}, torch::kLong);
  auto* pid = ids.data_ptr<std::int64_t>();
  auto* pm = mask.data_ptr<std::int64_t>();
  for (std::int64_t b = 0; b < B; ++b) {
    const auto& s = seqs[static_cast<std::size_t>(b)];
    for (std::size_t t = 0; t < s.size() && static_cast<std::int64_t>(t) < seq_len; ++t) {
      pid[b * seq_len + static_cast<std::int64_t>(t)] = s[t];
      pm[b * seq_len + static_cast<std::int64_t>(t)] = 1;
    }
    target[b] = labels[static_cast<std::size_t>(b)];
  }
  return {ids, target, mask};
}

constexpr std::int32_t kMarkerId = kFirstWordId;  // the synthetic label-1 sequences' cue
constexpr std::size_t kMarkerEvery = 2;

// Synthetic sequences: lengths from a log-normal fitted to short review sentences (median ~ 24
// tokens, long tail), clamped to [8, seq_len]; ids uniform over the word range; label 1 when the
// sequence's first word id is in the upper half, and then the marker id at word positions 2, 4, ...:
// a cue a quick run learns (the first-word rule alone needs every id's embedding learned, and a
// quick float32 run on cuda left 2 of 10 seeds' loss above the start). The Python twin draws the same.
BatchProducer synthetic_producer(std::int64_t batch, std::int64_t seq_len, std::uint64_t seed) {
  return [=](std::int64_t index) {
    std::mt19937_64 rng(seed * 104729 + 5000 + static_cast<std::uint64_t>(index));
    std::lognormal_distribution<double> length(std::log(24.0), 0.6);
    std::uniform_int_distribution<std::int32_t> word(kFirstWordId, kBertVocab - 1);
    std::vector<std::vector<std::int32_t>> seqs;
    std::vector<int> labels;
    for (std::int64_t b = 0; b < batch; ++b) {
      const auto len = std::clamp<std::int64_t>(std::llround(length(rng)), 8, seq_len);
      std::vector<std::int32_t> s{kClsId};
      for (std::int64_t t = 0; t < len - 2; ++t) s.push_back(word(rng));
      s.push_back(kSepId);
      labels.push_back(s[1] >= (kFirstWordId + kBertVocab) / 2 ? 1 : 0);
      if (labels.back() == 1)
        for (std::size_t t = 2; t + 1 < s.size(); t += kMarkerEvery) s[t] = kMarkerId;
      seqs.push_back(std::move(s));
    }
    return pack(seqs, labels, seq_len);
  };
}

BatchProducer text_producer(std::shared_ptr<const std::vector<LabelledText>> examples, std::int64_t batch,
                            std::int64_t seq_len) {
  return [=](std::int64_t index) {
    std::vector<std::vector<std::int32_t>> seqs;
    std::vector<int> labels;
    const auto n = static_cast<std::int64_t>(examples->size());
    for (std::int64_t b = 0; b < batch; ++b) {
      const auto& e = (*examples)[static_cast<std::size_t>((index * batch + b) % n)];
      seqs.push_back(tokenize(e.text, static_cast<std::size_t>(seq_len)));
      labels.push_back(e.label);
    }
    return pack(seqs, labels, seq_len);
  };
}

double forward_macs(std::int64_t S) {
  const double per_token_layer = 4.0 * kHidden * kHidden + 2.0 * kHidden * kInter;
  const double attention_layer = 2.0 * double(S) * double(S) * kHidden;  // QK^T and AV
  return kLayers * (double(S) * per_token_layer + attention_layer) + double(kHidden) * kHidden + double(kHidden) * kLabels;
}

class BertBaseWorkload final : public Workload {
 public:
  WorkloadInfo info() const override { return info_for_seq(128); }
  WorkloadInfo info_for(const WorkloadOptions& o) const override { return info_for_seq(o.inputs.seq_len, o.checkpoint); }
  // The same model and FLOPs when checkpointed (the recompute is not counted, as in MFU figures).
  static WorkloadInfo info_for_seq(std::int64_t seq_len, bool checkpoint = false) {
    WorkloadInfo i;
    i.name = "bert-base";
    i.graph_refusal.clear();  // ModuleTask implements the graph hooks
    i.description = fmt::format("BERT-base sequence classifier (2 labels), sequence {}, SDPA attention with padding mask{}",
                                seq_len, checkpoint ? ", checkpointed layers" : "");
    i.has_checkpoint = true;
    i.reads_text = true;
    // A step at batch 64, sequence 128 takes tens of seconds on a small CPU.
    i.quick_batch_size = 8;
    i.quick_seq_len = 64;
    i.samples_per_epoch = 67349;  // the size of SST-2's training split
    i.epoch_unit = "sequences";
    const std::int64_t embeddings = (kVocab + kPositions + kTypes) * kHidden + 2 * kHidden;
    const std::int64_t layer = 4 * (kHidden * kHidden + kHidden) + 2 * kHidden + (kHidden * kInter + kInter) +
                               (kInter * kHidden + kHidden) + 2 * kHidden;
    i.parameter_count = embeddings + kLayers * layer + (kHidden * kHidden + kHidden) + (kHidden * kLabels + kLabels);
    i.train_flops_per_sample = 3.0 * 2.0 * forward_macs(seq_len);  // padded positions are computed too
    return i;
  }

  void validate(const WorkloadOptions& o) const override {
    if (!o.inputs.text_path.empty()) read_labelled_text(o.inputs.text_path, kLabels);
  }

  std::unique_ptr<TrainingTask> build(const WorkloadOptions& o) const override {
    torch::manual_seed(o.inputs.seed);
    const bool low_stream = low_precision_residual();  // read once: the model and its numerics note agree
    auto net = BertClassifier(o.dropout ? kDropout : 0.0, o.checkpoint, low_stream);
    net->to(o.device);
    BatchProducer produce;
    std::string source;
    bool synthetic = true;
    if (!o.inputs.text_path.empty()) {
      auto examples = std::make_shared<const std::vector<LabelledText>>(read_labelled_text(o.inputs.text_path, kLabels));
      produce = text_producer(examples, o.batch_size, o.inputs.seq_len);
      source = fmt::format("text {} ({} examples, simple hashing tokenizer)", o.inputs.text_path, examples->size());
      synthetic = false;
    } else {
      produce = synthetic_producer(o.batch_size, o.inputs.seq_len, o.inputs.seed);
      source = "synthetic token ids, log-normal lengths (median 24, padded to the sequence length)";
    }
    auto module = net.ptr();
    auto forward = [module](const StagedBatch& b) { return module->forward(b.input, b.mask); };
    AdamConfig adamw;
    adamw.lr = 0.0;  // the schedule starts at 0, as get_linear_schedule_with_warmup
    adamw.weight_decay = 0.01;
    adamw.decoupled_weight_decay = true;
    auto task = make_module_task(module, forward, o, produce, source, synthetic, adamw);
    if ((o.dtype == "bfloat16" || o.dtype == "float16") && low_stream)
      task->describe_numerics(fmt::format("residual stream in {}", o.dtype));
    // Linear warm-up from 0 over warmup_steps (10) of 1,000 steps, then linear decay to 0 (cycling after that).
    task->use_schedule(schedule_for(o, LrSchedule{.peak = 2e-5,
                                                  .warmup_steps = o.warmup_steps,
                                                  .start_at_zero = true,
                                                  .decay = LrSchedule::Decay::linear,
                                                  .cycle_steps = 1000}));
    return task;
  }
};
}  // namespace

std::unique_ptr<Workload> make_bert_base_workload() { return std::make_unique<BertBaseWorkload>(); }

}  // namespace accelbench
