#include "workloads/frozen_devices.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/script.h>

#include <set>
#include <vector>

namespace accelbench {

namespace {
// The CPU device constants of `block` and of the blocks nested in it (if, loop).
void collect_cpu_device_constants(torch::jit::Block* block, std::vector<torch::jit::Node*>& out) {
  for (auto* node : block->nodes()) {
    for (auto* inner : node->blocks()) collect_cpu_device_constants(inner, out);
    if (node->kind() != c10::prim::Constant || node->outputs().size() != 1) continue;
    if (node->output()->type()->kind() != c10::TypeKind::DeviceObjType) continue;
    const auto value = torch::jit::toIValue(node->output());
    if (value && value->isDevice() && value->toDevice().is_cpu()) out.push_back(node);
  }
}
}  // namespace

std::size_t retarget_frozen_devices(torch::jit::Module& module, const c10::Device& to) {
  if (to.is_cpu()) return 0;
  std::set<torch::jit::Graph*> seen;  // methods are shared by the submodules of one type
  std::size_t replaced = 0;
  for (const auto& m : module.modules()) {
    for (const auto& method : m.get_methods()) {
      auto graph = method.graph();
      if (!seen.insert(graph.get()).second) continue;
      std::vector<torch::jit::Node*> constants;
      collect_cpu_device_constants(graph->block(), constants);
      for (auto* node : constants) {
        torch::jit::WithInsertPoint here(node);
        auto* moved = graph->insertConstant(c10::IValue(to));
        node->output()->replaceAllUsesWith(moved);
        node->destroy();
        ++replaced;
      }
    }
  }
  return replaced;
}

}  // namespace accelbench
