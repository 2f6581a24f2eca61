#pragma once
// Runs the real accelbench binary for the end-to-end tests: exit code, stdout and stderr. Each
// run gets its own history database, so tests never write into the user's.
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "../support/text_util.h"
#include "../unit/test_files.h"

#include <gtest/gtest.h>

namespace accelbench::testing {

struct CliResult {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `env` is put before the binary on the command line (e.g. "VAR=1" or "env -u VAR"). `run` without
// --impl measures the C++ loop here (ACCELBENCH_IMPL=cpp), as these tests were written for; the
// tests of the default loop give "ACCELBENCH_IMPL=" (unset: the product's own default).
inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  TempDir dir;
  const auto out = dir.file("out"), err = dir.file("err");
  const std::string cmd = "env ACCELBENCH_IMPL=cpp ACCELBENCH_DB=" + dir.file("history.db") + " " + env + " " + ACCELBENCH_BIN + " " + args +
                          " >" + out + " 2>" + err + " </dev/null";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Bad input: exit code 2 and one line on stderr that contains `fragment`. Returns the result for
// further checks.
inline CliResult expect_usage_error(const std::string& args, const std::string& fragment, const std::string& env = "") {
  const auto r = run_cli(args, env);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << "one line for: " << args << "\n" << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << args << "\n" << r.err;
  return r;
}

}  // namespace accelbench::testing
