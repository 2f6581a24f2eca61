#include "store/history_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/errors.h"
#include "core/safe_write.h"
#include "core/test_points.h"

namespace accelbench {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string now_utc() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A generator per thread, seeded again in each process: a forked child would otherwise go on with its
// parent's sequence, as its siblings do, and two writers forked from one process draw the same uids.
std::string random_uid() {
  struct Generator {
    std::mt19937_64 rng;
    pid_t seeded_in = -1;
  };
  static thread_local Generator g;
  if (const pid_t pid = ::getpid(); g.seeded_in != pid) {
    std::random_device rd;
    const auto now = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    std::seed_seq seq{rd(), rd(), static_cast<unsigned>(pid), static_cast<unsigned>(now), static_cast<unsigned>(now >> 32)};
    g.rng.seed(seq);
    g.seeded_in = pid;
  }
  return fmt::format("{:08x}", static_cast<std::uint32_t>(g.rng()));
}

// SQLITE_BUSY / SQLITE_LOCKED: another connection holds the lock. SQLite's busy handler does not
// cover every case (e.g. a journal-mode switch or a lock upgrade that could deadlock), so writes are
// retried as a whole on this.
struct BusyError : std::runtime_error {
  BusyError(const std::string& path, const std::string& sqlite_message)
      : std::runtime_error(fmt::format("history database {}: {}", path, sqlite_message)), detail(sqlite_message) {}
  std::string detail;  // SQLite's own words, without the path
};

// SQLite's messages may quote a table's SQL across several lines: one line, at most 200 characters.
std::string sqlite_message_line(const std::string& msg) {
  std::string out;
  bool space = false;
  for (const char c : msg) {
    const bool ws = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (ws) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return printable(out, 200);
}

bool is_busy(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

bool is_corruption(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
    const int rc = sqlite3_prepare_v2(db, sql, -1, &st_, nullptr);
    if (rc != SQLITE_OK) raise(rc);
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, std::int64_t v) { check(sqlite3_bind_int64(st_, i, v)); return *this; }
  Stmt& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Stmt& bind(int i, std::size_t v) { return bind(i, static_cast<std::int64_t>(v)); }
  Stmt& bind(int i, double v) { check(sqlite3_bind_double(st_, i, v)); return *this; }
  Stmt& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Stmt& bind_null(int i) { check(sqlite3_bind_null(st_, i)); return *this; }

  // true while there is a row
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    raise(rc);
  }
  void run() {
    while (step()) {
    }
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  std::int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  double f64(int c) const { return sqlite3_column_double(st_, c); }
  bool is_null(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
  std::string text(int c) const {
    const auto* p = sqlite3_column_text(st_, c);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(st_, c)))
             : std::string();
  }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) raise(rc);
  }
  [[noreturn]] void raise(int rc) {
    const std::string msg = sqlite_message_line(sqlite3_errmsg(db_));
    if (is_corruption(rc))
      throw UsageError(fmt::format("history database {} is damaged ({}); it was left as it is: move it away or "
                                   "pass --db with another path",
                                   path_, msg));
    if (is_busy(rc)) throw BusyError(path_, msg);
    throw std::runtime_error(fmt::format("history database {}: {}", path_, msg));
  }
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* st_ = nullptr;
};

// ---- migrations ---------------------------------------------------------------------------------
// Each migration brings the schema from version N-1 to N; it runs inside the open transaction.

const char* kMigration1 = R"sql(
CREATE TABLE schema_version (
  version     INTEGER PRIMARY KEY,
  applied_utc TEXT NOT NULL
);
CREATE TABLE runs (
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  uid                TEXT NOT NULL UNIQUE,
  stored_utc         TEXT NOT NULL,
  timestamp_utc      TEXT,
  command            TEXT,
  schema             TEXT,
  accelbench_version TEXT,
  git_commit         TEXT,
  torch_version      TEXT,
  host               TEXT,
  wall_s             REAL,
  context_json       TEXT NOT NULL
);
CREATE TABLE cases (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  ord          INTEGER NOT NULL,
  workload     TEXT NOT NULL,
  device       TEXT NOT NULL,
  dtype        TEXT,
  batch_size   INTEGER,
  threads      INTEGER,
  status       TEXT,
  n            INTEGER,
  median       REAL,
  ci_low       REAL,
  ci_high      REAL,
  samples_json TEXT NOT NULL,
  case_json    TEXT NOT NULL
);
CREATE INDEX cases_run ON cases(run_id);
)sql";

const char* kMigration2Sql = R"sql(
ALTER TABLE runs ADD COLUMN extra_json TEXT;
ALTER TABLE cases ADD COLUMN telemetry_json TEXT;
CREATE TABLE speedups (
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  workload        TEXT NOT NULL,
  device          TEXT NOT NULL,
  baseline_device TEXT NOT NULL,
  dtype           TEXT,
  batch_size      INTEGER,
  ratio           REAL,
  ci_low          REAL,
  ci_high         REAL
);
CREATE INDEX speedups_run ON speedups(run_id);
CREATE INDEX cases_key ON cases(workload, device, dtype, batch_size);
)sql";

// Version 3: each device's ceilings measured by `accelbench peak` (one row per measurement; the
// newest per device name and torch version is the one in use).
const char* kMigration3Sql = R"sql(
CREATE TABLE ceilings (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  device        TEXT NOT NULL,
  device_name   TEXT NOT NULL,
  torch_version TEXT NOT NULL,
  host          TEXT,
  measured_utc  TEXT NOT NULL,
  ceilings_json TEXT NOT NULL
);
CREATE INDEX ceilings_key ON ceilings(device_name, torch_version, measured_utc);
)sql";

