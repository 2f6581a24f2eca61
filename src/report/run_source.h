#pragma once
// What the results commands (report, compare) accept as a run: a stored run's id or uid, a JSON file
// written by `accelbench run --json`, or the built-in reference "article-m2". No torch here.
#include <string>

#include "report/reports.h"

namespace accelbench {

// Throws UsageError (one line) for an unknown id, a file that is not JSON or of another schema, or a
// history database that cannot be read. Never creates the database. `offer_published`: the error
// for an unknown id names article-m2 among what would work (compare, which refuses it, says false).
ReportSource load_run_source(const std::string& spec, const std::string& db_path, bool offer_published = true);

// The latest stored run; UsageError when the database is absent or empty.
ReportSource load_latest_run(const std::string& db_path);

}  // namespace accelbench
