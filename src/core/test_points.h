#pragma once
// Named moments for the crash tests (tests/e2e/crash_drivers.py kill-anywhere), which kill the
// process at each:
// "create" (a new history database built beside its path, not yet linked into place), "save" and
// "remove" (inside the transaction that stores a run, or deletes runs, before its COMMIT), "saved"
// and "removed" (just after it), "write" (an output file written and synced under its temporary
// name, not yet renamed over the target) and "written".
//
// Only when ACCELBENCH_TEST_POINTS is set: each point reached writes "accelbench: test point NAME"
// to stderr, and pauses for the seconds the variable gives it ("save:5,write:2"), so that a test
// can kill the process at that instant and know where it was. Unset (always, outside those tests),
// a point does nothing. No torch here.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace accelbench {

inline void test_point(const char* name) {
  const char* spec = std::getenv("ACCELBENCH_TEST_POINTS");
  if (spec == nullptr || *spec == '\0') return;
  std::fprintf(stderr, "accelbench: test point %s\n", name);
  std::fflush(stderr);
  const std::string list = std::string(",") + spec + ",";
  const std::string key = std::string(",") + name + ":";
  const auto at = list.find(key);
  if (at == std::string::npos) return;
  const double seconds = std::strtod(list.c_str() + at + key.size(), nullptr);
  if (seconds > 0 && seconds < 3600) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace accelbench