// Version 4: each run's mark, the machine checks that found its timings distorted as it began
// (RunContext::distorted_by, ", "-separated; NULL or empty: none). A run stored before it is marked
// kUnnamedDistortion where its context holds the warning "timings may be DISTORTED".
const char* kMigration4Sql = R"sql(
ALTER TABLE runs ADD COLUMN distorted_by TEXT;
UPDATE runs SET distorted_by = '{}' WHERE json_valid(context_json) AND EXISTS
  (SELECT 1 FROM json_each(context_json, '$.warnings') WHERE value LIKE 'timings may be DISTORTED%');
)sql";

// The runs' mark as a column of the runs table `r`: stored from schema 4 on, read from the stored
// warnings before it (a read-only older database is not migrated).
std::string distorted_by_column(int version) {
  if (version >= 4) return "COALESCE(r.distorted_by, '')";
  return "CASE WHEN json_valid(r.context_json) AND EXISTS (SELECT 1 FROM json_each(r.context_json, '$.warnings') WHERE "
         "value LIKE 'timings may be DISTORTED%') THEN '" + std::string(kUnnamedDistortion) + "' ELSE '' END";
}

std::string joined_marks(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Version 2 data step: speed-ups of the runs stored by version 1 (recomputed from their samples) and
// each case's telemetry moved out of case_json into its own column.
void migration2_data(sqlite3* db, const std::string& path) {
  Stmt runs(db, "SELECT id FROM runs ORDER BY id", path);
  std::vector<std::int64_t> ids;
  while (runs.step()) ids.push_back(runs.i64(0));
  Stmt cases(db, "SELECT id, case_json, samples_json FROM cases WHERE run_id = ?1 ORDER BY ord", path);
  Stmt set_tel(db, "UPDATE cases SET telemetry_json = ?2, case_json = ?3 WHERE id = ?1", path);
  Stmt ins(db,
           "INSERT INTO speedups (run_id, workload, device, baseline_device, dtype, batch_size, ratio, ci_low, ci_high)"
           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
           path);
  for (const auto id : ids) {
    std::vector<CaseResult> results;
    cases.reset();
    cases.bind(1, id);
    while (cases.step()) {
      json cj = json::parse(cases.text(1), nullptr, false);
      if (!cj.is_object()) continue;
      if (auto t = cj.find("telemetry"); t != cj.end()) {
        const std::string tel = t->dump();
        cj.erase(t);
        set_tel.reset();
        set_tel.bind(1, cases.i64(0)).bind(2, tel).bind(3, cj.dump());
        set_tel.run();
      }
      cj["samples"] = json::parse(cases.text(2), nullptr, false);
      try {
        results.push_back(cj.get<CaseResult>());
      } catch (const std::exception&) {
      }
    }
    for (const auto& s : compute_speedups(results)) {
      ins.reset();
      ins.bind(1, id).bind(2, s.label()).bind(3, s.device).bind(4, s.baseline_device).bind(5, s.dtype)
          .bind(6, s.batch_size).bind(7, s.ratio).bind(8, s.ci_low).bind(9, s.ci_high);
      ins.run();
    }
  }
}

// How long a store waits for a database another process holds: $ACCELBENCH_DB_WAIT seconds (0 to
// 3600), else a minute.
double busy_wait_s() {
  if (const char* w = std::getenv("ACCELBENCH_DB_WAIT"); w && *w) {
    char* end = nullptr;
    const double s = std::strtod(w, &end);
    if (end != w && *end == '\0' && s >= 0 && s <= 3600) return s;
  }
  return 60;
}

// Runs `attempt` until it does not hit a busy database, for at most busy_wait_s(), with short random
// pauses. `rollback` is called after each busy failure.
template <class F, class R>
auto with_busy_retry(const std::string& path, F&& attempt, R&& rollback) {
  static thread_local std::mt19937 rng{std::random_device{}()};
  const double wait_s = busy_wait_s();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  for (;;) {
    try {
      return attempt();
    } catch (const BusyError& e) {
      rollback();
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error(fmt::format("history database {} stayed locked by another process for {} s: {}", path,
                                             wait_s, e.detail));
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 45));
    }
  }
}

}  // namespace

// ---- opening ------------------------------------------------------------------------------------

std::string HistoryStore::default_path() {
  if (const char* p = std::getenv("ACCELBENCH_DB"); p && *p) return p;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return (fs::path(x) / "accelbench" / "history.db").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".local" / "share" / "accelbench" / "history.db").string();
}

HistoryStore::HistoryStore(const std::string& path, HistoryAccess access) : path_(path), access_(access) {
  open_or_close(kHistorySchemaVersion);
}

HistoryStore::HistoryStore(const std::string& path, int target_version) : path_(path) {
  if (target_version < 1 || target_version > kHistorySchemaVersion)
    throw std::invalid_argument("HistoryStore: no schema version " + std::to_string(target_version));
  open_or_close(target_version);
}

