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

// One line: "crashed: signal 6 (Aborted)", "crashed: signal 9 (Killed) after the time limit of
// 90 s", "exited with code 2", "could not start: ...".
std::string describe_child_failure(const ChildOutcome& outcome);

// The running binary's path (/proc/self/exe on Linux, _NSGetExecutablePath on macOS).
std::string self_executable_path();

// The last non-empty line of a text file ("" when none); for a child's stderr.
std::string last_line_of_file(const std::string& path);

}  // namespace accelbench
