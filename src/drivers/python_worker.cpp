#include "drivers/python_worker.h"

#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/errors.h"
#include "core/safe_write.h"

namespace accelbench {

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

std::string new_scratch_dir() {
  std::string tmpl = (fs::temp_directory_path() / "accelbench-python-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw UsageError(fmt::format("cannot create a temporary folder in {}", tmpl));
  return tmpl;
}

// Writes all of `text` to a pipe, SIGPIPE held back (a server that died is an error, not the end
// of this process). False when the pipe is closed.
bool write_to_pipe(int fd, const std::string& text) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  std::size_t done = 0;
  bool ok = true;
  while (done < text.size()) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (!ok) {  // the SIGPIPE it raised, taken before the mask is restored
    const timespec zero{0, 0};
    while (sigtimedwait(&block, nullptr, &zero) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

// How the server's own process ended, once it has (waited for up to `grace_s`, then killed).
ChildOutcome reap(int pid, double grace_s) {
  ChildOutcome o;
  const double until = now_s() + grace_s;
  while (!poll_child(pid, o)) {
    if (now_s() > until) {
      ::kill(pid, SIGKILL);
      o.timed_out = true;
      while (!poll_child(pid, o)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return o;
}

ChildOutcome round_outcome(const nlohmann::json& ended) {
  ChildOutcome o;
  o.started = true;
  if (ended.contains("exit_code")) {
    o.exited = true;
    o.exit_code = ended["exit_code"].get<int>();
  } else {
    o.signal = ended.value("signal", 0);
  }
  return o;
}
}  // namespace

PythonWorker::PythonWorker(std::string python, std::string worker_dir, std::string* reason)
    : python_(std::move(python)), worker_dir_(std::move(worker_dir)), scratch_(new_scratch_dir()) {
  stderr_path_ = (fs::path(scratch_) / "worker.stderr").string();
  std::string why;
  if (start(why)) return;
  if (!reason) {
    remove_tree(scratch_);
    throw UsageError(fmt::format("{}: {}", python_, why));
  }
  *reason = why;
}

PythonWorker::~PythonWorker() {
  stop();
  remove_tree(scratch_);
}

PythonWorker::ReadResult PythonWorker::read_message(nlohmann::json& message, double deadline_s) {
  while (true) {
    if (const auto end = buffer_.find('\n'); end != std::string::npos) {
      const auto line = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      message = nlohmann::json::parse(line, nullptr, false);
      if (!message.is_discarded() && message.is_object()) return ReadResult::message;
      continue;  // not the protocol's: skipped
    }
    const double left = deadline_s - now_s();
    if (left <= 0) return ReadResult::timed_out;
    pollfd p{server_.stdout_fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (ready < 0 && errno != EINTR) return ReadResult::ended;
    if (ready <= 0) continue;
    char chunk[65536];
    const auto n = ::read(server_.stdout_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadResult::ended;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

bool PythonWorker::start(std::string& why) {
  std::string path = worker_dir_;
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  std::string error;
  server_ = start_piped_child({"/usr/bin/env", python_, "-m", "accelbench_worker", "serve"}, {"PYTHONPATH=" + path},
                              stderr_path_, error);
  buffer_.clear();
  if (server_.pid <= 0) {
    why = error;
    return false;
  }
  nlohmann::json hello;
  const auto read = read_message(hello, now_s() + 300);  // an interpreter's start and torch's import
  const auto err = new_stderr();
  if (read != ReadResult::message || hello.value("event", "") != "hello") {
    stop();
    const bool old_worker = err.find("invalid choice: 'serve'") != std::string::npos;
    if (old_worker) hello = {{"protocol", 1}};
    else {
      why = last_line_.empty() ? "it ended before saying which torch it has" : last_line_;
      if (why.rfind("error: ", 0) == 0) why = why.substr(7);
      return false;
    }
  }
  if (hello.value("protocol", 0) != kPythonWorkerProtocol) {
    stop();
    throw UsageError(fmt::format("the Python worker in {} speaks protocol {} and this accelbench {}: it belongs to another "
                                 "build (reinstall accelbench, or point ACCELBENCH_PYTHON_WORKER at this build's python/ folder)",
                                 worker_dir_, hello.value("protocol", 0), kPythonWorkerProtocol));
  }
  if (hello.contains("error")) {
    why = hello["error"].get<std::string>();
    stop();
    return false;
  }
  interpreter_ = PythonInterpreter{python_, hello.value("python_version", ""), hello.value("torch", ""),
                                   hello.value("cuda", false), hello.value("fork", false)};
  return true;
}

void PythonWorker::stop() {
  if (server_.pid <= 0) return;
  ::close(server_.stdin_fd);  // the server's loop ends at stdin's end
  ::close(server_.stdout_fd);
  reap(server_.pid, 2.0);
  server_ = PipedChild{};
}

ChildOutcome PythonWorker::run(const std::string& command, const nlohmann::json& request, const std::string& out_path,
                               double timeout_s) {
  ChildOutcome o;
  std::string why;
  if (!started() && !start(why)) {
    o.start_error = "the Python worker could not start again: " + why;
    return o;
  }
  const double t0 = now_s(), deadline = t0 + timeout_s;
  const nlohmann::json message{{"command", command}, {"request", request}, {"out", out_path}};
  nlohmann::json started_event, ended_event;
  ReadResult read = ReadResult::ended;
  if (write_to_pipe(server_.stdin_fd, message.dump() + "\n")) read = read_message(started_event, deadline);
  if (read == ReadResult::message) read = read_message(ended_event, deadline);
  if (read == ReadResult::timed_out && started_event.contains("pid")) {
    ::kill(started_event["pid"].get<int>(), SIGKILL);
    read = read_message(ended_event, now_s() + 10);
    o = read == ReadResult::message ? round_outcome(ended_event) : ChildOutcome{};
    o.started = true;
    o.timed_out = true;
    if (!o.exited && !o.signal) o.signal = SIGKILL;
  } else if (read == ReadResult::message) {
    o = round_outcome(ended_event);
  } else {  // the server ended (or did not answer): its rounds end with it
    const auto server_end = reap(server_.pid, read == ReadResult::timed_out ? 0.0 : 2.0);
    ::close(server_.stdin_fd);
    ::close(server_.stdout_fd);
    server_ = PipedChild{};
    o.started = true;
    o.timed_out = read == ReadResult::timed_out;
    o.signal = server_end.signal ? server_end.signal : SIGKILL;
    o.start_error = "the Python worker's server ended: " + describe_child_failure(server_end);
  }
  o.wall_s = now_s() - t0;
  return o;
}

std::string PythonWorker::new_stderr() {
  std::ifstream in(stderr_path_, std::ios::binary);
  in.seekg(stderr_read_);
  std::stringstream ss;
  ss << in.rdbuf();
  const auto text = ss.str();
  stderr_read_ += static_cast<long long>(text.size());
  std::istringstream lines(text);
  std::string line;
  last_line_.clear();
  while (std::getline(lines, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) last_line_ = line.size() > 300 ? line.substr(0, 300) + "..." : line;
  }
  return text;
}

}  // namespace accelbench