// A constructor that throws runs no destructor: the connection is closed here (found by fuzz_history:
// every refused database leaked its SQLite connection and file descriptor).
void HistoryStore::open_or_close(int target_version) {
  try {
    open_and_migrate(target_version);
  } catch (...) {
    if (db_) sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

HistoryStore::~HistoryStore() {
  if (db_) sqlite3_close_v2(db_);
}

void HistoryStore::fail(const std::string& what) const { throw UsageError(fmt::format("history database {}: {}", path_, what)); }

void HistoryStore::exec(const char* sql) const {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    const std::string msg = sqlite_message_line(err ? err : sqlite3_errstr(rc));
    sqlite3_free(err);
    if (is_corruption(rc))
      throw UsageError(fmt::format("history database {} is damaged ({}); it was left as it is: move it away or "
                                   "pass --db with another path",
                                   path_, msg));
    if (is_busy(rc)) throw BusyError(path_, msg);
    throw std::runtime_error(fmt::format("history database {}: {}", path_, msg));
  }
}

namespace {
// Why `path` (an existing database) or its folder cannot be written; empty when both can. SQLite
// needs the folder too, for its -wal, -shm and journal files.
std::string why_not_writable(const std::string& path) {
  auto reason = [](const std::string& what, int err) {
    if (err == EROFS) return std::string("the file system is read-only");
    return fmt::format("{} ({})", what, std::strerror(err));
  };
  if (::access(path.c_str(), W_OK) != 0) return reason("the file is not writable", errno);
  auto parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (::access(parent.c_str(), W_OK) != 0) return reason(fmt::format("folder {} is not writable", parent.string()), errno);
  return "";
}
}  // namespace

void HistoryStore::require_writable() const {
  if (writable()) return;
  throw UsageError(fmt::format("history database {} is read-only ({}): the results would not be stored; pass --db "
                               "with a writable path, or --no-save",
                               path_, read_only_reason_));
}

std::string HistoryStore::describe_run(const RunResult& run) {
  return fmt::format("the {} of {} ({} case{})", run.command.empty() ? std::string("run") : run.command,
                     run.context.timestamp_utc.empty() ? std::string("unknown time") : run.context.timestamp_utc,
                     run.cases.size(), run.cases.size() == 1 ? "" : "s");
}

namespace {
// A new database is built whole beside its path (schema, WAL mode, closed) and then linked into
// place, so that a database at the path always holds its schema: a process killed while creating it
// leaves no empty database behind (found by the bad-input matrix: SIGINT 0.3 s into a run left a
// file with no tables, which `history` and the next run's readers could not read). A creator killed
// mid-way leaves only the hidden ".NAME.new-PID" file. When another process links its database
// first, that one is kept and ours is removed.
void create_whole(const std::string& path, const fs::path& folder, int target_version) {
  const fs::path tmp = folder / fmt::format(".{}.new-{}", fs::path(path).filename().string(), ::getpid());
  std::error_code ec;
  fs::remove(tmp, ec);  // a leftover of a killed process that had our pid
  const int fd = ::open(tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    throw UsageError(fmt::format("history database {} cannot be created: {} ({})", path, tmp.string(), std::strerror(errno)));
  ::close(fd);
  try {
    HistoryStore fresh(tmp.string(), target_version);  // an empty file: migrated in place
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  test_point("create");
  if (::link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST) {
    // A file system without hard links: a rename, unless another process created the database meanwhile.
    if (!fs::exists(path, ec)) fs::rename(tmp, path, ec);
    if (ec) {
      const std::string why = ec.message();
      fs::remove(tmp, ec);
      throw UsageError(fmt::format("history database {} cannot be created: {}", path, why));
    }
  }
  fs::remove(tmp, ec);
}
}  // namespace

namespace {
// Looks before touching: a file that is not SQLite at all is refused without being opened for
// writing (SQLite would not write it either, but this gives the clearer message); an absent one is
// created whole, its folder too. Returns why an existing database cannot be written (empty: it can).
std::string check_or_create_database_file(const std::string& path, int target_version) {
  auto fail = [&](const std::string& what) { throw UsageError(fmt::format("history database {}: {}", path, what)); };
  std::error_code ec;
  // What a creator killed mid-way left beside the database (create_whole's ".NAME.new-PID").
  const auto folder = fs::path(path).parent_path();
  remove_stale_temporaries(folder.empty() ? "." : folder.string(), fmt::format(".{}.new-", fs::path(path).filename().string()));
  if (fs::exists(path, ec)) {
    if (fs::is_directory(path, ec)) fail("is a directory, not a database file");
    if (!fs::is_regular_file(path, ec)) fail("is not a regular file (a device, FIFO or socket)");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot be read");
    char header[16] = {};
    in.read(header, sizeof header);
    const auto got = in.gcount();
    if (got > 0 && (got < 16 || std::string(header, 16) != std::string("SQLite format 3\0", 16)))
      throw UsageError(fmt::format("{} is not an SQLite database (an accelbench history was expected); it was left "
                                   "as it is: move it away or pass --db with another path",
                                   path));
    return why_not_writable(path);
  }
  auto parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) fail(fmt::format("cannot create folder {}: {}", parent.string(), ec.message()));
  } else {
    parent = ".";
  }
  if (::access(parent.c_str(), W_OK) != 0)
    fail(fmt::format("cannot be created: folder {} is not writable ({})", parent.string(), std::strerror(errno)));
  create_whole(path, parent, target_version);
  return "";
}

// Opens the connection `db` to `path` with `flags`; one line naming why when it cannot.
void open_database_connection(sqlite3*& db, const std::string& path, int flags) {
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = sqlite_message_line(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close_v2(db);
    db = nullptr;
    throw UsageError(fmt::format("history database {}: {}", path, fmt::format("cannot open: {}", msg)));
  }
}

// A WAL database opened read-only whose -shm file cannot be made: reopened as an immutable file.
void reopen_database_immutable_when_needed(sqlite3*& db, const std::string& path, const std::string& read_only_reason) {
  const int probe = sqlite3_exec(db, "SELECT COUNT(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  if ((probe & 0xff) != SQLITE_CANTOPEN) return;
  sqlite3_close_v2(db);
  db = nullptr;
  std::string escaped;  // a URI: %, ? and # in the path are percent-encoded
  for (const char ch : fs::absolute(path).string()) {
    if (ch == '%' || ch == '?' || ch == '#') escaped += fmt::format("%{:02X}", static_cast<unsigned char>(ch));
    else escaped += ch;
  }
  char* uri = sqlite3_mprintf("file:%s?immutable=1", escaped.c_str());
  const int rc2 = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  sqlite3_free(uri);
  if (rc2 != SQLITE_OK) {
    const std::string msg = sqlite_message_line(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc2));
    sqlite3_close_v2(db);
    db = nullptr;
    throw UsageError(fmt::format("history database {}: {}", path,
                                 fmt::format("cannot open read-only ({}): {}", read_only_reason, msg)));
  }
}

// The schema version the database holds (0: a new, empty database); a database with other tables and
// no schema_version is refused. Reads only.
int stored_schema_version(sqlite3* db, const std::string& path) {
  bool has_version = false;
  std::vector<std::string> tables;
  {
    Stmt s(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", path);
    while (s.step()) {
      tables.push_back(printable(s.text(0), 40));  // a table's name may hold a newline
      if (tables.back() == "schema_version") has_version = true;
    }
  }
  if (!has_version) {
    if (!tables.empty())
      throw UsageError(fmt::format("{} is an SQLite database but not an accelbench history (it has tables {} and "
                                   "no schema_version); it was left as it is: pass --db with another path",
                                   path, fmt::join(tables, ", ")));
    return 0;
  }
  Stmt v(db, "SELECT COALESCE(MAX(version), 0) FROM schema_version", path);
  v.step();
  return static_cast<int>(v.i64(0));
}
}  // namespace

void HistoryStore::open_and_migrate(int target_version) {
  read_only_reason_ = check_or_create_database_file(path_, target_version);
  const int flags = writable() ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY;
  open_database_connection(db_, path_, flags);
  // SQLite itself falls back to reading only when the file cannot be written.
  if (writable() && sqlite3_db_readonly(db_, "main") == 1) read_only_reason_ = "SQLite opened it read-only";
  if (!writable()) {
    // A WAL database needs its -shm file, which a read-only folder cannot hold: then read it as an
    // immutable file (nobody can write it through this folder either).
    reopen_database_immutable_when_needed(db_, path_, read_only_reason_);
  }
  sqlite3_busy_timeout(db_, static_cast<int>(std::min(30.0, busy_wait_s()) * 1000));
  sqlite3_extended_result_codes(db_, 1);

  // What is in it? (reads only)
  auto current_version = [&]() -> int {
    return stored_schema_version(db_, path_);
  };
  int version = with_busy_retry(path_, current_version, [] {});
  if (version > kHistorySchemaVersion)
    throw UsageError(fmt::format("history database {} has schema version {}, newer than this accelbench reads ({}); "
                                 "it was left as it is: update accelbench or pass --db with another path",
                                 path_, version, kHistorySchemaVersion));

  if (!writable() && access_ == HistoryAccess::kReadWrite) require_writable();  // before measuring anything
  if (!writable()) {
    // Read what is there; nothing is switched or migrated (the readers handle every older schema).
    if (version == 0)
      fail(fmt::format("is read-only ({}) and holds no history yet", read_only_reason_));
    return;
  }

  // WAL: readers never block the writer and the writer never blocks readers. Persistent in the file.
  // The switch needs the database to itself: when another process holds it, SQLite answers busy (or
  // leaves the mode as it was), and we try again.
  auto rollback = [this]() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); };
  with_busy_retry(path_, [&]() {
    Stmt s(db_, "PRAGMA journal_mode = WAL", path_);
    if (!s.step() || s.text(0) != "wal") throw BusyError(path_, "journal mode not switched to WAL yet");
    return 0;
  }, [] {});
  exec("PRAGMA synchronous = FULL");
  exec("PRAGMA foreign_keys = ON");
  if (version >= target_version) return;

  // Migrate under the write lock; another process may have migrated meanwhile, so read again.
  with_busy_retry(path_, [&]() {
    exec("BEGIN IMMEDIATE");
    try {
      version = current_version();
      for (int v = version + 1; v <= target_version; ++v) {
        switch (v) {
          case 1: exec(kMigration1); break;
          case 2:
            exec(kMigration2Sql);
            migration2_data(db_, path_);
            break;
          case 3: exec(kMigration3Sql); break;
          case 4: exec(fmt::format(fmt::runtime(kMigration4Sql), kUnnamedDistortion).c_str()); break;
          default: throw std::logic_error("missing migration");
        }
        Stmt s(db_, "INSERT INTO schema_version (version, applied_utc) VALUES (?1, ?2)", path_);
        s.bind(1, v).bind(2, now_utc());
        s.run();
      }
      exec("COMMIT");
    } catch (const BusyError&) {
      throw;  // rolled back by the retry
    } catch (...) {
      rollback();
      throw;
    }
    return 0;
  }, rollback);
}

