// dcgan: the generator and discriminator of the DCGAN paper as in the PyTorch examples
// (examples/dcgan): 64x64 images, nz 100, ngf = ndf = 64, batch norm, ReLU / LeakyReLU(0.2),
// Tanh / Sigmoid, N(0, 0.02) initialisation, BCE loss, two Adam optimizers (lr 2e-4, beta1 0.5).
// One iteration = a discriminator step on a real and a fake batch, then a generator step.
// Real images: Fashion-MNIST resized to 64x64 (nc = 1), synthetic when absent. Reported in
// s/iteration.
#include <fmt/format.h>
#include <torch/torch.h>

#include "core/errors.h"
#include "optim/autocast.h"
#include "workloads/conv_settings.h"
#include "workloads/image_data.h"

namespace accelbench {

namespace {
namespace nn = torch::nn;
constexpr std::int64_t kNz = 100, kNgf = 64, kNdf = 64, kNc = 1;

nn::ConvTranspose2d up(std::int64_t in, std::int64_t out, std::int64_t stride, std::int64_t pad) {
  return nn::ConvTranspose2d(nn::ConvTranspose2dOptions(in, out, 4).stride(stride).padding(pad).bias(false));
}
nn::Conv2d down(std::int64_t in, std::int64_t out, std::int64_t stride, std::int64_t pad) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 4).stride(stride).padding(pad).bias(false));
}

nn::Sequential generator() {
  return nn::Sequential(up(kNz, kNgf * 8, 1, 0), nn::BatchNorm2d(kNgf * 8), nn::ReLU(true),          // 4x4
                        up(kNgf * 8, kNgf * 4, 2, 1), nn::BatchNorm2d(kNgf * 4), nn::ReLU(true),     // 8x8
                        up(kNgf * 4, kNgf * 2, 2, 1), nn::BatchNorm2d(kNgf * 2), nn::ReLU(true),     // 16x16
                        up(kNgf * 2, kNgf, 2, 1), nn::BatchNorm2d(kNgf), nn::ReLU(true),             // 32x32
                        up(kNgf, kNc, 2, 1), nn::Tanh());                                             // 64x64
}
nn::Sequential discriminator() {
  auto leaky = [] { return nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2).inplace(true)); };
  return nn::Sequential(down(kNc, kNdf, 2, 1), leaky(),                                    // 32x32
                        down(kNdf, kNdf * 2, 2, 1), nn::BatchNorm2d(kNdf * 2), leaky(),        // 16x16
                        down(kNdf * 2, kNdf * 4, 2, 1), nn::BatchNorm2d(kNdf * 4), leaky(),    // 8x8
                        down(kNdf * 4, kNdf * 8, 2, 1), nn::BatchNorm2d(kNdf * 8), leaky(),    // 4x4
                        down(kNdf * 8, 1, 1, 0), nn::Sigmoid());                               // 1x1
}

// The examples' weights_init: conv weights N(0, 0.02); batch-norm weights N(1, 0.02), biases 0.
void weights_init(nn::Module& m) {
  torch::NoGradGuard no_grad;
  for (auto& sub : m.modules(false)) {
    if (auto* c = sub->as<nn::Conv2d>()) c->weight.normal_(0.0, 0.02);
    else if (auto* t = sub->as<nn::ConvTranspose2d>()) t->weight.normal_(0.0, 0.02);
    else if (auto* b = sub->as<nn::BatchNorm2d>()) {
      b->weight.normal_(1.0, 0.02);
      b->bias.zero_();
    }
  }
}

std::int64_t sequential_params(const nn::Sequential& s) {
  std::int64_t n = 0;
  for (const auto& p : s->parameters()) n += p.numel();
  return n;
}

