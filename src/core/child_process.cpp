#include "core/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <fstream>
#include <thread>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif
#if defined(__linux__)
#include <sys/prctl.h>
#endif

extern char** environ;

namespace accelbench {

namespace {
// This process's environment with `extra` ("NAME=value") and ACCELBENCH_PARENT_PID in place of
// any variables of those names, and the vector of pointers posix_spawn takes.
struct ChildEnvironment {
  std::vector<std::string> owned;
  std::vector<char*> pointers;
  explicit ChildEnvironment(const std::vector<std::string>& extra) {
    owned = extra;
    owned.push_back(fmt::format("{}={}", kParentPidVariable, ::getpid()));
    auto replaced = [&](std::string_view entry) {
      const auto name = entry.substr(0, entry.find('=') + 1);
      return std::any_of(owned.begin(), owned.end(), [&](const std::string& e) { return e.rfind(name, 0) == 0; });
    };
    for (auto& e : owned) pointers.push_back(e.data());
    for (char** e = environ; *e; ++e)
      if (!replaced(*e)) pointers.push_back(*e);
    pointers.push_back(nullptr);
  }
};

std::vector<char*> argv_pointers(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}

// posix_spawn of args[0] with stdin and stdout on /dev/null and stderr appended to `stderr_path`
// (inherited when empty); returns posix_spawn's error number (0: started, `pid` set).
int spawn_quiet(pid_t& pid, std::vector<char*>& args, char* const* envp, const std::string& stderr_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (!stderr_path.empty())
    posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp);
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}
}  // namespace

ChildOutcome run_child(const std::vector<std::string>& argv, const std::string& stderr_path, double timeout_s) {
  ChildOutcome r;
  if (argv.empty()) {
    r.start_error = "no program";
    return r;
  }
  auto args = argv_pointers(argv);
  ChildEnvironment env({});

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = spawn_quiet(pid, args, env.pointers.data(), stderr_path);
  if (rc != 0) {
    r.start_error = fmt::format("could not start {}: {}", argv[0], std::strerror(rc));
    return r;
  }
  r.started = true;
  auto elapsed = [&]() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  int status = 0;
  while (true) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      r.start_error = fmt::format("waiting for the child failed: {}", std::strerror(errno));
      r.wall_s = elapsed();
      return r;
    }
    if (timeout_s > 0 && elapsed() > timeout_s && !r.timed_out) {
      ::kill(pid, SIGKILL);
      r.timed_out = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  r.wall_s = elapsed();
  if (WIFEXITED(status)) {
    r.exited = true;
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  return r;
}

int start_child(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                const std::string& stderr_path, std::string& error) {
  if (argv.empty()) {
    error = "no program";
    return -1;
  }
  auto args = argv_pointers(argv);
  ChildEnvironment env(extra_env);
  pid_t pid = 0;
  const int rc = spawn_quiet(pid, args, env.pointers.data(), stderr_path);
  if (rc != 0) {
    error = fmt::format("could not start {}: {}", argv[0], std::strerror(rc));
    return -1;
  }
  return pid;
}

PipedChild start_piped_child(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                             const std::string& stderr_path, std::string& error) {
  PipedChild child;
  if (argv.empty()) {
    error = "no program";
    return child;
  }
  int to_child[2], from_child[2];
  if (::pipe(to_child) != 0) {
    error = fmt::format("could not make a pipe: {}", std::strerror(errno));
    return child;
  }
  if (::pipe(from_child) != 0) {
    error = fmt::format("could not make a pipe: {}", std::strerror(errno));
    ::close(to_child[0]);
    ::close(to_child[1]);
    return child;
  }
  for (int fd : {to_child[1], from_child[0]}) ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // ours alone
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  posix_spawn_file_actions_addclose(&actions, to_child[0]);
  posix_spawn_file_actions_addclose(&actions, from_child[1]);
  if (!stderr_path.empty())
    posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  auto args = argv_pointers(argv);
  ChildEnvironment env(extra_env);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env.pointers.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (rc != 0) {
    error = fmt::format("could not start {}: {}", argv[0], std::strerror(rc));
    ::close(to_child[1]);
    ::close(from_child[0]);
    return child;
  }
  child.pid = pid;
  child.stdin_fd = to_child[1];
  child.stdout_fd = from_child[0];
  return child;
}

void tie_to_parent() {
  const char* text = std::getenv(kParentPidVariable);
  if (!text || !*text) return;
  const auto parent = static_cast<pid_t>(std::strtol(text, nullptr, 10));
  if (parent <= 0) return;
#if defined(__linux__)
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) == 0) {
    if (::getppid() != parent) std::_Exit(1);  // the parent ended before the tie was made
    return;
  }
#endif
  std::thread([parent] {
    while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    std::_Exit(1);
  }).detach();
}

bool poll_child(int pid, ChildOutcome& o) {
  int status = 0;
  const pid_t w = ::waitpid(pid, &status, WNOHANG);
  if (w == 0 || (w < 0 && errno == EINTR)) return false;
  o.started = true;
  if (w < 0) {
    o.start_error = fmt::format("waiting for the child failed: {}", std::strerror(errno));
    return true;
  }
  if (WIFEXITED(status)) {
    o.exited = true;
    o.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    o.signal = WTERMSIG(status);
  }
  return true;
}

std::string describe_child_failure(const ChildOutcome& o) {
  if (!o.started) return o.start_error.empty() ? "could not start" : o.start_error;
  if (o.signal) {
    const char* name = ::strsignal(o.signal);
    std::string s = fmt::format("crashed: signal {} ({})", o.signal, name ? name : "unknown");
    if (o.timed_out) s += fmt::format(" after the time limit of {:.0f} s", o.wall_s);
    return s;
  }
  if (o.exited) return fmt::format("exited with code {}", o.exit_code);
  return o.start_error.empty() ? "ended in an unknown way" : o.start_error;
}

std::string self_executable_path() {
#if defined(__APPLE__)
  std::uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);
  std::string path(size, '\0');
  if (_NSGetExecutablePath(path.data(), &size) == 0) {
    path.resize(std::strlen(path.c_str()));
    std::error_code ec;
    auto canonical = std::filesystem::canonical(path, ec);
    return ec ? path : canonical.string();
  }
  return {};
#else
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : p.string();
#endif
}

std::string last_line_of_file(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) last = line;
  }
  return last.size() > 300 ? last.substr(0, 300) + "..." : last;
}

}  // namespace accelbench