int HistoryStore::schema_version() const {
  Stmt v(db_, "SELECT COALESCE(MAX(version), 0) FROM schema_version", path_);
  v.step();
  return static_cast<int>(v.i64(0));
}

// ---- writing ------------------------------------------------------------------------------------

StoredRunRef HistoryStore::save_run(const RunResult& run, const nlohmann::json* document) {
  if (!writable())
    throw HistoryNotStoredError(fmt::format("{} was not stored: history database {} is read-only ({})", describe_run(run),
                                            path_, read_only_reason_));
  try {
    return save_run_checked(run, document);
  } catch (const HistoryNotStoredError&) {
    throw;
  } catch (const UsageError&) {
    throw;  // a damaged database: its own message says so
  } catch (const std::exception& e) {
    throw HistoryNotStoredError(fmt::format("{} was not stored: {}", describe_run(run), e.what()));
  }
}

StoredRunRef HistoryStore::save_run_checked(const RunResult& run, const nlohmann::json* document) {
  const int version = with_busy_retry(path_, [this]() { return schema_version(); }, [] {});
  const json typed = run;
  // Keep what the document has beyond the typed records (fields of a newer engine, telemetry...).
  json extra = json::object();
  if (document && document->is_object())
    for (auto it = document->begin(); it != document->end(); ++it)
      if (!typed.contains(it.key()) && it.key() != "stored") extra[it.key()] = it.value();
  const json* doc_cases = nullptr;
  if (document && document->contains("cases") && (*document)["cases"].is_array()) doc_cases = &(*document)["cases"];

  auto rollback = [this]() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); };
  return with_busy_retry(path_, [&]() { return save_run_once(run, typed, extra, doc_cases, version); }, rollback);
}