class DcganTask final : public TrainingTask {
 public:
  explicit DcganTask(const WorkloadOptions& o) : device_(o.device), batch_(o.batch_size), precision_(parse_precision(o.dtype)) {
    torch::manual_seed(o.inputs.seed);
    g_ = generator();
    d_ = discriminator();
    weights_init(*g_);
    weights_init(*d_);
    g_->to(device_);
    d_->to(device_);
    conv_ = conv_settings_for(device_);
    apply_conv_settings(*g_, conv_);
    apply_conv_settings(*d_, conv_);
    // The example's Adam (lr 2e-4, beta1 0.5), constant: stable in float32 and bfloat16 (docs/workloads.md).
    schedule_ = o.lr_schedule.value_or(LrSchedule{.peak = 2e-4});
    AdamConfig c;
    c.lr = schedule_.lr_for_update(1);
    c.beta1 = 0.5;
    opt_g_ = std::make_unique<Adam>(g_->parameters(), c);
    opt_d_ = std::make_unique<Adam>(d_->parameters(), c);
    // Real images: Fashion-MNIST (or synthetic) resized to 64x64 and scaled to [-1, 1].
    const std::int64_t needed = o.inputs.workers >= 0 ? 60000 : o.batch_size * o.staged_batches;
    auto images = std::make_shared<const FashionImages>(load_fashion_images(o, needed));
    source_ = images->source;
    synthetic_ = images->synthetic;
    const auto b = batch_;
    produce_ = [images, b](std::int64_t index) {
      const auto n = images->images.size(0);
      auto idx = torch::arange(index * b, (index + 1) * b, torch::kLong).remainder(n);
      auto x = images->images.index_select(0, idx).to(torch::kFloat).div_(127.5).sub_(1.0).unsqueeze(1);
      x = torch::nn::functional::interpolate(
          x, torch::nn::functional::InterpolateFuncOptions().size(std::vector<std::int64_t>{64, 64}).mode(torch::kBilinear).align_corners(false));
      return StagedBatch{x, torch::Tensor(), {}};
    };
    const int staged = o.inputs.workers >= 0 ? 1 : o.staged_batches;
    for (int i = 0; i < staged; ++i) real_.push_back(produce_(i).input.to(device_));
    if (o.inputs.workers >= 0) loader_ = std::make_unique<BatchLoader>(produce_, o.inputs.workers, o.prefetch_per_worker, device_);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(o.inputs.seed + 4000);
    eval_noise_ = torch::randn({batch_, kNz, 1, 1}, gen, torch::kFloat).to(device_);
    ones_ = torch::ones({batch_}, torch::TensorOptions().device(device_));
    zeros_ = torch::zeros({batch_}, torch::TensorOptions().device(device_));
  }

  // One iteration of the examples' loop. Returns errD + errG.
  at::Tensor step() override {
    auto loss = iteration(static_real_.defined() ? static_real_ : next_real());
    count_step();
    return loss;
  }

  // Graph mode (--graphs): a static real batch, learning rates from device tensors. The noise is
  // drawn inside the graph: the CUDA generator's offsets advance with each replay.
  void enter_graph_mode() override {
    TORCH_CHECK(opt_d_->fused() && opt_g_->fused(), "graph capture needs the fused Adam kernel on this device");
    static_real_ = real_.front().clone();
    opt_d_->use_lr_tensor();
    opt_g_->use_lr_tensor();
  }
  void prepare_replay() override {
    static_real_.copy_(next_real(), /*non_blocking=*/true);
    opt_d_->load_lr_tensor();
    opt_g_->load_lr_tensor();
  }
  // The whole iteration; its gradients are cleared inside it (set to none), as in the eager loop.
  at::Tensor captured_step() override { return iteration(static_real_); }
  void after_replay() override { count_step(); }

 private:
  at::Tensor next_real() {
    if (!loader_) return real_[next_++ % real_.size()];
    double wait = 0;
    auto real = loader_->next(wait).input;
    data_wait_s_ += wait;
    return real;
  }

  void count_step() {
    ++steps_;
    const double lr = schedule_.lr_for_update(steps_ + 1);
    opt_d_->set_lr(lr);
    opt_g_->set_lr(lr);
  }

  at::Tensor iteration(const at::Tensor& real) {
    namespace F = torch::nn::functional;
    // Forward passes under autocast (bf16); BCE outside it, in fp32 (it is unsafe to autocast).
    auto D = [&](const at::Tensor& x) {
      AutocastGuard autocast(device_.type(), precision_.dtype, precision_.autocast);
      return d_->forward(x).view(-1).to(torch::kFloat);
    };
    // (1) discriminator: maximise log(D(x)) + log(1 - D(G(z)))
    auto err_real = F::binary_cross_entropy(D(real), ones_);
    err_real.backward();
    auto noise = torch::randn({batch_, kNz, 1, 1}, torch::TensorOptions().device(device_));
    at::Tensor fake;
    {
      AutocastGuard autocast(device_.type(), precision_.dtype, precision_.autocast);
      fake = g_->forward(noise);
    }
    auto err_fake = F::binary_cross_entropy(D(fake.detach()), zeros_);
    err_fake.backward();
    opt_d_->step();
    opt_d_->zero_grad();
    // (2) generator: maximise log(D(G(z)))
    auto err_g = F::binary_cross_entropy(D(fake), ones_);
    err_g.backward();
    opt_g_->step();
    opt_g_->zero_grad();
    opt_d_->zero_grad();  // the generator step left gradients in D
    return (err_real + err_fake + err_g).detach();
  }

 public:
  bool supports_phases() const override { return false; }
  at::Tensor forward_loss() override { return step(); }  // phases are not separable for a GAN iteration
  void backward(const at::Tensor&) override {}
  void optimizer_step() override {}

