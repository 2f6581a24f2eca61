#pragma once
// Running one sweep point in a child process (no torch here): the child is the same binary,
// re-executed with a hidden sub-command, so that a crash, an abort or a killed process ends only
// that point. See docs/sweeps.md.
#include <string>
#include <vector>

namespace accelbench {

struct ChildOutcome {
  bool started = false;
  std::string start_error;   // why it could not start
  bool exited = false;       // exited normally (exit_code is valid)
  int exit_code = 0;
  int signal = 0;            // killed by this signal
  bool timed_out = false;    // killed by us (SIGKILL) when its time was up
  double wall_s = 0;
};

// Runs argv[0] with these arguments (no shell), stdin and stdout on /dev/null, stderr appended to
// `stderr_path` (inherited when empty). Waits until it ends, or `timeout_s` (> 0) has passed, when
// it is killed with SIGKILL.
ChildOutcome run_child(const std::vector<std::string>& argv, const std::string& stderr_path, double timeout_s);

// Several children at once (the ranks of `accelbench scale`): starts argv with `extra_env`
// ("NAME=value") added to this process's environment, stdin and stdout on /dev/null, stderr to
// `stderr_path`. Returns the pid, or -1 with `error` set.
int start_child(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                const std::string& stderr_path, std::string& error);
// Without blocking: whether child `pid` has ended; when it has, `outcome` says how.
bool poll_child(int pid, ChildOutcome& outcome);

// A child that speaks over pipes (the Python round server, drivers/python_worker.h): started as
// start_child starts one, with its stdin and stdout on two pipes whose other ends this process
// holds (close-on-exec). pid -1 with `error` set when it cannot start.
struct PipedChild {
  int pid = -1;
  int stdin_fd = -1;   // write end: what the child reads
  int stdout_fd = -1;  // read end: what the child writes
};
PipedChild start_piped_child(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                             const std::string& stderr_path, std::string& error);

// Every child started here gets ACCELBENCH_PARENT_PID (this process's pid) in its environment, so
// that it can tie its life to this process: tie_to_parent() in the child ends it when this process
// ends, a SIGKILL included (Linux: PR_SET_PDEATHSIG, at once; elsewhere a thread that watches the
// parent's id, within a quarter of a second). A no-op where the variable is not set. A child of a
// thread that ends would be ended with that thread (PR_SET_PDEATHSIG follows the thread that
// started it): children are started from the main thread.
inline constexpr const char* kParentPidVariable = "ACCELBENCH_PARENT_PID";
void tie_to_parent();

// One line: "crashed: signal 6 (Aborted)", "crashed: signal 9 (Killed) after the time limit of
// 90 s", "exited with code 2", "could not start: ...".
std::string describe_child_failure(const ChildOutcome& outcome);

// The running binary's path (/proc/self/exe on Linux, _NSGetExecutablePath on macOS).
std::string self_executable_path();

// The last non-empty line of a text file ("" when none); for a child's stderr.
std::string last_line_of_file(const std::string& path);

}  // namespace accelbench
