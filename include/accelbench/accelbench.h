#pragma once
// accelbench's C++ API (docs/own-model.md): a workload written with the libtorch C++ frontend, registered
// in a program of your own that links accelbench::main, so that the program has every accelbench
// command (run, sweep, profile, compare, report, ...) with your workload beside the built-ins.
//
//   find_package(accelbench REQUIRED)
//   add_executable(my_bench my_workload.cpp)
//   target_link_libraries(my_bench PRIVATE accelbench::main)
//
// A workload is the interface the built-ins use (workloads/workload.h): info() with its figures,
// build() returning a TrainingTask (forward_loss, backward, optimizer_step, ...). For a model with a
// cross-entropy loss, make_module_task (workloads/module_task.h) builds the task from a
// torch::nn::Module, a forward and a batch producer: staged batches, the fused Adam, autocast and
// loss scaling, as the built-ins train. Example: examples/custom_workload/. docs/own-model.md.
#include "workloads/module_task.h"
#include "workloads/workload.h"

// Registers `factory` (a function returning std::unique_ptr<accelbench::Workload>) as `name`, before
// main runs. Use once per workload, at namespace scope in a source file of the program.
#define ACCELBENCH_REGISTER_WORKLOAD(name, factory) \
  ACCELBENCH_REGISTER_WORKLOAD_AT_(name, factory, __LINE__)
#define ACCELBENCH_REGISTER_WORKLOAD_AT_(name, factory, line) ACCELBENCH_REGISTER_WORKLOAD_AT2_(name, factory, line)
#define ACCELBENCH_REGISTER_WORKLOAD_AT2_(name, factory, line) \
  [[maybe_unused]] static const bool accelbench_registered_##line = ::accelbench::register_workload(name, factory)
