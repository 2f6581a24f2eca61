#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "store/history_store.h"
#include "support/synthetic_runs.h"

namespace fs = std::filesystem;
using namespace accelbench;
using accelbench::testing::make_run;
using accelbench::testing::SyntheticOptions;

namespace {

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("accelbench-store-{}-{}", ::getpid(),
                                                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string db() const { return (dir_ / "history.db").string(); }
  fs::path dir_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> tables(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name", -1, &st, nullptr);
  std::vector<std::string> out;
  while (sqlite3_step(st) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

void expect_one_line(const std::string& msg) {
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_FALSE(msg.empty());
}

}  // namespace

TEST_F(StoreTest, EmptyDatabaseIsCreatedAtTheLatestSchemaInWalMode) {
  const auto path = (dir_ / "sub" / "dir" / "history.db").string();  // folders are created
  HistoryStore store(path);
  EXPECT_EQ(store.schema_version(), kHistorySchemaVersion);
  EXPECT_EQ(tables(path), (std::vector<std::string>{"cases", "ceilings", "runs", "schema_version", "speedups"}));
  EXPECT_FALSE(store.latest_run_id().has_value());
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// A new database is built beside its path and linked into place whole (a process killed while
// creating it leaves no database without tables): nothing but the database is left in the folder,
// also when a killed creator with our pid left its half-made file.
TEST_F(StoreTest, NewDatabaseAppearsWholeAndLeavesNothingBeside) {
  std::ofstream(dir_ / fmt::format(".history.db.new-{}", ::getpid())) << "half made";
  {
    HistoryStore store(db());
    EXPECT_EQ(store.schema_version(), kHistorySchemaVersion);
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"history.db"});
  EXPECT_EQ(tables(db()), (std::vector<std::string>{"cases", "ceilings", "runs", "schema_version", "speedups"}));
  HistoryStore again(db());  // an existing whole database opens as it is
  EXPECT_EQ(again.schema_version(), kHistorySchemaVersion);
}

// A creator killed with SIGKILL leaves its ".history.db.new-PID": the next process to open the
// history removes it (that process is gone), and keeps a running creator's.
TEST_F(StoreTest, HalfMadeDatabaseOfAKilledCreatorIsRemovedOnOpen) {
  { HistoryStore store(db()); }
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  const auto killed = dir_ / fmt::format(".history.db.new-{}", dead);
  const auto running = dir_ / fmt::format(".history.db.new-{}", ::getppid());
  std::ofstream(killed) << "half made";
  std::ofstream(running) << "being made";
  HistoryStore store(db());
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_TRUE(fs::exists(running));
}

TEST_F(StoreTest, EveryOlderSchemaMigratesWithItsData) {
  for (int from = 1; from < kHistorySchemaVersion; ++from) {
    const auto path = (dir_ / fmt::format("v{}.db", from)).string();
    auto run = make_run();
    auto doc = accelbench::testing::with_telemetry(run);
    StoredRunRef ref;
    {
      HistoryStore old(path, from);
      ASSERT_EQ(old.schema_version(), from);
      ref = old.save_run(run, &doc);
    }
    HistoryStore store(path);
    EXPECT_EQ(store.schema_version(), kHistorySchemaVersion);
    const auto back = store.load_run_document(ref.id);
    const auto typed = back.get<RunResult>();
    ASSERT_EQ(typed.cases.size(), run.cases.size());
    for (std::size_t i = 0; i < run.cases.size(); ++i) EXPECT_EQ(typed.cases[i].samples, run.cases[i].samples);
    // version 2 recomputed the speed-ups of the version-1 runs and kept their telemetry
    ASSERT_EQ(typed.speedups.size(), run.speedups.size());
    EXPECT_NEAR(typed.speedups[0].ratio, run.speedups[0].ratio, 1e-12);
    EXPECT_TRUE(back["cases"][1].contains("telemetry"));
    EXPECT_EQ(back["cases"][1]["telemetry"], doc["cases"][1]["telemetry"]);
    // and a new run goes in at the latest schema
    const auto ref2 = store.save_run(run);
    EXPECT_GT(ref2.id, ref.id);
  }
}

TEST_F(StoreTest, RunRoundTripsWithContextSamplesAndExtras) {
  HistoryStore store(db());
  auto run = make_run();
  auto doc = accelbench::testing::with_telemetry(run);
  doc["sweep"] = {{"batch_sizes", {32, 64}}};  // a field this build does not model
  const auto ref = store.save_run(run, &doc);
  EXPECT_EQ(ref.id, 1);
  EXPECT_EQ(ref.uid.size(), 8u);
  const auto back = store.load_run_document(ref.id);
  EXPECT_EQ(back["stored"]["uid"], ref.uid);
  EXPECT_EQ(back["sweep"], doc["sweep"]);
  const auto r = back.get<RunResult>();
  EXPECT_EQ(r.context.torch_version, run.context.torch_version);
  EXPECT_EQ(r.context.host, "testhost");
  ASSERT_EQ(r.cases.size(), run.cases.size());
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    EXPECT_EQ(r.cases[i].spec.workload, run.cases[i].spec.workload);
    EXPECT_EQ(r.cases[i].samples, run.cases[i].samples);
    EXPECT_DOUBLE_EQ(r.cases[i].stats.median, run.cases[i].stats.median);
  }
  ASSERT_EQ(r.speedups.size(), 3u);
  EXPECT_DOUBLE_EQ(r.speedups[2].ci_high, run.speedups[2].ci_high);
}

TEST_F(StoreTest, ResolvesIdsAndUidsListsAndFilters) {
  HistoryStore store(db());
  SyntheticOptions a;
  a.devices = {"cpu"};
  const auto r1 = store.save_run(make_run(a));
  SyntheticOptions b;
  b.workloads = {"cnn"};
  const auto r2 = store.save_run(make_run(b));
  EXPECT_EQ(store.resolve(std::to_string(r1.id)), r1.id);
  EXPECT_EQ(store.resolve(r2.uid), r2.id);
  EXPECT_EQ(store.resolve(r2.uid.substr(0, 6)), r2.id);
  EXPECT_FALSE(store.resolve("999").has_value());
  EXPECT_FALSE(store.resolve("zzzz").has_value());
  EXPECT_EQ(store.latest_run_id(), r2.id);
  EXPECT_EQ(store.list_runs().size(), 2u);
  HistoryFilter f;
  f.device = "cuda";  // matches cuda:0
  ASSERT_EQ(store.list_runs(f).size(), 1u);
  EXPECT_EQ(store.list_runs(f)[0].id, r2.id);
  f = {};
  f.workload = "mlp";
  EXPECT_EQ(store.list_runs(f).size(), 1u);
  const auto pts = store.case_history(HistoryFilter{"cnn", "", 0});
  ASSERT_EQ(pts.size(), 3u);  // cnn on cpu in run 1; cnn on cpu and cuda:0 in run 2
  EXPECT_EQ(pts[0].run_id, r1.id);
  EXPECT_GT(pts[0].median, 0);
}

TEST_F(StoreTest, NotADatabaseIsRefusedAndLeftUntouched) {
  {
    std::ofstream out(db(), std::ios::binary);
    out << "this is not a database, just some text\n";
  }
  const auto before = slurp(db());
  try {
    HistoryStore store(db());
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    expect_one_line(e.what());
    EXPECT_NE(std::string(e.what()).find("not an SQLite database"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(db()), before);
  EXPECT_FALSE(fs::exists(db() + "-wal"));
  EXPECT_FALSE(fs::exists(db() + "-shm"));
}

TEST_F(StoreTest, DamagedDatabaseIsRefusedAndLeftUntouched) {
  {
    HistoryStore store(db());
    store.save_run(make_run());
  }
  // Keep the SQLite header, overwrite the schema page with garbage.
  std::string bytes = slurp(db());
  ASSERT_GT(bytes.size(), 4096u);
  for (std::size_t i = 100; i < 4096; ++i) bytes[i] = static_cast<char>((i * 7919) & 0xff);
  {
    std::ofstream out(db(), std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  fs::remove(db() + "-wal");
  fs::remove(db() + "-shm");
  try {
    HistoryStore store(db());
    store.list_runs();
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    expect_one_line(e.what());
    EXPECT_NE(std::string(e.what()).find("left as it is"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(db()), bytes);
}

TEST_F(StoreTest, ForeignSqliteDatabaseIsRefused) {
  sqlite3* raw = nullptr;
  sqlite3_open(db().c_str(), &raw);
  sqlite3_exec(raw, "CREATE TABLE photos(id INTEGER); INSERT INTO photos VALUES (1);", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  const auto before = slurp(db());
  try {
    HistoryStore store(db());
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    expect_one_line(e.what());
    EXPECT_NE(std::string(e.what()).find("not an accelbench history"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(db()), before);
}

TEST_F(StoreTest, NewerSchemaIsRefused) {
  {
    HistoryStore store(db());
  }
  sqlite3* raw = nullptr;
  sqlite3_open(db().c_str(), &raw);
  sqlite3_exec(raw, "INSERT INTO schema_version VALUES (99, 'future')", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  try {
    HistoryStore store(db());
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    expect_one_line(e.what());
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

TEST_F(StoreTest, TwoConcurrentWriterProcessesLoseNothing) {
  constexpr int kWriters = 2, kRunsEach = 25;
  // The parent draws uids first: children forked from it must not go on with its generator's
  // sequence, each drawing the other's uids (random_uid reseeds in each process).
  {
    HistoryStore parent((dir_ / "parent.db").string());
    parent.save_run(make_run());
  }
  // Both start on a database that does not exist yet: they race on its creation and migration too.
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(go[1]);
      char c;
      if (::read(go[0], &c, 1) < 0) ::_exit(3);  // wait for the start signal (EOF)
      try {
        HistoryStore store(db());
        for (int i = 0; i < kRunsEach; ++i) {
          SyntheticOptions o;
          o.seed = static_cast<std::uint64_t>(w * 1000 + i + 1);
          o.torch_version = fmt::format("writer-{}", w);
          o.n = 8;
          store.save_run(make_run(o));
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        ::_exit(1);
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  ::close(go[0]);
  ::close(go[1]);  // start both
  for (auto pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer failed, status " << status;
  }
  HistoryStore store(db());
  const auto runs = store.list_runs();
  EXPECT_EQ(runs.size(), static_cast<std::size_t>(kWriters * kRunsEach));
  std::set<std::string> uids;
  std::map<std::string, int> per_writer;
  for (const auto& r : runs) {
    uids.insert(r.uid);
    ++per_writer[r.torch_version];
    EXPECT_EQ(r.case_count, 6u);  // whole runs only
  }
  EXPECT_EQ(uids.size(), runs.size());
  EXPECT_EQ(per_writer["writer-0"], kRunsEach);
  EXPECT_EQ(per_writer["writer-1"], kRunsEach);
}

// `accelbench peak`'s ceilings: stored per device, the newest per device name (and torch version)
// read back; a database from before schema 3 opened read-only has none (and is not refused).
TEST_F(StoreTest, CeilingsNewestPerDeviceNameAndTorchVersion) {
  DeviceCeilings c;
  c.device = "cuda:0";
  c.device_name = "NVIDIA H200";
  c.torch_version = "2.11.0";
  c.measured_utc = "2026-12-01T04:00:00Z";
  c.ceilings.push_back(Ceiling{CeilingKind::kMatmul, "bfloat16", "8192 x 8192 x 8192", 15, 790e12, 780e12, 800e12, ""});
  {
    HistoryStore store(db());
    EXPECT_FALSE(store.latest_ceilings("NVIDIA H200").has_value());
    store.save_ceilings(c);
    auto newer = c;
    newer.measured_utc = "2026-12-02T04:00:00Z";
    newer.ceilings[0].median = 795e12;
    store.save_ceilings(newer);
    auto other_torch = c;
    other_torch.torch_version = "2.13.0";
    other_torch.measured_utc = "2026-11-01T04:00:00Z";
    other_torch.ceilings[0].median = 700e12;
    store.save_ceilings(other_torch);
  }
  HistoryStore reader(db(), HistoryAccess::kReadOnly);
  const auto latest = reader.latest_ceilings("NVIDIA H200");
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->measured_utc, "2026-12-02T04:00:00Z");
  EXPECT_DOUBLE_EQ(latest->ceilings.at(0).median, 795e12);
  const auto of_213 = reader.latest_ceilings("NVIDIA H200", "2.13.0");
  ASSERT_TRUE(of_213.has_value());
  EXPECT_DOUBLE_EQ(of_213->ceilings.at(0).median, 700e12);
  EXPECT_FALSE(reader.latest_ceilings("AMD EPYC").has_value());

  const auto old_path = (dir_ / "v2.db").string();
  { HistoryStore old(old_path, 2); }
  HistoryStore old_reader(old_path, HistoryAccess::kReadOnly);
  EXPECT_FALSE(old_reader.latest_ceilings("NVIDIA H200").has_value());
}

// --graphs: a graphs case keeps its label in the stored speed-ups and in the case history, and
// the history tells it from the eager case of the same model (and from another --width).
TEST_F(StoreTest, GraphsCasesKeepTheirLabelInTheHistory) {
  HistoryStore store(db());
  auto run = make_run();
  const auto accel = std::find_if(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.spec.device != "cpu"; });
  ASSERT_NE(accel, run.cases.end());
  auto graphs = *accel;
  graphs.spec.graphs = true;
  run.cases.push_back(graphs);
  run.speedups = compute_speedups(run.cases);
  const auto ref = store.save_run(run);
  const auto back = store.load_run(ref.id);
  std::size_t labelled = 0;
  for (const auto& s : back.speedups) labelled += s.model.find("[graphs]") != std::string::npos;
  const std::size_t expected = 1;
  EXPECT_EQ(labelled, expected);
  EXPECT_EQ(back.graph_speedups.size(), expected);
  const auto points = store.case_history();
  std::size_t graph_points = 0;
  for (const auto& p : points) {
    graph_points += p.graphs;
    if (p.graphs) {
      EXPECT_TRUE(p.is_case(graphs.spec));
      EXPECT_EQ(p.model(), model_label(graphs.spec));
    }
  }
  EXPECT_EQ(graph_points, 1u);
  auto eager = graphs.spec;
  eager.graphs = false;
  auto wider = eager;
  wider.width = 4096;
  for (const auto& p : points)
    if (p.graphs) EXPECT_FALSE(p.is_case(eager) || p.is_case(wider));
}

// A case row whose JSON is damaged does not make the case history unreadable: its width,
// checkpointing and graphs read as the defaults.
TEST_F(StoreTest, CaseHistoryReadsPastADamagedCaseJson) {
  {
    HistoryStore store(db());
    store.save_run(make_run());
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE cases SET case_json = '{not json' WHERE rowid = 1", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  HistoryStore store(db());
  std::vector<CaseHistoryPoint> points;
  ASSERT_NO_THROW(points = store.case_history());
  EXPECT_FALSE(points.empty());
}

// -------------------------------------------------------------------------------------------------
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

// A history written by an earlier release (cad54fd, schema 3: two quick mlp runs on a 2-core CPU,
// the second beside two busy loops, whose warning said "timings may be DISTORTED") opens at the
// current schema: both runs and their cases read back, the loaded run marked from its stored
// warning and the idle one not, and a new run goes in after them.
TEST(StoreReleases, AHistoryOfAnEarlierReleaseMigratesWithItsRunsAndTheirMarks) {
  const auto dir = fresh_dir("release");
  const auto db = (dir / "h.db").string();
  fs::copy_file(std::string(ACCELBENCH_TEST_DATA) + "/history-cad54fd.db", db);
  HistoryStore store(db);
  EXPECT_EQ(store.schema_version(), kHistorySchemaVersion);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].git_commit.substr(0, 7), "cad54fd");
  EXPECT_EQ(runs[0].distorted_by, "");
  EXPECT_FALSE(runs[1].distorted_by.empty());  // the stored warning names no check: "a machine check"
  for (const auto& r : runs) {
    const auto typed = store.load_run(r.id);
    ASSERT_EQ(typed.cases.size(), 1u);
    EXPECT_EQ(typed.cases[0].spec.workload, "mlp");
    EXPECT_GE(typed.cases[0].samples.size(), 5u);
    EXPECT_GT(typed.cases[0].stats.median, 0);
  }
  const auto points = store.case_history();
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].distorted_by, runs[1].distorted_by);
  EXPECT_GT(store.save_run(make_run()).id, runs[1].id);
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

// Found by fuzz_history: a database with a damaged index page (PRAGMA integrity_check:
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

// Found by fuzz_history: a damaged database ("Extends off end of page") took a device's
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

// Found by fuzz_history: a stored run whose `schema` column held a newline gave a
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

// A Python case is its own case in the history: the C++ case, the Python case and the compiled
// Python case of one model, device, precision and batch are three histories (keyed by the
// implementation and the compile mode), each read back with its own median.
TEST_F(StoreTest, HistoryKeepsTheImplementationsAndCompileModesApart) {
  HistoryStore store(db());
  SyntheticOptions o;
  o.workloads = {"mlp"};
  o.devices = {"cpu"};
  auto run = make_run(o);
  ASSERT_EQ(run.cases.size(), 1u);
  auto py = run.cases[0];
  py.spec.impl = kPythonImpl;
  py.stats.median = 2 * run.cases[0].stats.median;
  auto compiled = py;
  compiled.spec.compile = "reduce-overhead";
  compiled.stats.median = 3 * run.cases[0].stats.median;
  run.cases.push_back(py);
  run.cases.push_back(compiled);
  store.save_run(run);
  store.save_run(run);
  const auto points = store.case_history(HistoryFilter{"mlp", "", 0});
  ASSERT_EQ(points.size(), 6u);
  for (const auto& c : run.cases) {
    std::size_t found = 0;
    for (const auto& p : points)
      if (p.is_case(c.spec)) {
        ++found;
        EXPECT_DOUBLE_EQ(p.median, c.stats.median) << model_label(c.spec);
        EXPECT_EQ(p.model(), model_label(c.spec));
      }
    EXPECT_EQ(found, 2u) << model_label(c.spec);
  }
}
