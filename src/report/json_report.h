#pragma once
#include <string>

#include "core/results.h"

namespace accelbench {

// Writes the run as JSON, atomically (a temporary file renamed over the target), so a reader never
// sees half a file and an interrupted write leaves no partial output. Throws UsageError when the
// path cannot be written.
void write_json_report(const RunResult& run, const std::string& path);
// The same for a document that adds blocks to a run's JSON (e.g. a sweep's "sweep").
void write_json_document(const nlohmann::json& document, const std::string& path);

// Reads a run written by write_json_report. Throws UsageError (one line) on an unreadable file,
// text that is not JSON, or another schema.
RunResult read_json_report(const std::string& path);

}  // namespace accelbench
