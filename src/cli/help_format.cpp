#include "cli/help_format.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

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

const char* environment_help() {
  return "Environment:\n"
         "  ACCELBENCH_DB            history database (default: $XDG_DATA_HOME/accelbench/history.db,\n"
         "                           else ~/.local/share/accelbench/history.db); --db overrides it\n"
         "  ACCELBENCH_DB_WAIT       seconds a command waits for a history another process is writing\n"
         "                           (default 60), then says what was not stored\n"
         "  ACCELBENCH_FASHION_MNIST folder with the Fashion-MNIST IDX files (mlp, cnn, dcgan); --data-dir\n"
         "                           overrides it\n"
         "  XDG_DATA_HOME            where the history lives when ACCELBENCH_DB is not set\n"
         "  COLUMNS                  output width (default: the terminal's, 100 when not a terminal)\n"
         "  NO_COLOR                 no colour (colour is used only on a terminal)\n"
         "  OMP_NUM_THREADS, MKL_NUM_THREADS, CUDA_LAUNCH_BLOCKING, PYTORCH_NO_CUDA_MEMORY_CACHING\n"
         "                           read by libtorch; `accelbench doctor` says when they distort timings\n"
         "  CUDA_VISIBLE_DEVICES     the GPUs libtorch and the telemetry see";
}

void add_environment_footer(CLI::App& app) {
  app.footer(environment_help());
  for (auto* sub : app.get_subcommands({})) add_environment_footer(*sub);
}

}  // namespace accelbench
