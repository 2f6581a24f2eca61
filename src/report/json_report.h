#pragma once
// The run's JSON file (schema accelbench.run/1): written safely, read back with checked fields.
#include <string>

#include "core/results.h"

namespace accelbench {

// Writes the run as JSON through write_file_atomically (core/safe_write.h): a regular file is
// replaced atomically (a reader never sees half a file, an interrupted write leaves no partial
// output), a symlink's target is replaced and the link kept, a device node or /dev/stdout is written
// in place, a directory is refused. Throws UsageError (one line) when the path cannot be written.
void write_json_report(const RunResult& run, const std::string& path);
// The same for a document that adds blocks to a run's JSON (e.g. a sweep's "sweep").
void write_json_document(const nlohmann::json& document, const std::string& path);

// Reads a run written by write_json_report. Throws UsageError (one line, naming the file and, for a
// mistyped or out-of-range field, the case and the field) on a missing file, a directory or device,
// text that is not JSON, or another schema.
RunResult read_json_report(const std::string& path);

}  // namespace accelbench
