#pragma once
// The fatal-signal handler: a backtrace, the faulting address and thread on stderr, then death by
// the same signal (so exit statuses and core dumps stay what they would be).

namespace accelbench {

void install_crash_handler();

}  // namespace accelbench
