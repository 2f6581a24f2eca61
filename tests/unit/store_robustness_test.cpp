// The history database when it cannot be written (read-only file, folder or file system) and when
// its rows are damaged: found when it is opened, one-line messages, nothing lost silently.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>

#include "core/errors.h"
#include "store/history_store.h"
#include "support/synthetic_runs.h"

namespace fs = std::filesystem;
using namespace accelbench;
using accelbench::testing::make_run;

namespace {

fs::path fresh_dir(const char* name) {
  const auto d = fs::temp_directory_path() / fmt::format("accelbench-store-ro-{}-{}", ::getpid(), name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Makes `dir` read-only for this process: chmod when not root (root ignores permission bits), else
// a read-only bind mount of the folder onto itself. Skips the test when neither is possible.
class ReadOnly {
 public:
  explicit ReadOnly(fs::path dir, bool folder_too = true) : dir_(std::move(dir)) {
    if (::geteuid() != 0) {
      for (const auto& e : fs::directory_iterator(dir_)) ::chmod(e.path().c_str(), 0444);
      if (folder_too) ::chmod(dir_.c_str(), 0555);
      ok_ = true;
      return;
    }
    if (::mount(dir_.c_str(), dir_.c_str(), nullptr, MS_BIND, nullptr) != 0) return;
    mounted_ = true;
    ok_ = ::mount(nullptr, dir_.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) == 0;
  }
  ~ReadOnly() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    ::chmod(dir_.c_str(), 0755);
    for (const auto& e : fs::directory_iterator(dir_)) ::chmod(e.path().c_str(), 0644);
  }
  bool ok() const { return ok_; }

 private:
  fs::path dir_;
  bool ok_ = false, mounted_ = false;
};

}  // namespace

TEST(StoreReadOnly, FoundWhenOpenedReadingStillWorksNothingLostSilently) {
  const auto dir = fresh_dir("ro");
  const auto db = (dir / "history.db").string();
  std::int64_t id = 0;
  {
    HistoryStore store(db);
    EXPECT_TRUE(store.writable());
    store.require_writable();
    id = store.save_run(make_run()).id;
  }
  {
    ReadOnly ro(dir);
    if (!ro.ok()) GTEST_SKIP() << "cannot make a folder read-only here";
    // Opened to store runs (run, the sweeps: before measuring): refused with one line.
    try {
      HistoryStore store(db);
      FAIL() << "a read-only database was opened for writing";
    } catch (const UsageError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("is read-only"), std::string::npos) << m;
      EXPECT_NE(m.find(db), std::string::npos) << m;
      EXPECT_NE(m.find("--no-save"), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    // Opened to read (history, report, compare): reading works.
    HistoryStore store(db, HistoryAccess::kReadOnly);
    EXPECT_FALSE(store.writable());
    EXPECT_FALSE(store.read_only_reason().empty());
    EXPECT_THROW(store.require_writable(), UsageError);
    EXPECT_EQ(store.list_runs().size(), 1u);
    EXPECT_EQ(store.load_run(id).cases.size(), make_run().cases.size());
    // Saving says what was not stored.
    try {
      store.save_run(make_run());
      FAIL() << "save_run on a read-only database";
    } catch (const HistoryNotStoredError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("was not stored"), std::string::npos) << m;
      EXPECT_NE(m.find("2025-06-01T10:00:00Z"), std::string::npos) << "names the run: " << m;
      EXPECT_NE(m.find("read-only"), std::string::npos) << m;
    }
  }
  HistoryStore again(db);
  EXPECT_TRUE(again.writable());
  EXPECT_EQ(again.list_runs().size(), 1u);
  fs::remove_all(dir);
}

TEST(StoreReadOnly, NewDatabaseInReadOnlyFolderIsRefusedAtOpen) {
  const auto dir = fresh_dir("rofolder");
  ReadOnly ro(dir);
  if (!ro.ok()) GTEST_SKIP() << "cannot make a folder read-only here";
  try {
    HistoryStore store((dir / "h.db").string());
    FAIL() << "opened a database that cannot be created";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cannot be created"), std::string::npos) << m;
  }
}

TEST(StoreReadOnly, DirectoryOrDeviceAsDatabase) {
  const auto dir = fresh_dir("dev");
  EXPECT_THROW(HistoryStore(dir.string()), UsageError);
  try {
    HistoryStore store("/dev/null");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(StoreDamagedRows, MistypedRowsGiveOneLineErrors) {
  const auto dir = fresh_dir("damaged");
  const auto db = (dir / "history.db").string();
  std::int64_t id = 0;
  {
    HistoryStore store(db);
    id = store.save_run(make_run()).id;
  }
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw,
                           "UPDATE cases SET case_json = '{\"workload\": \"mlp\", \"device\": \"cpu\", \"batch_size\": 1e300}'"
                           " WHERE ord = 0; UPDATE runs SET context_json = 'not json{'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  HistoryStore store(db);
  const auto doc = store.load_run_document(id);  // text that is not JSON reads as empty
  EXPECT_TRUE(doc["context"].is_object());
  try {
    store.load_run(id);
    FAIL() << "a batch size of 1e300 was read back";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(fmt::format("run {} is damaged", id)), std::string::npos) << m;
    EXPECT_NE(m.find("batch_size"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

TEST(StoreLimits, HugeLimitIsNoLimit) {
  const auto dir = fresh_dir("limit");
  HistoryStore store((dir / "h.db").string());
  store.save_run(make_run());
  HistoryFilter f;
  f.limit = static_cast<std::size_t>(-1);  // what a wrapped-around "--limit -1" gives
  EXPECT_EQ(store.list_runs(f).size(), 1u);
  fs::remove_all(dir);
}

// Found by fuzz_history (a leak under LeakSanitizer): a database refused by the constructor kept its
// SQLite connection, and so a file descriptor, open. Counted here by the process's open files.
TEST(StoreDamagedRows, RefusedDatabaseLeavesNoConnectionOpen) {
  const auto dir = fresh_dir("leak");
  const auto db = (dir / "other.db").string();
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE t (x)", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
  }
  auto open_files = [] {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
      (void)e;
      ++n;
    }
    return n;
  };
  const auto before = open_files();
  for (int i = 0; i < 5; ++i) EXPECT_THROW(HistoryStore store(db), UsageError);  // not an accelbench history
  EXPECT_EQ(open_files(), before);
  fs::remove_all(dir);
}

// Found by fuzz_history: a database whose schema SQL is damaged made SQLite's message quote that SQL,
// newlines and all; the error was several lines. The input is the fuzzer's, kept in tests/data/fuzz.
TEST(StoreDamagedRows, FuzzFindingSqliteMessageIsOneLine) {
  const auto dir = fresh_dir("multiline");
  const auto db = (dir / "h.db").string();
  fs::copy_file(std::string(ACCELBENCH_TEST_DATA) + "/fuzz/history-multiline-sqlite-error.db", db);
  try {
    HistoryStore store(db);
    for (const auto& r : store.list_runs()) (void)store.load_run(r.id);
    FAIL() << "a damaged schema was accepted";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find("malformed database schema"), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

// Found by fuzz_history (2026-12-01): a database with a damaged index page (PRAGMA integrity_check:
// "Offset 503 out of range") took a new run and read it back with other cases. The run is read back
// inside its transaction: either it is stored whole and reads back the same, or nothing is stored
// and the error is one line naming the damage.
TEST(StoreDamagedRows, FuzzFindingRunReadsBackWithOtherCasesIsRefused) {
  const auto dir = fresh_dir("damaged-index");
  const auto db = (dir / "h.db").string();
  fs::copy_file(std::string(ACCELBENCH_TEST_DATA) + "/fuzz/history-damaged-index.db", db);
  accelbench::testing::SyntheticOptions o;
  o.workloads = {"mlp"};
  o.n = 3;
  const auto run = accelbench::testing::make_run(o);
  try {
    HistoryStore store(db);
    const auto ref = store.save_run(run);
    EXPECT_EQ(store.load_run(ref.id).cases.size(), run.cases.size()) << "stored, and read back with other cases";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find("damaged"), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

// Found by fuzz_history (2026-12-01): a damaged database ("Extends off end of page") took a device's
// ceilings and never gave them back. They are looked up again inside the transaction: either found,
// or nothing is stored and the error is one line naming the damage.
TEST(StoreDamagedRows, FuzzFindingCeilingsLostAreRefused) {
  const auto dir = fresh_dir("ceilings-lost");
  const auto db = (dir / "h.db").string();
  fs::copy_file(std::string(ACCELBENCH_TEST_DATA) + "/fuzz/history-ceilings-lost.db", db);
  accelbench::DeviceCeilings c;
  c.device = "cpu";
  c.device_name = "fuzz";
  c.torch_version = "2.13.0";
  c.measured_utc = "9999-12-31T00:00:00Z";
  c.ceilings.push_back({accelbench::CeilingKind::kCopy, "", "1 MiB", 3, 1e9, 0.9e9, 1.1e9, ""});
  try {
    HistoryStore store(db);
    store.save_ceilings(c);
    const auto back = store.latest_ceilings("fuzz", "2.13.0");
    ASSERT_TRUE(back.has_value()) << "stored, and never found again";
    EXPECT_EQ(back->ceilings.size(), 1u);
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find("damaged"), std::string::npos) << m;
  }
  fs::remove_all(dir);
}

// Found by fuzz_history (2026-12-01): a stored run whose `schema` column held a newline gave a
// two-line error ("unsupported schema 'CREMENT,\n  run_i'"); the schema is quoted printable now.
TEST(StoreDamagedRows, FuzzFindingSchemaWithANewlineIsQuotedOnOneLine) {
  const auto dir = fresh_dir("multiline-schema");
  const auto db = (dir / "h.db").string();
  fs::copy_file(std::string(ACCELBENCH_TEST_DATA) + "/fuzz/history-multiline-schema.db", db);
  std::size_t errors = 0;
  try {
    HistoryStore store(db);
    for (const auto& r : store.list_runs()) {
      try {
        (void)store.load_run(r.id);
      } catch (const UsageError& e) {
        ++errors;
        const std::string m = e.what();
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      }
    }
  } catch (const std::exception& e) {
    ++errors;
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_GE(errors, 1u) << "the damaged run was read as if whole";
  fs::remove_all(dir);
}
