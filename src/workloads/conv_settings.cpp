#include "workloads/conv_settings.h"
#include "core/environment.h"

#include <ATen/Context.h>
#include <torch/torch.h>

#include <cstdlib>
#include <cstring>

namespace accelbench {

ConvSettings conv_settings_for(const c10::Device& device) {
  const bool cuda = device.is_cuda();
  ConvSettings s;
  s.channels_last = env_switch("ACCELBENCH_CHANNELS_LAST", cuda);
  s.cudnn_benchmark = cuda && env_switch("ACCELBENCH_CUDNN_BENCHMARK", true);
  return s;
}

void apply_conv_settings(torch::nn::Module& module, const ConvSettings& settings) {
  if (settings.channels_last) {
    torch::NoGradGuard no_grad;
    for (auto& p : module.parameters())
      if (p.dim() == 4) p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
  }
  if (settings.cudnn_benchmark) at::globalContext().setBenchmarkCuDNN(true);
}

at::Tensor conv_layout(const at::Tensor& images, const ConvSettings& settings) {
  if (!settings.channels_last || images.dim() != 4) return images;
  return images.contiguous(at::MemoryFormat::ChannelsLast);
}

BatchProducer in_conv_layout(BatchProducer produce, const ConvSettings& settings) {
  if (!settings.channels_last) return produce;
  return [produce = std::move(produce), settings](std::int64_t index) {
    auto b = produce(index);
    b.input = conv_layout(b.input, settings);
    return b;
  };
}

std::string conv_settings_description(const ConvSettings& settings) {
  std::string s;
  if (settings.channels_last) s += ", channels-last";
  if (settings.cudnn_benchmark) s += ", cuDNN benchmark";
  return s;
}

}  // namespace accelbench
