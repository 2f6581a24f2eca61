#pragma once
// The man page and the bash, zsh and fish completions, generated from the command tree itself (every
// command, option and description as --help shows them), by the hidden `accelbench _docs --out DIR`
// that the build runs (CMake target accelbench_docs; installed by cmake/accelbench-install.cmake).
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace accelbench {

struct OptionDoc {
  std::vector<std::string> names;  // "--models", "--model", "-o"; empty for a positional
  std::string positional;          // "ID", "RUN"
  std::string value;               // "TEXT", "INT", "" for a flag
  std::string description;
};

struct CommandDoc {
  std::string path;                 // "" (the program), "run", "sweep batch", "history rm"
  std::string description;
  std::vector<std::string> subcommands;
  std::vector<OptionDoc> options;
};

// Every visible command (names starting with '_' are hidden), parents before children.
std::vector<CommandDoc> document_commands(const CLI::App& app);

std::string render_man_page(const std::vector<CommandDoc>& commands, const std::string& version, const std::string& environment);
// The values completed after --models (the workloads) and --format (the report formats) are given.
std::string render_bash_completion(const std::vector<CommandDoc>& commands, const std::vector<std::string>& models,
                                   const std::vector<std::string>& formats);
std::string render_zsh_completion(const std::vector<CommandDoc>& commands, const std::vector<std::string>& models,
                                  const std::vector<std::string>& formats);
std::string render_fish_completion(const std::vector<CommandDoc>& commands);

}  // namespace accelbench
