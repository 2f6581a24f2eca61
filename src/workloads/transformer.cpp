// transformer: the article's "complex Transformer": a 6-layer encoder (d_model 512, 8 heads,
// feed-forward 2048, post-norm as PyTorch's default nn.TransformerEncoderLayer, dropout 0.1,
// ReLU), sequence 128, vocabulary 10,000, learned positions, mean-pooled 2-class head.
// Attention runs through at::scaled_dot_product_attention (the fused kernels), not the C++
// TransformerEncoderLayer, whose hand-written attention is slower than Python's.
// --checkpoint: each encoder layer is checkpointed (recomputed in the backward pass).
#include <ATen/ops/scaled_dot_product_attention.h>
#include <fmt/format.h>
#include <torch/torch.h>

#include "workloads/fused_linear.h"
#include "workloads/checkpoint.h"
#include "workloads/module_task.h"

namespace accelbench {

namespace {
constexpr std::int64_t kVocab = 10000, kSeq = 128, kModel = 512, kHeads = 8, kFF = 2048, kLayers = 6, kClasses = 2;
constexpr double kDropout = 0.1;
constexpr std::int64_t kMarker = 0, kMarkerEvery = 2;  // the synthetic task's marker id and its period
constexpr const char* kDataSource =
    "synthetic (token ids uniform in [0, 10000); label 1: id 0 at every 2nd position)";
constexpr double kLearningRate = 1e-5;

struct EncoderLayerImpl : torch::nn::Module {
  explicit EncoderLayerImpl(double dropout_p)
      : p_drop(dropout_p),
        in_proj(register_module("in_proj", torch::nn::Linear(kModel, 3 * kModel))),
        out_proj(register_module("out_proj", torch::nn::Linear(kModel, kModel))),
        linear1(register_module("linear1", torch::nn::Linear(kModel, kFF))),
        linear2(register_module("linear2", torch::nn::Linear(kFF, kModel))),
        norm1(register_module("norm1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({kModel})))),
        norm2(register_module("norm2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({kModel})))) {}

  at::Tensor forward(const at::Tensor& x) {  // x: [B, S, E]
    namespace F = torch::nn::functional;
    const auto B = x.size(0), S = x.size(1);
    constexpr auto D = kModel / kHeads;
    // [3, B, H, S, D], split by unbind: one stack in the backward pass, not three gradients added up
    const auto qkv = linear_of(in_proj, x).view({B, S, 3, kHeads, D}).permute({2, 0, 3, 1, 4}).unbind(0);
    auto attn = at::scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], /*attn_mask=*/{},
                                                 is_training() ? p_drop : 0.0, /*is_causal=*/false);
    attn = attn.transpose(1, 2).reshape({B, S, kModel});
    auto dropout = [this](const at::Tensor& t) {
      return F::dropout(t, F::DropoutFuncOptions().p(p_drop).training(is_training()));
    };
    auto h = norm1(x + dropout(linear_of(out_proj, attn)));
    auto ff = linear_of(linear2, dropout(torch::relu(linear_of(linear1, h))));
    return norm2(h + dropout(ff));
  }

  double p_drop;
  torch::nn::Linear in_proj, out_proj, linear1, linear2;
  torch::nn::LayerNorm norm1, norm2;
};
TORCH_MODULE(EncoderLayer);

struct TransformerClassifierImpl : torch::nn::Module {
  TransformerClassifierImpl(double dropout_p, bool checkpoint_layers)
      : p_drop(dropout_p),
        checkpoint(checkpoint_layers),
        tokens(register_module("tokens", torch::nn::Embedding(kVocab, kModel))),
        positions(register_module("positions", torch::nn::Embedding(kSeq, kModel))),
        head(register_module("head", torch::nn::Linear(kModel, kClasses))) {
    for (std::int64_t i = 0; i < kLayers; ++i) layers.push_back(register_module(fmt::format("layer{}", i), EncoderLayer(p_drop)));
  }

  at::Tensor forward(const at::Tensor& ids) {  // ids: [B, S] int64
    namespace F = torch::nn::functional;
    auto pos = torch::arange(ids.size(1), ids.options());
    auto h = tokens(ids) + positions(pos).unsqueeze(0);
    h = F::dropout(h, F::DropoutFuncOptions().p(p_drop).training(is_training()));
    for (auto& layer : layers) {
      if (checkpoint)  // the block holds the layer (a shared pointer): it runs again in the backward pass
        h = checkpointed([l = layer.ptr()](const at::Tensor& x) { return l->forward(x); }, h, layer->parameters());
      else
        h = layer->forward(h);
    }
    return head(h.mean(1));
  }

  double p_drop;
  bool checkpoint;  // recompute each encoder layer in the backward pass (gradient checkpointing)
  torch::nn::Embedding tokens, positions;
  std::vector<EncoderLayer> layers;
  torch::nn::Linear head;
};
TORCH_MODULE(TransformerClassifier);

// The initial weights of Python's model (torch.nn.TransformerEncoder of nn.TransformerEncoderLayer,
// as the Python twin and the article build it), drawn from `seed` in its order: the embeddings;
// one encoder layer (the attention's output projection as an nn.Linear, its input projection
// Xavier-uniform, both projections' biases zero, the feed-forward layers), copied into all six
// layers (nn.TransformerEncoder clones its layer); the head.
void initialise_as_pytorch(TransformerClassifierImpl& net, std::uint64_t seed) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(seed);
  net.tokens->reset_parameters();
  net.positions->reset_parameters();
  auto& first = *net.layers.front();
  first.out_proj->reset_parameters();
  torch::nn::init::xavier_uniform_(first.in_proj->weight);
  first.in_proj->bias.zero_();
  first.out_proj->bias.zero_();
  first.linear1->reset_parameters();
  first.linear2->reset_parameters();
  const auto source = first.named_parameters();
  for (auto& layer : net.layers)
    for (auto& p : layer->named_parameters()) p.value().copy_(source[p.key()]);
  net.head->reset_parameters();
}

// Token ids uniform in [0, vocab); a label drawn at random for each sequence, and the sequences
// labelled 1 carry the marker id 0 at every second position: a rule every batch teaches alike, so
// the loss falls within a quick run's few steps (docs/workloads.md), and the same draws as the
// Python twin and bench/python.
StagedBatch synthetic_batch(std::int64_t batch, at::Generator& gen) {
  auto ids = torch::randint(0, kVocab, {batch, kSeq}, gen, torch::kLong);
  auto labels = torch::randint(0, kClasses, {batch}, gen, torch::kLong);
  ids.slice(1, 0, kSeq, kMarkerEvery).masked_fill_(labels.unsqueeze(1).to(torch::kBool), kMarker);
  return {ids, labels, {}};
}

class TransformerWorkload final : public Workload {
 public:
  WorkloadInfo info() const override {
    WorkloadInfo i;
    i.name = "transformer";
    i.graph_refusal.clear();  // ModuleTask implements the graph hooks
    i.description = "6-layer encoder d512 h8 ff2048, seq 128, vocab 10k, SDPA attention";
    i.samples_per_epoch = 25000;
    i.epoch_unit = "sequences";
    const std::int64_t per_layer = (kModel * 3 * kModel + 3 * kModel) + (kModel * kModel + kModel) +
                                   (kModel * kFF + kFF) + (kFF * kModel + kModel) + 2 * (2 * kModel);
    i.parameter_count = kVocab * kModel + kSeq * kModel + kLayers * per_layer + (kModel * kClasses + kClasses);
    // Forward MACs per sequence: projections and feed-forward per token, plus QK^T and AV.
    const double linear_macs = static_cast<double>(kSeq) * (3 * kModel * kModel + kModel * kModel + 2 * kModel * kFF);
    const double attention_macs = 2.0 * kSeq * kSeq * kModel;
    const double head_macs = static_cast<double>(kModel) * kClasses;
    i.train_flops_per_sample = 3.0 * 2.0 * (kLayers * (linear_macs + attention_macs) + head_macs);
    i.has_checkpoint = true;
    return i;
  }
  // The same model and FLOPs (the recompute is not counted, as in MFU figures), checkpointed.
  WorkloadInfo info_for(const WorkloadOptions& o) const override {
    auto i = info();
    if (o.checkpoint) i.description += ", checkpointed layers";
    return i;
  }