namespace {
// A uid no stored run has yet (after 20 tries, the last one drawn).
std::string unused_run_uid(sqlite3* db, const std::string& path) {
  std::string uid;
  for (int attempt = 0;; ++attempt) {
    uid = random_uid();
    Stmt q(db, "SELECT 1 FROM runs WHERE uid = ?1", path);
    q.bind(1, uid);
    if (!q.step() || attempt > 20) break;
  }
  return uid;
}

// The run's row (its context, and from schema 2 on what the document holds beyond the typed records);
// returns its id.
std::int64_t insert_run_row(sqlite3* db, const std::string& path, const RunResult& run, const std::string& uid,
                            const json& typed, const json& extra, int version) {
  const auto& c = run.context;
  const char* sql = version >= 4
      ? "INSERT INTO runs (uid, stored_utc, timestamp_utc, command, schema, accelbench_version, git_commit,"
        " torch_version, host, wall_s, context_json, extra_json, distorted_by)"
        " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)"
      : version >= 2
      ? "INSERT INTO runs (uid, stored_utc, timestamp_utc, command, schema, accelbench_version, git_commit,"
        " torch_version, host, wall_s, context_json, extra_json) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)"
      : "INSERT INTO runs (uid, stored_utc, timestamp_utc, command, schema, accelbench_version, git_commit,"
        " torch_version, host, wall_s, context_json) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)";
  Stmt ins(db, sql, path);
  ins.bind(1, uid).bind(2, now_utc()).bind(3, c.timestamp_utc).bind(4, run.command).bind(5, run.schema)
      .bind(6, c.accelbench_version).bind(7, c.git_commit).bind(8, c.torch_version).bind(9, c.host)
      .bind(10, run.wall_s).bind(11, typed["context"].dump());
  if (version >= 2) ins.bind(12, extra.dump());
  if (version >= 4) ins.bind(13, joined_marks(c.distorted_by));
  ins.run();
  return sqlite3_last_insert_rowid(db);
}

// One row per case: its figures, samples and JSON (the document's case with the typed fields over
// it); from schema 2 on, its telemetry in a column of its own.
void insert_case_rows(sqlite3* db, const std::string& path, const RunResult& run, std::int64_t run_id,
                      const json* doc_cases, int version) {
  const char* sql = version >= 2
      ? "INSERT INTO cases (run_id, ord, workload, device, dtype, batch_size, threads, status, n, median, ci_low,"
        " ci_high, samples_json, case_json, telemetry_json) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)"
      : "INSERT INTO cases (run_id, ord, workload, device, dtype, batch_size, threads, status, n, median, ci_low,"
        " ci_high, samples_json, case_json) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)";
  Stmt ins(db, sql, path);
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    const auto& cr = run.cases[i];
    json cj = json::object();
    if (doc_cases && i < doc_cases->size() && (*doc_cases)[i].is_object()) cj = (*doc_cases)[i];
    cj.update(json(cr));
    cj.erase("samples");
    json telemetry;
    if (auto t = cj.find("telemetry"); t != cj.end() && version >= 2) {
      telemetry = *t;
      cj.erase(t);
    }
    ins.reset();
    ins.bind(1, run_id).bind(2, i).bind(3, cr.spec.workload).bind(4, cr.spec.device).bind(5, cr.spec.dtype)
        .bind(6, cr.spec.batch_size).bind(7, cr.spec.threads).bind(8, to_string(cr.status)).bind(9, cr.stats.n)
        .bind(10, cr.stats.median).bind(11, cr.stats.ci_low).bind(12, cr.stats.ci_high)
        .bind(13, json(cr.samples).dump()).bind(14, cj.dump());
    if (version >= 2) {
      if (telemetry.is_null()) ins.bind_null(15);
      else ins.bind(15, telemetry.dump());
    }
    ins.run();
  }
}

// One row per speed-up (schema 2 on).
void insert_speedup_rows(sqlite3* db, const std::string& path, const RunResult& run, std::int64_t run_id) {
  Stmt ins(db,
           "INSERT INTO speedups (run_id, workload, device, baseline_device, dtype, batch_size, ratio, ci_low, ci_high)"
           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
           path);
  for (const auto& s : run.speedups) {
    ins.reset();
    ins.bind(1, run_id).bind(2, s.label()).bind(3, s.device).bind(4, s.baseline_device).bind(5, s.dtype)
        .bind(6, s.batch_size).bind(7, s.ratio).bind(8, s.ci_low).bind(9, s.ci_high);
    ins.run();
  }
}

