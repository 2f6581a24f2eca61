#include "cli/shell_docs.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.h"

namespace accelbench {

namespace {

void document(const CLI::App& app, const std::string& path, std::vector<CommandDoc>& out) {
  CommandDoc d{path, app.get_description(), {}, {}};
  for (const auto* opt : app.get_options({})) {
    if (opt->get_group().empty()) continue;  // hidden
    OptionDoc o;
    for (const auto& s : opt->get_snames()) o.names.push_back("-" + s);
    for (const auto& l : opt->get_lnames()) o.names.push_back("--" + l);
    std::stable_partition(o.names.begin(), o.names.end(), [](const std::string& n) { return n.rfind("--", 0) == 0; });
    if (!opt->nonpositional()) o.positional = opt->get_name(true);
    if (opt->get_items_expected_max() > 0) o.value = opt->get_option_text().empty() ? opt->get_type_name() : opt->get_option_text();
    if (!o.value.empty() && opt->get_option_text().empty() && !opt->get_default_str().empty()) o.value += "=" + opt->get_default_str();
    o.description = opt->get_description();
    d.options.push_back(o);
  }
  std::vector<const CLI::App*> subs;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name().rfind('_', 0) != 0 && !sub->get_group().empty()) subs.push_back(sub);
  for (const auto* sub : subs) d.subcommands.push_back(sub->get_name());
  out.push_back(d);
  for (const auto* sub : subs) document(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
}

std::string troff(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
  }
  // a line starting with '.' or '\'' would be a request
  for (std::size_t p = 0; p != std::string::npos; p = out.find('\n', p + 1)) {
    const std::size_t at = p == 0 && out[0] != '\n' ? 0 : p + 1;
    if (at < out.size() && (out[at] == '.' || out[at] == '\'')) out.insert(at, "\\&");
  }
  return out;
}

}  // namespace

std::vector<CommandDoc> document_commands(const CLI::App& app) {
  std::vector<CommandDoc> out;
  document(app, "", out);
  return out;
}

std::string render_man_page(const std::vector<CommandDoc>& commands, const std::string& version, const std::string& environment) {
  const auto& top = commands.front();
  std::string out = fmt::format(".TH ACCELBENCH 1 \"\" \"accelbench {}\" \"User Commands\"\n.SH NAME\n"
                                "accelbench \\- how much faster PyTorch training runs on each accelerator than on the CPU\n", version);
  out += ".SH SYNOPSIS\n.B accelbench\n.I COMMAND\n[\\fIOPTIONS\\fR]\n";
  out += ".SH DESCRIPTION\n" + troff(top.description) + "\n.PP\nEvery command has \\fB\\-\\-help\\fR; this page is generated from them.\n";
  out += ".SH COMMANDS\n";
  for (std::size_t i = 1; i < commands.size(); ++i) {
    const auto& c = commands[i];
    out += fmt::format(".SS \"accelbench {}\"\n{}\n", troff(c.path), troff(c.description));
    for (const auto& o : c.options) {
      const std::string name = o.names.empty() ? fmt::format("\\fI{}\\fR", troff(o.positional))
                                               : fmt::format("\\fB{}\\fR", troff(fmt::format("{}", fmt::join(o.names, ", "))));
      out += fmt::format(".TP\n{}{}\n{}\n", name, o.value.empty() || o.names.empty() ? "" : " \\fI" + troff(o.value) + "\\fR",
                         troff(o.description));
    }
  }
  out += ".SH ENVIRONMENT\n.nf\n" + troff(environment.substr(environment.find('\n') + 1)) + "\n.fi\n";
  out += ".SH EXIT STATUS\n0 ok; 1 a case failed or a check found a problem; 2 bad input (one line on stderr).\n";
  out += ".SH SEE ALSO\nREADME.md and docs/ in the source tree.\n";
  return out;
}

}  // namespace accelbench
