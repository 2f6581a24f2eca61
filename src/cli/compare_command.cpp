// accelbench compare A B: per case, B's step time against A's: the ratio with its CI and a verdict
// (SAME / FASTER / SLOWER / UNCERTAIN) from a Mann-Whitney U test and a minimum effect size, one line
// per case; --verbose adds each verdict's p and reason and the method.
// Exit codes: 0, or 1 when --fail-above is given and a case got SLOWER by more than it (or no case is in
// common); 2 bad input (a published run such as article-m2 included: it has no samples to test).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "analysis/compare.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "core/durations.h"
#include "core/errors.h"
#include "report/terminal.h"
#include "report/article_reference.h"
#include "report/history_report.h"
#include "report/terminal_table.h"
#include "store/history_store.h"
#include "report/run_source.h"

namespace accelbench {

namespace {

struct CompareCliOptions {
  std::string a, b, db;
  std::string alpha = "0.01", min_effect = "2%", equivalence = "5%", fail_above;
  std::size_t min_samples = 5;
  bool verbose = false;
};

// "A: run 1 (uid ..), B: run 2 (uid ..); torch 2.13.0, host h" where both share torch and host, else each its own.
std::string runs_line(const ReportSource& a, const ReportSource& b) {
  const auto& ca = a.run.context;
  const auto& cb = b.run.context;
  if (ca.torch_version == cb.torch_version && ca.host == cb.host)
    return fmt::format("A: {}, B: {}; torch {}, {}\n", a.name, b.name, ca.torch_version, ca.host);
  return fmt::format("A: {} (torch {}, {}), B: {} (torch {}, {})\n", a.name, ca.torch_version, ca.host, b.name,
                     cb.torch_version, cb.host);
}

int execute_compare(const CompareCliOptions& o) {
  CompareOptions co;
  co.alpha = parse_fraction(o.alpha, "--alpha");
  if (!(co.alpha > 0 && co.alpha < 0.5)) throw UsageError(fmt::format("--alpha must be in (0, 0.5) (got {})", o.alpha));
  co.min_effect = parse_fraction(o.min_effect, "--min-effect");
  co.equivalence_margin = parse_fraction(o.equivalence, "--equivalence");
  if (o.min_samples < 1 || o.min_samples > kMaxMinSamples)
    throw UsageError(fmt::format("--min-samples must be in [1, {}] (got {})", kMaxMinSamples, o.min_samples));
  co.min_samples = std::max<std::size_t>(2, o.min_samples);
  const double fail_above = o.fail_above.empty() ? -1 : parse_fraction(o.fail_above, "--fail-above");
  const std::string db = o.db.empty() ? HistoryStore::default_path() : o.db;
  const auto a = load_run_source(o.a, db, /*offer_published=*/false);  // compare refuses published figures
  const auto b = load_run_source(o.b, db, /*offer_published=*/false);
  for (const auto* src : {&a, &b})
    if (is_published_run(src->run))
      throw UsageError(fmt::format("{} holds published figures (whole-training times, no samples), which compare cannot "
                                   "test: compare two measured runs; `accelbench report RUN` shows a run's speed-ups beside "
                                   "the article's", src->name));
  const auto cmp = compare_runs(a.run, b.run, co);

  print_out(runs_line(a, b) + render_comparison(cmp, co, o.verbose));
  if (fail_above >= 0 && cmp.cases.empty()) {
    std::fprintf(stderr, "accelbench: --fail-above: no case in common between A and B, so nothing was checked\n");
    return 1;
  }
  if (fail_above >= 0) {
    const auto bad = regressions_beyond(cmp, fail_above);
    if (!bad.empty()) {
      std::vector<std::string> names;
      for (const auto* c : bad) names.push_back(fmt::format("{} on {} {:+.1f}%", c->workload, c->device, 100 * (c->result.ratio - 1)));
      std::fprintf(stderr, "accelbench: %zu case%s slower by more than %g%%: %s\n", bad.size(), bad.size() == 1 ? "" : "s",
                   100 * fail_above, fmt::format("{}", fmt::join(names, ", ")).c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace

void add_compare_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<CompareCliOptions>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Compare run B against run A, case by case: ratio, CI, verdict SAME/FASTER/SLOWER/UNCERTAIN.\n"
      "Exit codes: 0 ok; 1 with --fail-above when a case got SLOWER by more than it, or no case is in common; "
      "2 bad input.");
  cmd->add_option("A", o->a, "Baseline: a run id or uid (accelbench history) or a JSON file")->required();
  cmd->add_option("B", o->b, "Candidate, the same way")->required();
  cmd->add_option("--db", o->db, "History database (default: $XDG_DATA_HOME/accelbench/history.db)");
  cmd->add_option("--fail-above", o->fail_above, "Exit 1 when a case got SLOWER by more than this, e.g. 5%");
  cmd->add_option("--alpha", o->alpha, "Significance level of the Mann-Whitney U test")->capture_default_str();
  cmd->add_option("--min-effect", o->min_effect, "Smaller changes are SAME even when significant")->capture_default_str();
  cmd->add_option("--equivalence", o->equivalence, "Not significant: SAME only when the CI lies within 1 +- this")
      ->capture_default_str();
  cmd->add_option("--min-samples", o->min_samples, "Fewer samples on either side: UNCERTAIN")->capture_default_str();
  cmd->add_flag("--verbose,-v", o->verbose, "Also each verdict's p and reason, and how the verdict is reached");
  cmd->callback([&action, o]() { action = [o]() { return execute_compare(*o); }; });
}

}  // namespace accelbench
