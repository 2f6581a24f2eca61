#include "drivers/python_measurer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "core/case_figures.h"
#include "core/child_process.h"
#include "core/errors.h"
#include "core/torch_build.h"
#include "drivers/isolated_measurer.h"

#ifndef ACCELBENCH_SOURCE_PYTHON_DIR
#define ACCELBENCH_SOURCE_PYTHON_DIR ""
#endif
#ifndef ACCELBENCH_BUILD_PYTHON
#define ACCELBENCH_BUILD_PYTHON ""
#endif

namespace accelbench {

namespace {
namespace fs = std::filesystem;

bool holds_worker(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "accelbench_worker" / "__main__.py", ec);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The worker's one line without its "error: " prefix.
std::string worker_line(const std::string& line) { return line.rfind("error: ", 0) == 0 ? line.substr(7) : line; }

// The python3 of each PATH folder, then the Python of the libtorch this binary was built with.
std::vector<std::string> path_pythons() {
  std::vector<std::string> found;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const auto p = fs::path(dir.empty() ? "." : dir) / "python3";
    if (::access(p.c_str(), X_OK) == 0) found.push_back(p.string());
  }
  if (*ACCELBENCH_BUILD_PYTHON) found.push_back(ACCELBENCH_BUILD_PYTHON);
  return found;
}
}  // namespace

std::vector<std::string> python_candidates() {
  std::vector<std::string> found;
  if (const char* env = std::getenv("ACCELBENCH_PYTHON"); env && *env) found.emplace_back(env);
  for (auto& p : path_pythons()) found.push_back(std::move(p));
  return found;
}

std::optional<PythonProbe> probe_python(const std::string& python) {
  if (python.find('\'') != std::string::npos) return std::nullopt;
  // find_spec locates torch without importing it; version.py in its folder names the build.
  const std::string command = "'" + python + "' -c 'import sys, importlib.util as u; s = u.find_spec(\"torch\"); "
                              "print(sys.version.split()[0]); print(s.submodule_search_locations[0] if s else \"\")' "
                              "2>/dev/null";
  FILE* out = ::popen(command.c_str(), "r");
  if (!out) return std::nullopt;
  std::string text;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, out)) text += buffer;
  if (::pclose(out) != 0) return std::nullopt;
  std::stringstream lines(text);
  PythonProbe probe;
  std::getline(lines, probe.python_version);
  std::getline(lines, probe.torch_dir);
  if (probe.python_version.empty()) return std::nullopt;
  probe.torch = read_torch_build(probe.torch_dir);
  return probe;
}

std::string python_worker_dir() {
  std::vector<fs::path> places;
  if (const char* env = std::getenv("ACCELBENCH_PYTHON_WORKER"); env && *env) places.emplace_back(env);
  const auto exe_dir = fs::path(self_executable_path()).parent_path();  // bin/, or libexec/accelbench/ installed
  for (const auto& prefix : {exe_dir.parent_path(), exe_dir.parent_path().parent_path()})
    places.push_back(prefix / "share" / "accelbench" / "python");
  places.push_back(exe_dir.parent_path());  // pip: site-packages/accelbench/accelbench-engine beside accelbench_worker/
  if (*ACCELBENCH_SOURCE_PYTHON_DIR) places.emplace_back(ACCELBENCH_SOURCE_PYTHON_DIR);
  for (const auto& p : places)
    if (holds_worker(p)) return p.string();
  throw UsageError(fmt::format("the Python measurer (accelbench_worker) is not installed: looked in {}{}",
                               places.front().string(), places.size() > 1 ? " and beside the binary" : ""));
}

std::shared_ptr<PythonWorker> find_python(const std::string& requested, const std::string& worker_dir) {
  if (!requested.empty()) {
    std::string why;
    auto worker = std::make_shared<PythonWorker>(requested, worker_dir, &why);
    if (worker->started()) return worker;
    throw UsageError(fmt::format("--python {}: {}", requested, why));
  }
  std::vector<std::string> tried;
  for (const auto& candidate : python_candidates()) {
    if (std::find(tried.begin(), tried.end(), candidate) != tried.end()) continue;
    tried.push_back(candidate);
    std::string why;
    auto worker = std::make_shared<PythonWorker>(candidate, worker_dir, &why);
    if (worker->started()) return worker;
  }
  throw UsageError(fmt::format("no python3 that imports torch (tried {}); name one with --python PATH",
                               tried.empty() ? std::string("none on PATH") : fmt::format("{}", fmt::join(tried, ", "))));
}

