#pragma once
// The step `run` (drivers/run_driver.h) and every sweep (drivers/sweep_runner.h) end with: the run
// stored in the history and a note that says where, or, where the history refuses it, why and what
// still holds it. No torch here.
#include <nlohmann/json.hpp>

#include <string>

#include "core/results.h"

namespace accelbench {

class HistoryStore;
class Printer;

// Stores `run` (with `document`, the full JSON, where not nullptr: a sweep's block) and notes
// "stored as run 12 (uid 3fa2b1c0) in PATH". Where the history does not store it
// (HistoryNotStoredError), notes its reason and `still_holds` ("the tables still hold the run").
// Returns whether it was stored; true without a history (`store` nullptr: --no-save).
bool store_and_note(HistoryStore* store, const RunResult& run, const nlohmann::json* document, Printer& printer,
                    const std::string& still_holds);

}  // namespace accelbench