// Reads the run's cases back before committing: a database whose pages or indexes are damaged in a
// way SQLite does not notice (found by fuzz_history: an index page out of range) can take the rows
// and then give back others. Then nothing is stored and the database is named damaged.
void check_cases_read_back(sqlite3* db, const std::string& path, const RunResult& run, std::int64_t run_id) {
  Stmt count(db, "SELECT COUNT(*) FROM cases WHERE run_id = ?1", path);
  count.bind(1, run_id);
  const auto stored = count.step() ? count.i64(0) : -1;
  if (stored != static_cast<std::int64_t>(run.cases.size()))
    throw UsageError(fmt::format("history database {} is damaged (a run stored with {} cases reads back with {}; "
                                 "PRAGMA integrity_check names the damage); it was left as it is: move it away "
                                 "or pass --db with another path",
                                 path, run.cases.size(), stored));
}
}  // namespace

StoredRunRef HistoryStore::save_run_once(const RunResult& run, const nlohmann::json& typed, const nlohmann::json& extra,
                                         const nlohmann::json* doc_cases, int version) {
  exec("BEGIN IMMEDIATE");
  try {
    StoredRunRef ref;
    ref.uid = unused_run_uid(db_, path_);
    ref.id = insert_run_row(db_, path_, run, ref.uid, typed, extra, version);
    insert_case_rows(db_, path_, run, ref.id, doc_cases, version);
    if (version >= 2) insert_speedup_rows(db_, path_, run, ref.id);
    check_cases_read_back(db_, path_, run, ref.id);
    test_point("save");
    exec("COMMIT");
    test_point("saved");
    return ref;
  } catch (const BusyError&) {
    throw;  // rolled back and retried by save_run
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

// ---- reading ------------------------------------------------------------------------------------

namespace {
// SQL condition on the cases table aliased c: ?1 workload ('' any), ?2 device ('' any; a bare type
// such as "cuda" matches every index).
constexpr const char* kCaseFilter =
    "(?1 = '' OR c.workload = ?1) AND (?2 = '' OR c.device = ?2 OR c.device LIKE ?2 || ':%')";
}  // namespace

std::vector<StoredRunInfo> HistoryStore::list_runs(const HistoryFilter& f) const {
  const std::string sql = fmt::format(
      "SELECT r.id, r.uid, r.stored_utc, r.timestamp_utc, r.command, r.torch_version, r.accelbench_version,"
      " r.git_commit, r.host, r.wall_s, (SELECT COUNT(*) FROM cases c WHERE c.run_id = r.id), {} FROM runs r"
      " WHERE (?1 = '' AND ?2 = '') OR EXISTS (SELECT 1 FROM cases c WHERE c.run_id = r.id AND {})"
      " ORDER BY r.id DESC{}",
      distorted_by_column(schema_version()), kCaseFilter,
      f.limit && f.limit <= static_cast<std::size_t>(INT64_MAX) ? fmt::format(" LIMIT {}", f.limit) : std::string());
  Stmt s(db_, sql.c_str(), path_);
  s.bind(1, f.workload).bind(2, f.device);
  std::vector<StoredRunInfo> out;
  while (s.step()) {
    StoredRunInfo r;
    r.id = s.i64(0); r.uid = s.text(1); r.stored_utc = s.text(2); r.timestamp_utc = s.text(3);
    r.command = s.text(4); r.torch_version = s.text(5); r.accelbench_version = s.text(6);
    r.git_commit = s.text(7); r.host = s.text(8); r.wall_s = s.f64(9);
    r.case_count = static_cast<std::size_t>(s.i64(10));
    r.distorted_by = s.text(11);
    out.push_back(r);
  }
  std::reverse(out.begin(), out.end());  // oldest first
  return out;
}

std::size_t HistoryStore::remove_runs(const std::vector<std::int64_t>& ids) {
  if (!writable())
    throw HistoryNotStoredError(fmt::format("history database {} is read-only ({}): nothing was removed", path_,
                                            read_only_reason_));
  auto rollback = [this]() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); };
  return with_busy_retry(path_, [&]() {
    exec("BEGIN IMMEDIATE");
    std::size_t removed = 0;
    try {
      const bool speedups = schema_version() >= 2;  // the speedups table came with schema 2
      for (const auto id : ids) {
        for (const char* sql : {"DELETE FROM cases WHERE run_id = ?1", "DELETE FROM speedups WHERE run_id = ?1"}) {
          if (!speedups && std::strstr(sql, "speedups")) continue;
          Stmt d(db_, sql, path_);
          d.bind(1, id);
          d.run();
        }
        Stmt d(db_, "DELETE FROM runs WHERE id = ?1", path_);
        d.bind(1, id);
        d.run();
        removed += static_cast<std::size_t>(sqlite3_changes(db_));
      }
      test_point("remove");
      exec("COMMIT");
      test_point("removed");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    return removed;
  }, rollback);
}

std::vector<std::int64_t> runs_to_prune(const std::vector<StoredRunInfo>& runs, const std::string& older_than_utc,
                                        std::size_t keep) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const bool too_old = !older_than_utc.empty() && runs[i].stored_utc < older_than_utc;
    const bool beyond_keep = keep > 0 && i + keep < runs.size();
    if (too_old || beyond_keep) out.push_back(runs[i].id);
  }
  return out;
}

std::string utc_seconds_before(const std::string& iso_utc, double seconds) {
  std::tm tm{};
  if (!strptime(iso_utc.c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) throw std::runtime_error("not an ISO-8601 time: " + iso_utc);
  const std::time_t t = timegm(&tm) - static_cast<std::time_t>(seconds);
  std::tm out{};
  gmtime_r(&t, &out);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &out);
  return buf;
}

std::string utc_seconds_ago(double seconds) { return utc_seconds_before(now_utc(), seconds); }

std::optional<std::int64_t> HistoryStore::latest_run_id() const {
  Stmt s(db_, "SELECT MAX(id) FROM runs", path_);
  if (s.step() && !s.is_null(0)) return s.i64(0);
  return std::nullopt;
}

