// The history database opened on a mutated file: opening (checks, migrations), reading every run
// back (list, load, case history), then storing a run and reading it back, and the same for a
// device's ceilings. Damage gives a one-line
// UsageError (or a one-line runtime error from SQLite), never a crash or undefined behaviour.
#include <filesystem>

#include "core/errors.h"
#include "fuzz_common.h"
#include "store/history_store.h"
#include "support/synthetic_runs.h"

namespace {
const accelbench::RunResult& small_run() {
  static const accelbench::RunResult run = [] {
    accelbench::testing::SyntheticOptions o;
    o.workloads = {"mlp"};
    o.n = 3;
    return accelbench::testing::make_run(o);
  }();
  return run;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_dir() + "/history.db";
  for (const char* suffix : {"-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix);
  fuzz::write_scratch("history.db", data, size);
  try {
    accelbench::HistoryStore store(path);
    (void)store.schema_version();
    for (const auto& info : store.list_runs()) {
      try {
        (void)store.load_run(info.id);
      } catch (const accelbench::UsageError& e) {
        fuzz::check_one_line(e);
      }
      (void)store.resolve(info.uid);
    }
    accelbench::HistoryFilter f;
    f.workload = "mlp";
    f.limit = 2;
    (void)store.list_runs(f);
    (void)store.case_history(f);
    (void)store.latest_run_id();
    const auto ref = store.save_run(small_run());
    const auto back = store.load_run(ref.id);
    if (back.cases.size() != small_run().cases.size()) fuzz::finding("stored run read back with other cases");
    // The device ceilings of `accelbench peak` (schema 3): stored and the newest read back.
    accelbench::DeviceCeilings c;
    c.device = "cpu";
    c.device_name = "fuzz";
    c.torch_version = "2.13.0";
    c.measured_utc = "9999-12-31T00:00:00Z";  // the newest of any stored
    c.ceilings.push_back({accelbench::CeilingKind::kCopy, "", "1 MiB", 3, 1e9, 0.9e9, 1.1e9, ""});
    (void)store.latest_ceilings("fuzz");
    store.save_ceilings(c);
    const auto latest = store.latest_ceilings("fuzz", "2.13.0");
    if (!latest || latest->ceilings.size() != 1) fuzz::finding("stored ceilings not read back");
  } catch (const std::exception& e) {
    fuzz::check_one_line(e);
  }
  return 0;
}
