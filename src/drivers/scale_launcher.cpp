#include "drivers/scale_launcher.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/child_process.h"

namespace accelbench {

int free_tcp_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 29500;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = 29500;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

namespace {
using Clock = std::chrono::steady_clock;

struct Rank {
  int pid = -1;
  bool done = false;
  ChildOutcome outcome;
  std::string result_path, log_path;
};

std::vector<std::string> rank_env(const RankLaunch& l, int rank, int port) {
  return {fmt::format("RANK={}", rank), fmt::format("WORLD_SIZE={}", l.world_size), fmt::format("LOCAL_RANK={}", rank),
          fmt::format("LOCAL_WORLD_SIZE={}", l.world_size), "MASTER_ADDR=" + l.master_addr, fmt::format("MASTER_PORT={}", port)};
}

bool read_result(const std::string& path, RankMeasurement& m) {
  std::ifstream in(path);
  if (!in) return false;
  try {
    m = nlohmann::json::parse(in).get<RankMeasurement>();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Why rank r failed: its own error line, else how its process ended and its stderr's last line.
std::string failure_of(int r, const Rank& rank) {
  RankMeasurement m;
  if (read_result(rank.result_path, m) && !m.error.empty()) return fmt::format("rank {} failed: {}", r, m.error);
  std::string why = rank.outcome.exited && rank.outcome.exit_code == 0 ? std::string("exited without a result")
                                                                       : describe_child_failure(rank.outcome);
  const auto last = last_line_of_file(rank.log_path);
  return fmt::format("rank {} failed: {}{}", r, why, last.empty() ? "" : " (" + last + ")");
}

void signal_all(std::vector<Rank>& ranks, int sig) {
  for (auto& r : ranks)
    if (!r.done && r.pid > 0) ::kill(r.pid, sig);
}

bool failed(const Rank& r) {
  RankMeasurement m;
  return !(r.outcome.exited && r.outcome.exit_code == 0 && read_result(r.result_path, m) && m.error.empty());
}

// Waits for every rank; on the first failure ends the others; returns the error ("" when none).
std::string supervise(const RankLaunch& l, std::vector<Rank>& ranks, int& failed_rank) {
  const auto start = Clock::now();
  std::string error;
  std::optional<Clock::time_point> stop_since;
  auto elapsed = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  for (std::size_t left = ranks.size(); left > 0;) {
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      auto& rank = ranks[r];
      if (rank.done || !poll_child(rank.pid, rank.outcome)) continue;
      rank.done = true;
      --left;
      if (error.empty() && failed(rank)) {
        failed_rank = static_cast<int>(r);
        error = failure_of(static_cast<int>(r), rank);
        signal_all(ranks, SIGTERM);
        stop_since = Clock::now();
      }
    }
    if (error.empty() && elapsed(start) > l.timeout_s) {
      error = fmt::format("world size {} did not finish within its time limit of {:.0f} s: every rank ended", l.world_size, l.timeout_s);
      signal_all(ranks, SIGKILL);
      stop_since = Clock::now();
    }
    if (stop_since && elapsed(*stop_since) > l.grace_s) signal_all(ranks, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return error;
}
}  // namespace

LaunchOutcome launch_ranks(const RankLaunch& l) {
  LaunchOutcome out;
  std::filesystem::create_directories(l.work_dir);
  const int port = l.master_port > 0 ? l.master_port : free_tcp_port();
  std::vector<Rank> ranks(static_cast<std::size_t>(l.world_size));
  for (int r = 0; r < l.world_size; ++r) {
    auto& rank = ranks[static_cast<std::size_t>(r)];
    rank.result_path = fmt::format("{}/rank{}.json", l.work_dir, r);
    rank.log_path = fmt::format("{}/rank{}.log", l.work_dir, r);
    std::filesystem::remove(rank.result_path);
    auto argv = l.argv;
    argv.insert(argv.end(), {"--out", rank.result_path});
    std::string error;
    rank.pid = start_child(argv, rank_env(l, r, port), rank.log_path, error);
    if (rank.pid < 0) {
      signal_all(ranks, SIGKILL);
      for (auto& started : ranks)
        if (started.pid > 0 && !started.done) while (!poll_child(started.pid, started.outcome)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      out.failed_rank = r;
      out.error = fmt::format("rank {} failed: {}", r, error);
      return out;
    }
  }
  out.error = supervise(l, ranks, out.failed_rank);
  for (const auto& rank : ranks) {
    RankMeasurement m;
    if (read_result(rank.result_path, m)) out.ranks.push_back(std::move(m));
  }
  return out;
}

ScaleResult scale_on_this_host(const ScaleRankRequest& request, const std::vector<int>& world_sizes,
                               const std::string& self, const std::string& rank_command, const std::string& work_dir,
                               const std::function<void(const std::string&)>& say) {
  ScaleResult result;
  result.request = request;
  result.launcher = "accelbench";
  const std::string request_json = nlohmann::json(request).dump();
  for (int n : world_sizes) {
    RankLaunch launch;
    launch.argv = {self, rank_command, "--request-json", request_json};
    launch.world_size = n;
    launch.work_dir = fmt::format("{}/world{}", work_dir, n);
    // Build, warm-up and sampling, plus the rendezvous and the bare all-reduce.
    launch.timeout_s = 2 * request.options.settings.stopping.max_time_s + request.collective_timeout_s + 120;
    auto outcome = launch_ranks(launch);
    auto point = summarize_scale_point(n, std::move(outcome.ranks), request.batch_size);
    if (!outcome.error.empty()) point.error = outcome.error;
    if (say) say(point.error.empty() ? fmt::format("{} GPU{}: {:.3f} ms per step, {:.1f} samples/s", n, n == 1 ? "" : "s",
                                                   1e3 * point.step.median, point.samples_per_s)
                                     : fmt::format("{} GPU{}: {}", n, n == 1 ? "" : "s", point.error));
    result.points.push_back(std::move(point));
  }
  derive_scaling(result);
  return result;
}

}  // namespace accelbench