std::optional<std::int64_t> HistoryStore::resolve(const std::string& key) const {
  if (key.empty()) return std::nullopt;
  const bool digits = key.find_first_not_of("0123456789") == std::string::npos;
  if (digits && key.size() < 12) {
    Stmt s(db_, "SELECT id FROM runs WHERE id = ?1", path_);
    s.bind(1, static_cast<std::int64_t>(std::stoll(key)));
    if (s.step()) return s.i64(0);
  }
  if (key.size() >= 4 && key.find_first_not_of("0123456789abcdef") == std::string::npos) {
    Stmt s(db_, "SELECT id FROM runs WHERE uid LIKE ?1 || '%' LIMIT 2", path_);
    s.bind(1, key);
    std::vector<std::int64_t> ids;
    while (s.step()) ids.push_back(s.i64(0));
    if (ids.size() == 1) return ids.front();
  }
  return std::nullopt;
}

namespace {
// A JSON column as stored; text that is not JSON (a damaged row) reads as `fallback`.
json parse_column(const std::string& text, json fallback) {
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? fallback : j;
}
}  // namespace

json HistoryStore::load_run_document(std::int64_t id) const {
  try {
    return load_run_document_unchecked(id);
  } catch (const UsageError&) {
    throw;
  } catch (const BusyError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("history database {}: run {} is damaged: {}", path_, id, e.what()));
  }
}

json HistoryStore::load_run_document_unchecked(std::int64_t id) const {
  const int version = schema_version();
  json doc = json::object();
  {
    const char* sql = version >= 2
        ? "SELECT uid, stored_utc, command, schema, wall_s, context_json, extra_json FROM runs WHERE id = ?1"
        : "SELECT uid, stored_utc, command, schema, wall_s, context_json, NULL FROM runs WHERE id = ?1";
    Stmt s(db_, sql, path_);
    s.bind(1, id);
    if (!s.step()) throw UsageError(fmt::format("no run {} in {}", id, path_));
    if (!s.is_null(6)) {
      json extra = parse_column(s.text(6), nullptr);
      if (extra.is_object()) doc = extra;
    }
    doc["schema"] = s.text(3).empty() ? std::string(kRunSchema) : s.text(3);
    doc["command"] = s.text(2);
    doc["wall_s"] = s.f64(4);
    doc["context"] = parse_column(s.text(5), json::object());
    doc["stored"] = {{"id", id}, {"uid", s.text(0)}, {"stored_utc", s.text(1)}, {"database", path_}};
  }
  json cases = json::array();
  {
    const char* sql = version >= 2
        ? "SELECT case_json, samples_json, telemetry_json FROM cases WHERE run_id = ?1 ORDER BY ord"
        : "SELECT case_json, samples_json, NULL FROM cases WHERE run_id = ?1 ORDER BY ord";
    Stmt s(db_, sql, path_);
    s.bind(1, id);
    while (s.step()) {
      json cj = parse_column(s.text(0), nullptr);
      if (!cj.is_object()) continue;
      cj["samples"] = parse_column(s.text(1), json::array());
      if (!s.is_null(2)) cj["telemetry"] = parse_column(s.text(2), nullptr);
      cases.push_back(std::move(cj));
    }
  }
  doc["cases"] = cases;
  // The cases parsed once, for the speed-ups computed from them: all of them before schema 2 (a
  // damaged case is an error there, as before), graphs over eager and over the CPU's fastest
  // precision always (not stored apart; a case that does not parse is left out of them).
  std::vector<CaseResult> results;
  for (const auto& cj : cases) {
    try {
      results.push_back(cj.get<CaseResult>());
    } catch (const std::exception&) {
      if (version < 2) throw;
    }
  }
  json speedups = json::array();
  if (version >= 2) {
    Stmt s(db_,
           "SELECT workload, device, baseline_device, dtype, batch_size, ratio, ci_low, ci_high FROM speedups"
           " WHERE run_id = ?1 ORDER BY rowid",
           path_);
    s.bind(1, id);
    // The workload column holds the model's label ("mlp[graphs]"): the workload is its name before '['.
    while (s.step()) {
      const std::string label = s.text(0);
      speedups.push_back(Speedup{label.substr(0, label.find('[')), s.text(1), s.text(2), s.i64(4), s.text(3), s.f64(5),
                                 s.f64(6), s.f64(7), label});
    }
  } else {
    speedups = compute_speedups(results);
  }
  doc["speedups"] = speedups;
  if (const auto g = compute_graph_speedups(results); !g.empty()) doc["graph_speedups"] = g;
  if (const auto f = compute_speedups_over_fastest_cpu(results); !f.empty()) doc["speedups_over_fastest_cpu"] = f;
  return doc;
}

RunResult HistoryStore::load_run(std::int64_t id) const {
  const json doc = load_run_document(id);
  try {
    return doc.get<RunResult>();
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("history database {}: run {} is damaged: {}", path_, id, e.what()));
  }
}

