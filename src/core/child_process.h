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

// One line: "crashed: signal 6 (Aborted)", "crashed: signal 9 (Killed) after the time limit of
// 90 s", "exited with code 2", "could not start: ...".
std::string describe_child_failure(const ChildOutcome& outcome);

// The running binary's path (/proc/self/exe on Linux, _NSGetExecutablePath on macOS).
std::string self_executable_path();

// The last non-empty line of a text file ("" when none); for a child's stderr.
std::string last_line_of_file(const std::string& path);

}  // namespace accelbench
