#include "cli/workload_lists.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/errors.h"
#include "core/lists.h"

namespace accelbench {

const std::vector<engine::WorkloadFacts>& workloads() {
  static const auto facts = engine::workload_facts();  // every workload is registered before main
  return facts;
}

const engine::WorkloadFacts* find_workload_facts(const std::string& name) {
  const auto& all = workloads();
  const auto it = std::find_if(all.begin(), all.end(), [&](const engine::WorkloadFacts& f) { return f.name == name; });
  return it == all.end() ? nullptr : &*it;
}

std::string workload_names_with(const std::function<bool(const engine::WorkloadFacts&)>& trait, const std::string& last_separator) {
  std::vector<std::string> names;
  for (const auto& f : workloads())
    if (!trait || trait(f)) names.push_back(f.name);
  return join_as_prose(names, last_separator);
}

std::string width_help() {
  std::vector<std::string> parts;
  for (const auto& f : workloads())
    if (f.default_width > 0) parts.push_back(fmt::format("{} hidden width (default {})", f.name, f.default_width));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string data_dir_help() {
  std::vector<std::string> datasets;  // in the order the workloads name them
  for (const auto& f : workloads())
    if (!f.dataset.empty() && std::find(datasets.begin(), datasets.end(), f.dataset) == datasets.end()) datasets.push_back(f.dataset);
  std::vector<std::string> parts;
  for (const auto& d : datasets)
    parts.push_back(fmt::format("{} ({})", d, workload_names_with([&](const engine::WorkloadFacts& f) { return f.dataset == d; })));
  return "Dataset directory: " + join_as_prose(parts, " or ");
}

std::string variant_help() {
  std::vector<std::string> parts;
  for (const auto& f : workloads())
    if (!f.variants.empty()) parts.push_back(fmt::format("{}: {}", f.name, join_as_prose(f.variants, " or ")));
  return fmt::format("Workload variant ({})", fmt::join(parts, "; "));
}

std::string text_help() {
  return workload_names_with(&engine::WorkloadFacts::reads_text) +
         ": labelled text, one 'LABEL<TAB>text' a line (default: synthetic)";
}

std::string seq_len_help() { return workload_names_with(&engine::WorkloadFacts::reads_text) + " sequence length"; }

std::string checkpoint_help() {
  return fmt::format("Gradient checkpointing of the encoder blocks ({}): less memory, more compute",
                     workload_names_with(&engine::WorkloadFacts::has_checkpoint));
}

void check_variant(const std::string& variant) {
  std::vector<std::string> known;
  for (const auto& f : workloads()) known.insert(known.end(), f.variants.begin(), f.variants.end());
  if (std::find(known.begin(), known.end(), variant) != known.end()) return;
  throw UsageError(fmt::format("unknown {} variant '{}' (--variant); available: {}",
                               workload_names_with([](const engine::WorkloadFacts& f) { return !f.variants.empty(); }, " and "),
                               printable(variant), fmt::join(known, ", ")));
}

}  // namespace accelbench