std::vector<CaseHistoryPoint> HistoryStore::case_history(const HistoryFilter& f) const {
  const std::string sql = fmt::format(
      "SELECT r.id, r.uid, r.timestamp_utc, r.torch_version, r.host, c.workload, c.device, c.dtype, c.batch_size,"
      " c.threads, c.n, c.median, c.ci_low, c.ci_high,"
      // what else tells cases apart, from the stored case (0 where it is not valid JSON: a damaged row
      // must not make the whole history unreadable)
      " CASE WHEN json_valid(c.case_json) THEN COALESCE(json_extract(c.case_json, '$.width'), 0) ELSE 0 END,"
      " CASE WHEN json_valid(c.case_json) THEN COALESCE(json_extract(c.case_json, '$.checkpoint'), 0) ELSE 0 END,"
      " CASE WHEN json_valid(c.case_json) THEN COALESCE(json_extract(c.case_json, '$.graphs'), 0) ELSE 0 END,"
      " CASE WHEN json_valid(c.case_json) THEN COALESCE(json_extract(c.case_json, '$.device_time.busy_fraction'), -1) ELSE -1 END,"
      " CASE WHEN json_valid(c.case_json) THEN COALESCE(json_extract(c.case_json, '$.impl'), '') ELSE '' END,"
      " CASE WHEN json_valid(c.case_json) THEN COALESCE(json_extract(c.case_json, '$.compile'), '') ELSE '' END,"
      " CASE WHEN json_valid(c.case_json) THEN COALESCE(json_extract(c.case_json, '$.run_to_run.widened'), 0) ELSE 0 END,"
      " CASE WHEN json_valid(c.case_json) THEN COALESCE(json_array_length(c.case_json, '$.rounds'), 0) ELSE 0 END, {}"
      " FROM cases c JOIN runs r ON r.id = c.run_id"
      " WHERE c.status = 'ok' AND c.n > 0 AND {} ORDER BY r.id, c.ord",
      distorted_by_column(schema_version()), kCaseFilter);
  Stmt s(db_, sql.c_str(), path_);
  s.bind(1, f.workload).bind(2, f.device);
  std::vector<CaseHistoryPoint> out;
  while (s.step()) {
    CaseHistoryPoint p;
    p.run_id = s.i64(0); p.run_uid = s.text(1); p.timestamp_utc = s.text(2); p.torch_version = s.text(3);
    p.host = s.text(4); p.workload = s.text(5); p.device = s.text(6); p.dtype = s.text(7);
    p.batch_size = s.i64(8); p.threads = static_cast<int>(s.i64(9)); p.n = static_cast<std::size_t>(s.i64(10));
    p.median = s.f64(11); p.ci_low = s.f64(12); p.ci_high = s.f64(13);
    p.width = s.i64(14); p.checkpoint = s.i64(15) != 0; p.graphs = s.i64(16) != 0;
    p.device_busy_fraction = s.f64(17);
    p.impl = s.text(18); p.compile = s.text(19); p.next_run_range = s.i64(20) != 0;
    p.rounds = static_cast<std::size_t>(std::max<std::int64_t>(0, s.i64(21))); p.distorted_by = s.text(22);
    out.push_back(p);
  }
  return out;
}

void HistoryStore::save_ceilings(const DeviceCeilings& c) {
  const auto what = fmt::format("the ceilings of {} ({}) were not stored", c.device, c.device_name);
  if (!writable())
    throw HistoryNotStoredError(fmt::format("{}: history database {} is read-only ({})", what, path_, read_only_reason_));
  try {
    auto rollback = [this]() { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); };
    with_busy_retry(path_, [&]() {
      exec("BEGIN IMMEDIATE");
      try {
        Stmt s(db_,
               "INSERT INTO ceilings (device, device_name, torch_version, host, measured_utc, ceilings_json)"
               " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
               path_);
        s.bind(1, c.device).bind(2, c.device_name).bind(3, c.torch_version).bind(4, c.host).bind(5, c.measured_utc)
            .bind(6, to_json(c).dump());
        s.run();
        // Found again the way latest_ceilings looks (as save_run reads its cases back): a damaged index
        // can take the row and never give it back; then nothing is stored and the damage is named.
        const std::int64_t id = sqlite3_last_insert_rowid(db_);
        const auto ids = ceilings_ids(c.device_name, c.torch_version);
        if (std::find(ids.begin(), ids.end(), id) == ids.end())
          throw UsageError(fmt::format("history database {} is damaged (stored ceilings cannot be found again; PRAGMA "
                                       "integrity_check names the damage); it was left as it is: move it away or "
                                       "pass --db with another path",
                                       path_));
        exec("COMMIT");
      } catch (const BusyError&) {
        throw;  // rolled back and retried
      } catch (...) {
        rollback();
        throw;
      }
      return 0;
    }, rollback);
  } catch (const UsageError&) {
    throw;  // a damaged database: its own message says so
  } catch (const std::exception& e) {
    throw HistoryNotStoredError(fmt::format("{}: {}", what, e.what()));
  }
}

std::vector<std::int64_t> HistoryStore::ceilings_ids(const std::string& device_name,
                                                     const std::string& torch_version) const {
  if (schema_version() < 3) return {};  // a read-only database from before `peak`
  Stmt s(db_,
         "SELECT id FROM ceilings WHERE device_name = ?1 AND (?2 = '' OR torch_version = ?2)"
         " ORDER BY measured_utc DESC, id DESC",
         path_);
  s.bind(1, device_name).bind(2, torch_version);
  std::vector<std::int64_t> ids;
  while (s.step()) ids.push_back(s.i64(0));
  return ids;
}

std::optional<DeviceCeilings> HistoryStore::latest_ceilings(const std::string& device_name,
                                                            const std::string& torch_version) const {
  const auto ids = ceilings_ids(device_name, torch_version);
  if (ids.empty()) return std::nullopt;
  Stmt s(db_, "SELECT ceilings_json FROM ceilings WHERE id = ?1", path_);
  s.bind(1, ids.front());
  const auto origin = fmt::format("history database {}: ceilings row {}", path_, ids.front());
  if (!s.step()) throw UsageError(origin + " cannot be read (the database is damaged)");
  const json j = json::parse(s.text(0), nullptr, /*allow_exceptions=*/false);
  return ceilings_from_json(j, origin);
}

}  // namespace accelbench
