#include "distributed/collectives.h"

#include <torch/torch.h>

namespace accelbench {

bool all_ranks_agree(Collectives& c, bool mine, const c10::Device& device) {
  auto flag = torch::full({1}, mine ? 1.0f : 0.0f, torch::TensorOptions().dtype(torch::kFloat).device(device));
  c.allreduce_sum(flag)->wait();
  return flag.item<float>() >= static_cast<float>(c.world_size()) - 0.5f;
}

double broadcast_value(Collectives& c, double value, int root, const c10::Device& device) {
  std::vector<at::Tensor> t{torch::full({1}, value, torch::TensorOptions().dtype(torch::kDouble).device(device))};
  c.broadcast(t, root);
  return t[0].item<double>();
}

}  // namespace accelbench
