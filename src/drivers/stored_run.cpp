#include "drivers/stored_run.h"

#include <fmt/format.h>

#include "report/printer.h"
#include "store/history_store.h"

namespace accelbench {

bool store_and_note(HistoryStore* store, const RunResult& run, const nlohmann::json* document, Printer& printer,
                    const std::string& still_holds) {
  if (!store) return true;
  try {
    const auto ref = store->save_run(run, document);
    printer.note(fmt::format("stored as run {} (uid {}) in {}", ref.id, ref.uid, store->path()));
    return true;
  } catch (const HistoryNotStoredError& e) {  // what `still_holds` names keeps every case
    printer.note(fmt::format("{}; {}", e.what(), still_holds));
    return false;
  }
}

}  // namespace accelbench
