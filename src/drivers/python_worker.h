#pragma once
// The Python round server of a run (python/accelbench_worker/server.py; protocol.py is the other
// side of what is said here): one interpreter started once, with the package's folder on
// PYTHONPATH, that imports torch and the workloads once and runs each round it is asked for in a
// fresh process of its own (a fork taken before any device is initialised; a fresh interpreter on
// macOS). A round's wall time is measured here, from the request to its end, so that it holds the
// round process's start as a C++ round's holds its child's. A server that dies is started again
// for the next round; the server and its rounds end with this process (core/child_process.h's
// tie_to_parent), and when this object is destroyed. No torch here.
#include <nlohmann/json.hpp>

#include <string>

#include "core/child_process.h"

namespace accelbench {

// What this build's harness and worker say to each other; a worker that says another is refused.
inline constexpr int kPythonWorkerProtocol = 2;

// The interpreter the Python cases run under, as it reported itself.
struct PythonInterpreter {
  std::string path;            // as given (--python) or found
  std::string python_version;  // "3.11.7"
  std::string torch_version;   // "2.13.0+cpu": may differ from the C++ engine's libtorch
  bool cuda = false;           // its torch has CUDA
  bool forks_rounds = false;   // the server forks each round (false: a fresh interpreter per round)
};

class PythonWorker {
 public:
  // Starts the server under `python` and reads its hello. UsageError, one line: it cannot start,
  // it cannot import torch (`reason` set and the object left stopped instead, when `reason` is
  // given: a candidate that fails), or its protocol is not this build's (always thrown).
  PythonWorker(std::string python, std::string worker_dir, std::string* reason = nullptr);
  ~PythonWorker();
  PythonWorker(const PythonWorker&) = delete;
  PythonWorker& operator=(const PythonWorker&) = delete;

  bool started() const { return server_.pid > 0; }
  const PythonInterpreter& interpreter() const { return interpreter_; }
  const std::string& worker_dir() const { return worker_dir_; }
  // A folder of this worker's for its rounds' result files (removed with it).
  const std::string& scratch_dir() const { return scratch_; }

  // One round: `command` ("measure" or "check") with `request`, its result written to `out_path`
  // by the round's process. Killed with SIGKILL past `timeout_s` (timed_out then). The outcome's
  // wall time runs from the request to the round's end.
  ChildOutcome run(const std::string& command, const nlohmann::json& request, const std::string& out_path,
                   double timeout_s);
  // What the server and its rounds wrote on stderr since the last call (passed on by the caller).
  std::string new_stderr();
  // The last line of that text, as the last call returned it ("" when none).
  const std::string& last_stderr_line() const { return last_line_; }

 private:
  enum class ReadResult { message, ended, timed_out };
  bool start(std::string& why);
  void stop();
  // The server's next line of JSON, by `deadline_s` (seconds of the steady clock).
  ReadResult read_message(nlohmann::json& message, double deadline_s);

  std::string python_, worker_dir_, scratch_, stderr_path_;
  PipedChild server_;
  PythonInterpreter interpreter_;
  std::string buffer_;        // what the server wrote that is not yet a whole line
  long long stderr_read_ = 0;  // bytes of the stderr file already passed on
  std::string last_line_;
};

}  // namespace accelbench
