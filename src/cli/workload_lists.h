#pragma once
// The workloads as the help texts and the messages name them, from the registry alone
// (engine::workload_facts, asked once): every name, the names of those with a trait, and the help
// of the flags that only some workloads read.
#include <functional>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace accelbench {

const std::vector<engine::WorkloadFacts>& workloads();
// A built-in or registered workload's facts; nullptr for another name (a model file's case).
const engine::WorkloadFacts* find_workload_facts(const std::string& name);
// "mlp, cnn, transformer" of the workloads with `trait` (every one without it), `last_separator`
// before the last name (" and ", " or ").
std::string workload_names_with(const std::function<bool(const engine::WorkloadFacts&)>& trait = {},
                                const std::string& last_separator = ", ");

// The help of --width, --data-dir, --variant, --text, --seq-len and --checkpoint: the workloads
// that read each flag named in it.
std::string width_help();
std::string data_dir_help();
std::string variant_help();
std::string text_help();
std::string seq_len_help();
std::string checkpoint_help();

// --variant: UsageError where no workload has `variant` (naming the workloads and their variants).
void check_variant(const std::string& variant);

}  // namespace accelbench
