#pragma once
// How the convolutional workloads (cnn, resnet18, dcgan) lay out their tensors and pick their
// convolution algorithms on an accelerator: channels-last (NHWC) weights and images, whose
// tensor-core convolutions need no layout transposes, and cuDNN's benchmark mode (each
// convolution shape timed once, the fastest algorithm kept). Both on by default on CUDA, off
// elsewhere; ACCELBENCH_CHANNELS_LAST=0|1 and ACCELBENCH_CUDNN_BENCHMARK=0|1 override the default
// (any device), for experiments and comparisons with Python's defaults (docs/workloads.md).
#include <string>

#include "data/batch_loader.h"
#include "workloads/workload.h"

namespace torch::nn {
class Module;
}

namespace accelbench {

struct ConvSettings {
  bool channels_last = false;
  bool cudnn_benchmark = false;  // CUDA only: other devices have no cuDNN
};

ConvSettings conv_settings_for(const c10::Device& device);
// Every 4-D parameter of `module` (on its device already) made channels-last where the settings ask,
// and cuDNN's benchmark mode set; before the optimizer is built (its state copies the layout).
void apply_conv_settings(torch::nn::Module& module, const ConvSettings& settings);
// A 4-D image batch in the settings' layout (a no-op when it is already).
at::Tensor conv_layout(const at::Tensor& images, const ConvSettings& settings);
// The producer's images in the settings' layout, made where the batches are made (host side).
BatchProducer in_conv_layout(BatchProducer produce, const ConvSettings& settings);
// ", channels-last, cuDNN benchmark" for a workload's description; "" when neither is on.
std::string conv_settings_description(const ConvSettings& settings);

}  // namespace accelbench