  // How far the generator's images are from the data: the mean over pixels of the squared gaps
  // between the per-pixel mean, and between the per-pixel standard deviation, of G's images from
  // fixed noise and of the first real batch. D's own loss measures no progress: it falls while D
  // wins and rises again as G improves. Batch norm stays in training mode, as the DCGAN example
  // never evaluates in eval mode (its running statistics lag far behind after a few steps).
  double evaluation_loss() override {
    torch::NoGradGuard no_grad;
    const auto real = real_.front().to(torch::kFloat);
    const auto fake = g_->forward(eval_noise_).to(torch::kFloat);
    const auto mean_gap = (fake.mean(0) - real.mean(0)).pow(2).mean();
    const auto sd_gap = (fake.std(0, /*unbiased=*/false) - real.std(0, /*unbiased=*/false)).pow(2).mean();
    return (mean_gap + sd_gap).item<double>();
  }
  std::int64_t parameter_count() const override { return sequential_params(g_) + sequential_params(d_); }
  std::string data_source() const override { return source_ + ", resized to 64x64"; }
  bool synthetic_data() const override { return synthetic_; }
  std::string optimizer_description() const override { return "2 x " + opt_d_->description() + ", " + schedule_.description() + ", beta1 0.5"; }
  double take_data_wait_s() override {
    const double w = data_wait_s_;
    data_wait_s_ = 0;
    return w;
  }
  std::string pipeline_description() const override {
    return (loader_ ? fmt::format("data pipeline: {} worker threads", loader_->workers()) : "staged on the device") +
           conv_settings_description(conv_);
  }

 private:
  c10::Device device_;
  std::int64_t batch_;
  Precision precision_;
  nn::Sequential g_{nullptr}, d_{nullptr};
  std::unique_ptr<Adam> opt_g_, opt_d_;
  LrSchedule schedule_;
  std::int64_t steps_ = 0;
  BatchProducer produce_;
  std::vector<at::Tensor> real_;
  std::unique_ptr<BatchLoader> loader_;
  at::Tensor eval_noise_, ones_, zeros_;
  ConvSettings conv_;
  at::Tensor static_real_;  // graph mode: what the iteration reads
  std::string source_;
  bool synthetic_ = false;
  std::size_t next_ = 0;
  double data_wait_s_ = 0;
};

// Forward MACs of one iteration: D on a real and a fake batch, G once, D again for G's step.
double dcgan_iteration_forward_macs() {
  // Generator: transposed convs; MACs = output elements x input channels x 16 / stride^2 (per
  // input element: Cout x 16).
  const double g = 1.0 * kNz * kNgf * 8 * 16 + 4.0 * 4 * kNgf * 8 * kNgf * 4 * 16 + 8.0 * 8 * kNgf * 4 * kNgf * 2 * 16 +
                   16.0 * 16 * kNgf * 2 * kNgf * 16 + 32.0 * 32 * kNgf * kNc * 16;
  const double d = 32.0 * 32 * kNdf * kNc * 16 + 16.0 * 16 * kNdf * 2 * kNdf * 16 + 8.0 * 8 * kNdf * 4 * kNdf * 2 * 16 +
                   4.0 * 4 * kNdf * 8 * kNdf * 4 * 16 + 1.0 * kNdf * 8 * 16;
  return g + 3.0 * d;
}

class DcganWorkload final : public Workload {
 public:
  WorkloadInfo info() const override {
    WorkloadInfo i;
    i.name = "dcgan";
    i.graph_refusal.clear();  // DcganTask implements the graph hooks
    i.data_parallel_refusal = "its generator and discriminator take turns with two optimizers in one step, "
                              "which the gradient reducer does not follow";
    i.convolutional = true;
    i.dataset = kFashionMnistFiles;
    i.description = "DCGAN (PyTorch examples): G and D, 64x64, nz 100, ngf = ndf = 64, nc 1";
    i.samples_per_epoch = 60000;
    i.epoch_unit = "images";
    // G: ConvT weights + BN (weight, bias); D: conv weights + BN.
    const std::int64_t g = kNz * kNgf * 8 * 16 + 2 * kNgf * 8 + kNgf * 8 * kNgf * 4 * 16 + 2 * kNgf * 4 +
                           kNgf * 4 * kNgf * 2 * 16 + 2 * kNgf * 2 + kNgf * 2 * kNgf * 16 + 2 * kNgf + kNgf * kNc * 16;
    const std::int64_t d = kNc * kNdf * 16 + kNdf * kNdf * 2 * 16 + 2 * kNdf * 2 + kNdf * 2 * kNdf * 4 * 16 + 2 * kNdf * 4 +
                           kNdf * 4 * kNdf * 8 * 16 + 2 * kNdf * 8 + kNdf * 8 * 16;
    i.parameter_count = g + d;
    i.train_flops_per_sample = 3.0 * 2.0 * dcgan_iteration_forward_macs();
    return i;
  }
  void validate(const WorkloadOptions& o) const override {
    if (parse_precision(o.dtype).dtype == at::kHalf)
      throw UsageError("dcgan does not support --dtype float16 yet (its two optimizers need two loss scalers); use bfloat16");
  }
  std::unique_ptr<TrainingTask> build(const WorkloadOptions& o) const override {
    validate(o);
    return std::make_unique<DcganTask>(o);
  }
};
}  // namespace

std::unique_ptr<Workload> make_dcgan_workload() { return std::make_unique<DcganWorkload>(); }

}  // namespace accelbench
