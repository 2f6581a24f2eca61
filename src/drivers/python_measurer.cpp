#include "drivers/python_measurer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
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
#include "core/safe_write.h"
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

std::string read_worker_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool holds_worker(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "accelbench_worker" / "__main__.py", ec);
}

std::string new_scratch_dir() {
  std::string tmpl = (fs::temp_directory_path() / "accelbench-python-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw UsageError(fmt::format("cannot create a temporary folder in {}", tmpl));
  return tmpl;
}

// python -m accelbench_worker COMMAND ..., the worker's folder on PYTHONPATH (through env(1)).
std::vector<std::string> worker_argv(const std::string& python, const std::string& worker_dir, const std::string& command) {
  std::string path = worker_dir;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  return {"/usr/bin/env", "PYTHONPATH=" + path, python, "-m", "accelbench_worker", command};
}

// The worker's one line without its "error: " prefix.
std::string worker_line(const std::string& line) { return line.rfind("error: ", 0) == 0 ? line.substr(7) : line; }

struct WorkerRun {
  ChildOutcome outcome;
  std::string out, err;  // the --out file's text, the stderr file's last line
  bool ok() const { return outcome.exited && outcome.exit_code == 0; }
};

// Runs a worker command whose result goes to a scratch file; the worker's stderr passed on when asked.
WorkerRun run_worker(std::vector<std::string> argv, const std::string& scratch, const std::string& stem, double timeout_s,
                     bool pass_stderr) {
  const auto out = (fs::path(scratch) / (stem + ".json")).string();
  const auto err = (fs::path(scratch) / (stem + ".stderr")).string();
  argv.push_back("--out");
  argv.push_back(out);
  WorkerRun run;
  run.outcome = run_child(argv, err, timeout_s);
  if (pass_stderr) {
    const auto text = read_worker_file(err);
    if (!text.empty()) std::fputs(text.c_str(), stderr);
  }
  run.err = last_line_of_file(err);
  if (run.ok()) run.out = read_worker_file(out);
  return run;
}

// The interpreter's own report (the worker's `version`), or "" with `why` set.
std::optional<PythonInterpreter> probe_python(const std::string& python, const std::string& worker_dir,
                                              const std::string& scratch, std::string& why) {
  const auto run = run_worker(worker_argv(python, worker_dir, "version"), scratch, "version", 120, false);
  if (!run.ok()) {
    why = run.err.empty() ? describe_child_failure(run.outcome) : worker_line(run.err);
    return std::nullopt;
  }
  try {
    const auto j = nlohmann::json::parse(run.out);
    return PythonInterpreter{python, j.at("python_version").get<std::string>(), j.at("torch").get<std::string>(),
                             j.value("cuda", false)};
  } catch (const std::exception& e) {
    why = fmt::format("its report could not be read ({})", e.what());
    return std::nullopt;
  }
}

std::vector<std::string> python_candidates() {
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

std::string python_worker_dir() {
  std::vector<fs::path> places;
  if (const char* env = std::getenv("ACCELBENCH_PYTHON_WORKER"); env && *env) places.emplace_back(env);
  const auto exe_dir = fs::path(self_executable_path()).parent_path();  // bin/, or libexec/accelbench/ installed
  for (const auto& prefix : {exe_dir.parent_path(), exe_dir.parent_path().parent_path()})
    places.push_back(prefix / "share" / "accelbench" / "python");
  if (*ACCELBENCH_SOURCE_PYTHON_DIR) places.emplace_back(ACCELBENCH_SOURCE_PYTHON_DIR);
  for (const auto& p : places)
    if (holds_worker(p)) return p.string();
  throw UsageError(fmt::format("the Python measurer (accelbench_worker) is not installed: looked in {}{}",
                               places.front().string(), places.size() > 1 ? " and beside the binary" : ""));
}

PythonInterpreter find_python(const std::string& requested, const std::string& worker_dir) {
  const auto scratch = new_scratch_dir();
  struct Cleanup {
    std::string dir;
    ~Cleanup() { remove_tree(dir); }
  } cleanup{scratch};
  std::string why;
  if (!requested.empty()) {
    if (auto p = probe_python(requested, worker_dir, scratch, why)) return *p;
    throw UsageError(fmt::format("--python {}: {}", requested, why));
  }
  std::vector<std::string> tried;
  for (const auto& candidate : python_candidates()) {
    if (std::find(tried.begin(), tried.end(), candidate) != tried.end()) continue;
    tried.push_back(candidate);
    if (auto p = probe_python(candidate, worker_dir, scratch, why)) return *p;
  }
  throw UsageError(fmt::format("no python3 that imports torch (tried {}); name one with --python PATH",
                               tried.empty() ? std::string("none on PATH") : fmt::format("{}", fmt::join(tried, ", "))));
}

void check_python_case(const std::string& worker_dir, const CaseSpec& spec, const MeasureOptions& options) {
  const auto scratch = new_scratch_dir();
  const nlohmann::json request = MeasureRequest{spec, options, 0};
  auto argv = worker_argv(options.inputs.python, worker_dir, "check");
  argv.insert(argv.end(), {"--spec-json", request.dump()});
  const auto run = run_worker(argv, scratch, "check", 300, false);
  remove_tree(scratch);
  if (run.ok()) return;
  std::string line = worker_line(run.err);
  if (line.empty()) line = fmt::format("{}: the Python check {}", model_label(spec), describe_child_failure(run.outcome));
  throw UsageError(line);
}

PythonMeasurer::PythonMeasurer(CaseMeasurer& cpp, std::string worker_dir)
    : cpp_(cpp), worker_dir_(std::move(worker_dir)), scratch_(new_scratch_dir()) {}

PythonMeasurer::~PythonMeasurer() { remove_tree(scratch_); }

CaseResult PythonMeasurer::measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) {
  if (!is_python(spec)) return cpp_.measure(spec, options, progress);
  const nlohmann::json request = MeasureRequest{spec, options, 0};
  auto argv = worker_argv(options.inputs.python, worker_dir_, "measure");
  argv.insert(argv.end(), {"--spec-json", request.dump()});
  // Compilation happens before the round's clock starts and may take minutes (max-autotune).
  const double timeout_s = 2 * options.settings.stopping.max_time_s + (spec.compile.empty() ? 120 : 900);
  const auto run = run_worker(argv, scratch_, fmt::format("round-{}", count_++), timeout_s, true);
  CaseResult r;
  r.spec = spec;
  r.ci_target = options.settings.stopping.ci_target;
  r.wall_s = run.outcome.wall_s;
  if (!run.ok()) {
    const auto error = describe_child_failure(run.outcome);
    r.fail(FailureKind::crashed, "the Python worker " + error + (run.err.empty() ? "" : ": " + run.err));
    return r;
  }
  try {
    r = nlohmann::json::parse(run.out).get<CaseResult>();
  } catch (const std::exception& e) {
    r.fail(FailureKind::crashed, fmt::format("the Python worker's result could not be read: {}", e.what()));
    return r;
  }
  const int threads = r.spec.threads;
  r.spec = spec;  // the case as asked, with the threads the worker ran with
  r.spec.threads = threads;
  r.wall_s = std::max(r.wall_s, run.outcome.wall_s);  // the interpreter's start and torch's import count too
  derive_case_figures(r);
  return r;
}

PythonSetup find_python_setup(const std::string& requested_python, const std::string& py_optimizer,
                              const std::vector<CaseSpec>& cases, WorkloadInputs& in) {
  const auto worker_dir = python_worker_dir();
  const auto interpreter = find_python(requested_python, worker_dir);
  for (const auto& c : cases)
    if (is_python(c) && c.device.rfind("cuda", 0) == 0 && !interpreter.cuda)
      throw UsageError(fmt::format("{}: its torch {} has no CUDA, and the Python cases on {} need it (--python names another)",
                                   interpreter.path, interpreter.torch_version, c.device));
  in.python = interpreter.path;
  in.py_optimizer = py_optimizer;
  return PythonSetup{worker_dir, interpreter.path, interpreter.python_version, interpreter.torch_version};
}

nlohmann::json python_context(const PythonSetup& s) {
  if (!s.active()) return nullptr;
  return {{"interpreter", s.interpreter}, {"python", s.python_version}, {"torch", s.torch_version}, {"worker", s.worker_dir}};
}

std::unique_ptr<CaseMeasurer> with_python_cases(std::unique_ptr<CaseMeasurer> cpp, const PythonSetup& setup) {
  if (!setup.active()) return cpp;
  struct Owning : PythonMeasurer {
    Owning(std::unique_ptr<CaseMeasurer> inner, const std::string& dir) : PythonMeasurer(*inner, dir), owned(std::move(inner)) {}
    std::unique_ptr<CaseMeasurer> owned;
  };
  return std::make_unique<Owning>(std::move(cpp), setup.worker_dir);
}

}  // namespace accelbench
