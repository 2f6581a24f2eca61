#include "drivers/isolated_measurer.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/child_process.h"
#include "core/errors.h"
#include "core/safe_write.h"

namespace accelbench {

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

ScratchDir::ScratchDir() {
  // A sweep killed with SIGKILL leaves its folder behind: the next one removes those of dead processes.
  const auto tmp = std::filesystem::temp_directory_path();
  remove_stale_temporaries(tmp.string(), "accelbench-sweep-", StaleKind::folders);
  std::string tmpl = (tmp / fmt::format("accelbench-sweep-{}.XXXXXX", ::getpid())).string();
  if (!::mkdtemp(tmpl.data())) throw UsageError(fmt::format("cannot create a temporary folder in {}", tmpl));
  path = tmpl;
}

// remove_tree, not std::filesystem::remove_all (core/safe_write.h says why).
ScratchDir::~ScratchDir() { remove_tree(path.string()); }

void to_json(nlohmann::json& j, const MeasureRequest& v) {
  j = {{"spec", v.spec}, {"measure", v.options}, {"memory_limit_bytes", v.memory_limit_bytes}};
}
void from_json(const nlohmann::json& j, MeasureRequest& v) {
  v.spec = j.at("spec").get<CaseSpec>();
  v.options = j.at("measure").get<MeasureOptions>();
  v.memory_limit_bytes = j.value("memory_limit_bytes", std::uint64_t{0});
}

CaseResult IsolatedMeasurer::measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& /*progress*/) {
  const std::size_t index = count_++;
  const auto out = (scratch_.path / fmt::format("point-{}.json", index)).string();
  const auto err = (scratch_.path / fmt::format("point-{}.stderr", index)).string();
  const nlohmann::json request = MeasureRequest{spec, options, memory_limit_bytes_};
  const double timeout_s = 2 * options.settings.stopping.max_time_s + 120;
  const auto outcome =
      run_child({self_executable_path(), kMeasureCaseCommand, "--spec-json", request.dump(), "--out", out}, err, timeout_s);
  const auto child_err = slurp(err);
  if (!child_err.empty()) std::fputs(child_err.c_str(), stderr);  // the child's own messages, as they were
  CaseResult r;
  r.spec = spec;
  r.ci_target = options.settings.stopping.ci_target;
  r.wall_s = outcome.wall_s;
  if (outcome.exited && outcome.exit_code == 0) {
    try {
      r = nlohmann::json::parse(slurp(out)).get<CaseResult>();
      r.wall_s = std::max(r.wall_s, outcome.wall_s);  // start-up and build in the child count too
    } catch (const std::exception& e) {
      r.fail(FailureKind::crashed, fmt::format("the child's result could not be read: {}", e.what()));
    }
    return r;
  }
  std::string error = describe_child_failure(outcome);
  if (outcome.exited) {
    const auto last = last_line_of_file(err);
    error = "child " + error + (last.empty() ? "" : ": " + last);
  }
  r.fail(FailureKind::crashed, error);
  return r;
}

}  // namespace accelbench
