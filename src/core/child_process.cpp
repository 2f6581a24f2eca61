#include "core/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

extern char** environ;

namespace accelbench {

namespace {
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
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = spawn_quiet(pid, args, environ, stderr_path);
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
  std::vector<char*> args, env;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : extra_env) env.push_back(const_cast<char*>(e.c_str()));
  for (char** e = environ; *e; ++e) env.push_back(*e);  // the first of a name wins (glibc getenv)
  env.push_back(nullptr);
  pid_t pid = 0;
  const int rc = spawn_quiet(pid, args, env.data(), stderr_path);
  if (rc != 0) {
    error = fmt::format("could not start {}: {}", argv[0], std::strerror(rc));
    return -1;
  }
  return pid;
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