  std::unique_ptr<TrainingTask> build(const WorkloadOptions& o) const override {
    auto net = TransformerClassifier(o.dropout ? kDropout : 0.0, o.checkpoint);
    initialise_as_pytorch(*net, o.inputs.seed);
    net->to(o.device);
    const auto batch = o.batch_size;
    const auto seed = o.inputs.seed;
    // The index-th batch comes from its own generator: the same batches in any order, any thread.
    BatchProducer produce = [batch, seed](std::int64_t index) {
      auto gen = at::make_generator<at::CPUGeneratorImpl>(seed + 2000 + static_cast<std::uint64_t>(index));
      return synthetic_batch(batch, gen);
    };
    auto module = net.ptr();
    auto forward = [module](const StagedBatch& b) { return module->forward(b.input); };
    auto task = make_module_task(module, forward, o, produce, kDataSource, true);
    // Adam's first update moves every weight by about the learning rate: from 1e-4 up it takes this
    // post-norm 6-layer encoder's loss up before it falls; at 1e-5 it falls from the first step
    // (docs/workloads.md has the measurements).
    task->use_schedule(schedule_for(o, LrSchedule{.peak = kLearningRate}));
    return task;
  }
};
}  // namespace

std::unique_ptr<Workload> make_transformer_workload() { return std::make_unique<TransformerWorkload>(); }

}  // namespace accelbench
