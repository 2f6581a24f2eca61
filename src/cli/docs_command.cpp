// accelbench _docs --out DIR (hidden): writes the man page and the bash, zsh and fish completions,
// generated from this binary's own commands, under DIR as they are installed below a prefix's share/:
// man/man1/accelbench.1, bash-completion/completions/accelbench, zsh/site-functions/_accelbench,
// fish/vendor_completions.d/accelbench.fish. The build runs it (CMake target accelbench_docs).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli/help_format.h"
#include "cli/shell_docs.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "core/safe_write.h"
#include "engine/engine.h"
#include "report/reports.h"

namespace accelbench {

void add_docs_command(CLI::App& app, Action& action) {
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("_docs", "Write the man page and shell completions under DIR")->group("");
  cmd->add_option("--out", *out, "Folder (the share/ of an install prefix)")->required();
  cmd->callback([&action, &app, out]() {
    action = [&app, out]() {
      const auto commands = document_commands(app);
      const auto models = engine::workload_names();
      std::vector<std::string> formats;
      for (const auto& f : report_formats()) formats.push_back(f.name);
      const std::filesystem::path dir(*out);
      std::error_code ec;
      if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
        throw UsageError(fmt::format("_docs: --out {} is not a folder", *out));
      const std::pair<const char*, std::string> files[] = {
          {"man/man1/accelbench.1", render_man_page(commands, accelbench_version(), environment_help())},
          {"bash-completion/completions/accelbench", render_bash_completion(commands, models, formats)},
          {"zsh/site-functions/_accelbench", render_zsh_completion(commands, models, formats)},
          {"fish/vendor_completions.d/accelbench.fish", render_fish_completion(commands)}};
      for (const auto& [name, text] : files) {
        if (std::filesystem::create_directories((dir / name).parent_path(), ec); ec)
          throw UsageError(fmt::format("_docs: --out {}: cannot create {}: {}", *out, (dir / name).parent_path().string(), ec.message()));
        write_file_atomically((dir / name).string(), text);
      }
      return 0;
    };
  });
}

}  // namespace accelbench
