#pragma once
// The history: every run (and sweep) kept in an embedded SQLite database, so results last and can be
// compared across runs and PyTorch versions. No torch here.
//
// Schema (see docs/results-store.md): versioned by the table `schema_version` (one row per applied
// migration); WAL journal; a busy timeout so that concurrent writers wait instead of failing; one
// BEGIN IMMEDIATE transaction per stored run, so a run is stored whole or not at all.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/case_history.h"
#include "core/errors.h"
#include "core/peak_records.h"
#include "core/results.h"

struct sqlite3;

namespace accelbench {

// The latest schema this build writes. Older databases are migrated forward on open; a newer one is
// refused (one-line UsageError) so an old accelbench never damages it.
inline constexpr int kHistorySchemaVersion = 4;

struct StoredRunRef {
  std::int64_t id = 0;     // integer, increasing: what people type (`accelbench report 12`)
  std::string uid;         // short random hex, unique across databases (8 characters)
};

// One line of `accelbench history`.
struct StoredRunInfo {
  std::int64_t id = 0;
  std::string uid, stored_utc, timestamp_utc, command, torch_version, accelbench_version, git_commit, host;
  std::size_t case_count = 0;
  double wall_s = 0;
  std::string distorted_by;  // the checks that found its timings distorted, ", "-separated; empty: none
};

// A run that could not be stored (read-only database, full disk, a lock held for a minute...). The
// message is one line naming the database, why, and what was not stored; the caller still has the
// run (terminal table, --json file) and should say so.
struct HistoryNotStoredError : UsageError {
  using UsageError::UsageError;
};

// How a command uses the history: to store runs (run, the sweeps) or only to read them (history,
// report, compare).
enum class HistoryAccess { kReadWrite, kReadOnly };

// The runs a prune removes (oldest first): those stored before `older_than_utc` (an ISO-8601 UTC time;
// empty: no age limit) and those beyond the newest `keep` (0: no count limit). `runs` oldest first,
// as list_runs gives them.
std::vector<std::int64_t> runs_to_prune(const std::vector<StoredRunInfo>& runs, const std::string& older_than_utc,
                                        std::size_t keep);

// "2026-11-30T12:00:00Z" minus `seconds`: the cut-off of `history prune --older-than`.
std::string utc_seconds_before(const std::string& iso_utc, double seconds);
std::string utc_seconds_ago(double seconds);

class HistoryStore {
 public:
  // Opens (creating it and its folder when absent) and migrates the database to the latest schema.
  // Throws UsageError (one line) when the file is not an SQLite database, not an accelbench history,
  // from a newer accelbench, or cannot be created; such a file is left untouched.
  // With kReadWrite (the default: run and the sweeps open it before measuring) a database that
  // cannot be written (read-only file, folder or file system) is refused with one line: "history
  // database X is read-only (why): the results would not be stored; pass --db with a writable path,
  // or --no-save". With kReadOnly it is opened for reading: writable() is false, nothing is
  // switched or migrated, and save_run throws HistoryNotStoredError.
  explicit HistoryStore(const std::string& path, HistoryAccess access = HistoryAccess::kReadWrite);
  // For tests of the migrations: opens and migrates only up to `target_version` (1..latest).
  HistoryStore(const std::string& path, int target_version);
  ~HistoryStore();
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  // $ACCELBENCH_DB, else $XDG_DATA_HOME/accelbench/history.db, else ~/.local/share/accelbench/history.db.
  static std::string default_path();

  const std::string& path() const { return path_; }
  int schema_version() const;

  // Whether runs can be stored; when not, read_only_reason() says why ("the file is read-only",
  // "folder /x is not writable", "the file system is read-only").
  bool writable() const { return read_only_reason_.empty(); }
  const std::string& read_only_reason() const { return read_only_reason_; }
  // Throws that one-line UsageError when the database cannot be written.
  void require_writable() const;

  // "the run of 2026-11-30T12:00:00Z ('run', 4 cases)": how messages name a run that was not stored.
  static std::string describe_run(const RunResult& run);

  // Stores the run in one transaction: its context, cases with all samples, speed-ups. `document`
  // may be the run's full JSON as read from a file (it keeps fields this build does not model, e.g. a
  // case's "telemetry"); when null the run is serialized. Stored whole or not at all: when it cannot
  // be stored, throws HistoryNotStoredError naming the run and the reason (UsageError for a damaged
  // database).
  StoredRunRef save_run(const RunResult& run, const nlohmann::json* document = nullptr);

  std::vector<StoredRunInfo> list_runs(const HistoryFilter& filter = {}) const;
  std::optional<std::int64_t> latest_run_id() const;
  // By integer id or by uid (or a unique uid prefix of 4+ characters).
  std::optional<std::int64_t> resolve(const std::string& id_or_uid) const;
  // The run as stored, as the JSON document (schema accelbench.run/1) with "stored" {id, uid}.
  // A stored row that is damaged (text that is not JSON, mistyped fields) gives a one-line
  // UsageError naming the run, never undefined behaviour.
  nlohmann::json load_run_document(std::int64_t id) const;
  RunResult load_run(std::int64_t id) const;

  // Deletes the runs (their cases and speed-ups too) in one transaction: all or none. Returns how many
  // were deleted. Throws HistoryNotStoredError when the database cannot be written.
  std::size_t remove_runs(const std::vector<std::int64_t>& ids);

  // Medians of every matching ok case, oldest run first.
  std::vector<CaseHistoryPoint> case_history(const HistoryFilter& filter = {}) const;

  // A device's ceilings (`accelbench peak`): stored in one statement (HistoryNotStoredError when they
  // cannot be); the newest stored for a device name (any torch version when `torch_version` is
  // empty), nullopt when none (or the database predates schema 3). A damaged row: UsageError.
  void save_ceilings(const DeviceCeilings& ceilings);
  std::optional<DeviceCeilings> latest_ceilings(const std::string& device_name, const std::string& torch_version = {}) const;

 private:
  void open_or_close(int target_version);
  void open_and_migrate(int target_version);
  StoredRunRef save_run_checked(const RunResult& run, const nlohmann::json* document);
  nlohmann::json load_run_document_unchecked(std::int64_t id) const;
  StoredRunRef save_run_once(const RunResult& run, const nlohmann::json& typed, const nlohmann::json& extra,
                             const nlohmann::json* doc_cases, int version);
  void exec(const char* sql) const;
  // The ceilings rows of a device name (and torch version, when not empty), newest first.
  std::vector<std::int64_t> ceilings_ids(const std::string& device_name, const std::string& torch_version) const;
  [[noreturn]] void fail(const std::string& what) const;
  std::string path_;
  HistoryAccess access_ = HistoryAccess::kReadWrite;
  std::string read_only_reason_;  // empty: writable
  sqlite3* db_ = nullptr;
};

}  // namespace accelbench
