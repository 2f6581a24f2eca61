#include "cli/help_format.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "cli/workload_lists.h"
#include "data/idx_reader.h"
#include "report/terminal.h"

namespace accelbench {

namespace {

class FittingFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    return wrap_lines(CLI::Formatter::make_help(app, std::move(name), mode), output_width(1));
  }
};

}  // namespace

void use_fitting_help(CLI::App& app) {
  auto f = std::make_shared<FittingFormatter>();
  f->column_width(output_width(1) < 90 ? 24 : 30);
  app.formatter(f);
}

std::string environment_help() {
  const auto fashion_mnist = workload_names_with([](const engine::WorkloadFacts& f) { return f.dataset == kFashionMnistFiles; });
  return "Environment:\n"
         "  ACCELBENCH_DB            history database (default: $XDG_DATA_HOME/accelbench/history.db,\n"
         "                           else ~/.local/share/accelbench/history.db); --db overrides it\n"
         "  ACCELBENCH_DB_WAIT       seconds a command waits for a history another process is writing\n"
         "                           (default 60), then says what was not stored\n"
         "  " + fmt::format("{:<24} folder with the {} ({}); --data-dir\n", kFashionMnistVariable, kFashionMnistFiles,
                            fashion_mnist) +
         "                           overrides it\n"
         "  XDG_DATA_HOME            where the history lives when ACCELBENCH_DB is not set\n"
         "  ACCELBENCH_PYTHON        the Python cases' interpreter when --python names none (the\n"
         "                           pip-installed command sets it to its environment's python)\n"
         "  COLUMNS                  output width (default: the terminal's, 100 when not a terminal)\n"
         "  NO_COLOR                 no colour (colour is used only on a terminal)\n"
         "  OMP_NUM_THREADS, MKL_NUM_THREADS, CUDA_LAUNCH_BLOCKING, PYTORCH_NO_CUDA_MEMORY_CACHING\n"
         "                           read by libtorch; `accelbench doctor` says when they distort timings\n"
         "  CUDA_VISIBLE_DEVICES     the GPUs libtorch and the telemetry see";
}

void add_environment_footer(CLI::App& app) {
  app.footer(environment_help());
  std::function<void(CLI::App&)> point_up = [&point_up](CLI::App& cmd) {
    for (auto* sub : cmd.get_subcommands({})) {
      sub->footer("Environment variables: accelbench --help.");
      point_up(*sub);
    }
  };
  point_up(app);
}

namespace {
// Each option's purpose, by its first long name, for the commands with many options.
const std::map<std::string, std::string>& option_purposes() {
  static const std::map<std::string, std::string> purposes = {
      {"--models", "What to measure"},           {"--model", "What to measure"},
      {"--devices", "What to measure"},          {"--device", "What to measure"},
      {"--dtype", "What to measure"},            {"--dtypes", "What to measure"},
      {"--batch-size", "What to measure"},       {"--threads", "What to measure"},
      {"--width", "What to measure"},            {"--checkpoint", "What to measure"},
      {"--graphs", "What to measure"},           {"--phases", "What to measure"},
      {"--full-epoch", "What to measure"},       {"--repeats", "What to measure"},
      {"--epochs", "What to measure"},           {"--parity-steps", "What to measure"},
      {"--gpus", "What to measure"},             {"--from", "What to measure"},
      {"--to", "What to measure"},               {"--axis", "What to measure"},
      {"--widths", "What to measure"},           {"--max-threads", "What to measure"},
      {"--max-workers", "What to measure"},      {"--memory-limit", "What to measure"},
      {"--steps", "What to measure"},            {"--warmup", "What to measure"},
      {"--top", "What to measure"},              {"--bucket-mb", "What to measure"},
      {"--bucket-views", "What to measure"},     {"--overhead", "What to measure"},
      {"--synthetic", "Data"},                   {"--data-dir", "Data"},
      {"--workers", "Data"},                     {"--variant", "Data"},
      {"--text", "Data"},                        {"--seq-len", "Data"},
      {"--seed", "Data"},                        {"--model-file", "Your own model"},
      {"--input", "Your own model"},             {"--target", "Your own model"},
      {"--flops-per-sample", "Your own model"},  {"--impl", "What to measure"},
      {"--python", "The Python loop"},           {"--py-model", "Your own model"},
      {"--py-optimizer", "The Python loop"},     {"--compile", "The Python loop"},
      {"--quick", "How long and how precise"},   {"--ci-target", "How long and how precise"},
      {"--min-samples", "How long and how precise"}, {"--min-time", "How long and how precise"},
      {"--max-time-per-case", "How long and how precise"}, {"--max-time-per-point", "How long and how precise"},
      {"--max-time", "How long and how precise"}, {"--budget", "How long and how precise"},
      {"--min-sample-time", "How long and how precise"}, {"--rounds", "How long and how precise"},
      {"--in-process-rounds", "How long and how precise"}, {"--cooldown", "How long and how precise"},
      {"--no-isolate", "How long and how precise"}, {"--collective-timeout", "How long and how precise"},
      {"--no-telemetry", "Telemetry"},           {"--telemetry-hz", "Telemetry"},
      {"--json", "Output and history"},          {"--trace", "Output and history"},
      {"--no-progress", "Output and history"},   {"--quiet", "Output and history"},
      {"--verbose", "Output and history"},       {"--db", "Output and history"},
      {"--no-save", "Output and history"},       {"--rank-dir", "Output and history"},
      {"--ranks-from-env", "Output and history"},
  };
  return purposes;
}
}  // namespace

void group_options_by_purpose(CLI::App& app) {
  for (auto* sub : app.get_subcommands({})) {
    if (sub->get_options().size() > kGroupedOptionsFrom)
      for (auto* opt : sub->get_options()) {
        const auto it = option_purposes().find(opt->get_name());
        if (it != option_purposes().end()) opt->group(it->second);
      }
    group_options_by_purpose(*sub);
  }
}

}  // namespace accelbench
