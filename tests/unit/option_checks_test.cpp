// The shared option checks of the command line (src/cli/option_checks): output paths, paths that
// must differ (--json and --db), counts given as text. Torch-free.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "cli/option_checks.h"
#include "core/errors.h"

namespace fs = std::filesystem;
using namespace accelbench;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no UsageError)";
}
}  // namespace

TEST(OptionChecks, JsonAndDbMustNotBeTheSameFile) {
  const auto dir = fs::temp_directory_path() / fmt::format("accelbench-options-{}", ::getpid());
  fs::create_directories(dir);
  const auto db = (dir / "h.db").string();
  // Not created yet: by path.
  auto m = error_of([&] { check_distinct_files(db, "--json", (dir / "." / "h.db").string(), "--db"); });
  EXPECT_NE(m.find("name the same file"), std::string::npos) << m;
  std::ofstream(db) << "x";
  fs::create_symlink("h.db", dir / "link.json");
  m = error_of([&] { check_distinct_files((dir / "link.json").string(), "--json", db, "--db"); });
  EXPECT_NE(m.find("--json"), std::string::npos) << m;
  EXPECT_NE(m.find("--db"), std::string::npos) << m;
  check_distinct_files((dir / "r.json").string(), "--json", db, "--db");
  check_distinct_files("", "--json", db, "--db");
  fs::remove_all(dir);
}

TEST(OptionChecks, CheckWritableDoesNotOpenDevicesOrFifos) {
  check_writable("/dev/null", "--json");
  check_writable("/dev/stdout", "--json");
  const auto dir = fs::temp_directory_path() / fmt::format("accelbench-options-w-{}", ::getpid());
  fs::create_directories(dir);
  EXPECT_NE(error_of([&] { check_writable(dir.string(), "--json"); }).find("is a directory"), std::string::npos);
  check_writable((dir / "new.json").string(), "--json");
  EXPECT_FALSE(fs::exists(dir / "new.json"));
  fs::remove_all(dir);
}

TEST(OptionChecks, CountsDoNotWrapAround) {
  EXPECT_EQ(parse_count("20", "--limit", 1000000), 20u);
  EXPECT_EQ(parse_count("0", "--limit", 1000000), 0u);
  for (const char* bad : {"-1", "", "1.5", "1e3", "abc", "99999999999999999999", "1000001", "+3", "0x10"}) {
    const auto m = error_of([&] { parse_count(bad, "--limit", 1000000); });
    EXPECT_NE(m.find("--limit must be a whole number from 0 to 1000000"), std::string::npos) << bad << ": " << m;
  }
}
