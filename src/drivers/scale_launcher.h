#pragma once
// The ranks of one world size on this host, one process each (no torch here): the same binary
// re-executed with the hidden `_scale-rank` command and torchrun's environment (RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT). When one rank fails (an error, out of
// memory, a crash) the others are ended (SIGTERM, then SIGKILL after a grace period) and the
// failing rank is named; a world size that outlives its time limit is killed whole.
#include <functional>
#include <string>
#include <vector>

#include "core/scale_records.h"

namespace accelbench {

struct RankLaunch {
  std::vector<std::string> argv;  // program and arguments; each rank gets "--out <dir>/rank<R>.json" appended
  int world_size = 1;
  std::string work_dir;           // the ranks' result files and stderr logs (rank<R>.log)
  double timeout_s = 600;
  double grace_s = 5;             // after SIGTERM, before SIGKILL
  std::string master_addr = "127.0.0.1";
  int master_port = 0;            // 0: a free port of this host
};

struct LaunchOutcome {
  std::vector<RankMeasurement> ranks;  // the results the ranks wrote
  int failed_rank = -1;
  std::string error;                   // "rank 1 failed: ...", or the time limit
};

LaunchOutcome launch_ranks(const RankLaunch& launch);

// `scale` on this host: for each world size, its ranks started from `self` (this binary, with the
// hidden command `rank_command` and the request as JSON) and their measurements summarized; then the
// efficiency against world size 1 and the advice. `say` gets a line per world size as it ends.
ScaleResult scale_on_this_host(const ScaleRankRequest& request, const std::vector<int>& world_sizes,
                               const std::string& self, const std::string& rank_command, const std::string& work_dir,
                               const std::function<void(const std::string&)>& say);

// A TCP port that was free a moment ago (bound to port 0 and released).
int free_tcp_port();

}  // namespace accelbench