void check_python_case(PythonWorker& worker, const CaseSpec& spec, const MeasureOptions& options) {
  const auto out = (fs::path(worker.scratch_dir()) / "check.json").string();
  const auto outcome = worker.run("check", MeasureRequest{spec, options, 0}, out, 300);
  worker.new_stderr();
  std::error_code ec;
  fs::remove(out, ec);
  if (outcome.exited && outcome.exit_code == 0) return;
  std::string line = worker_line(worker.last_stderr_line());
  if (line.empty()) line = fmt::format("{}: the Python check {}", model_label(spec), describe_child_failure(outcome));
  throw UsageError(line);
}

PythonMeasurer::PythonMeasurer(CaseMeasurer& cpp, std::shared_ptr<PythonWorker> worker)
    : cpp_(cpp), worker_(std::move(worker)) {}

CaseResult PythonMeasurer::measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) {
  if (!is_python(spec)) return cpp_.measure(spec, options, progress);
  const auto out = (fs::path(worker_->scratch_dir()) / fmt::format("round-{}.json", count_++)).string();
  // Compilation happens before the round's clock starts and may take minutes (max-autotune).
  const double timeout_s = 2 * options.settings.stopping.max_time_s + (spec.compile.empty() ? 120 : 900);
  const auto outcome = worker_->run("measure", MeasureRequest{spec, options, 0}, out, timeout_s);
  if (const auto text = worker_->new_stderr(); !text.empty()) std::fputs(text.c_str(), stderr);
  CaseResult r;
  r.spec = spec;
  r.ci_target = options.settings.stopping.ci_target;
  r.wall_s = outcome.wall_s;
  if (!(outcome.exited && outcome.exit_code == 0)) {
    const auto& last = worker_->last_stderr_line();
    const auto what = outcome.start_error.empty() ? describe_child_failure(outcome) : outcome.start_error;
    r.fail(FailureKind::crashed, "the Python worker " + what + (last.empty() ? "" : ": " + last));
    return r;
  }
  try {
    r = nlohmann::json::parse(read_text(out)).get<CaseResult>();
  } catch (const std::exception& e) {
    r.fail(FailureKind::crashed, fmt::format("the Python worker's result could not be read: {}", e.what()));
    return r;
  }
  std::error_code ec;
  fs::remove(out, ec);
  const int threads = r.spec.threads;
  r.spec = spec;  // the case as asked, with the threads the worker ran with
  r.spec.threads = threads;
  r.wall_s = std::max(r.wall_s, outcome.wall_s);  // the round process's start counts too
  derive_case_figures(r);
  return r;
}

PythonSetup find_python_setup(const std::string& requested_python, const std::string& py_optimizer,
                              const std::vector<CaseSpec>& cases, WorkloadInputs& in) {
  const auto worker_dir = python_worker_dir();
  auto worker = find_python(requested_python, worker_dir);
  const auto& interpreter = worker->interpreter();
  for (const auto& c : cases)
    if (is_python(c) && c.device.rfind("cuda", 0) == 0 && !interpreter.cuda)
      throw UsageError(fmt::format("{}: its torch {} has no CUDA, and the Python cases on {} need it (--python names another)",
                                   interpreter.path, interpreter.torch_version, c.device));
  in.python = interpreter.path;
  in.py_optimizer = py_optimizer;
  return PythonSetup{worker_dir, interpreter.path, interpreter.python_version, interpreter.torch_version,
                     interpreter.forks_rounds, std::move(worker)};
}

nlohmann::json python_context(const PythonSetup& s) {
  if (!s.active()) return nullptr;
  return {{"interpreter", s.interpreter}, {"python", s.python_version}, {"torch", s.torch_version}, {"worker", s.worker_dir},
          {"rounds", s.forks_rounds ? "forked from one server" : "a fresh interpreter each"}};
}

std::unique_ptr<CaseMeasurer> with_python_cases(std::unique_ptr<CaseMeasurer> cpp, const PythonSetup& setup) {
  if (!setup.active()) return cpp;
  struct Owning : PythonMeasurer {
    Owning(std::unique_ptr<CaseMeasurer> inner, std::shared_ptr<PythonWorker> worker)
        : PythonMeasurer(*inner, std::move(worker)), owned(std::move(inner)) {}
    std::unique_ptr<CaseMeasurer> owned;
  };
  return std::make_unique<Owning>(std::move(cpp), setup.worker);
}

}  // namespace accelbench
