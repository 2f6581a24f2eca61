#include "report/run_source.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "report/article_reference.h"
#include "report/json_report.h"
#include "store/history_store.h"

namespace accelbench {

namespace fs = std::filesystem;

namespace {
ReportSource from_store(HistoryStore& store, std::int64_t id) {
  ReportSource src;
  src.document = store.load_run_document(id);
  try {
    src.run = src.document.get<RunResult>();
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("stored run {} cannot be read: {}", id, e.what()));
  }
  src.name = fmt::format("run {} (uid {})", id, src.document["stored"].value("uid", ""));
  for (auto& p : store.case_history())
    if (p.run_id <= id) src.history.push_back(std::move(p));
  return src;
}
}  // namespace

ReportSource load_run_source(const std::string& spec, const std::string& db_path, bool offer_published) {
  if (spec == kArticleRunName) {
    ReportSource src;
    src.run = article_reference_run();
    src.document = src.run;
    src.name = fmt::format("{} (the article's published figures)", kArticleRunName);
    return src;
  }
  std::error_code ec;
  const bool looks_like_file = spec.find('/') != std::string::npos || spec.find('.') != std::string::npos;
  if (fs::is_regular_file(spec, ec) || looks_like_file) {
    ReportSource src;
    src.run = read_json_report(spec);  // UsageError: unreadable, not JSON, another schema
    std::ifstream in(spec, std::ios::binary);
    src.document = nlohmann::json::parse(in, nullptr, false);
    if (src.document.is_discarded()) src.document = src.run;
    src.name = spec;
    return src;
  }
  if (!fs::exists(db_path, ec))
    throw UsageError(fmt::format("no run '{}': it is not a file, and there is no history database at {} yet", spec, db_path));
  HistoryStore store(db_path, HistoryAccess::kReadOnly);
  const auto id = store.resolve(spec);
  if (!id)
    throw UsageError(fmt::format("no run '{}' in {} (give a run id or uid from `accelbench history`{})", spec, db_path,
                                 offer_published ? fmt::format(", a JSON file, or {}", kArticleRunName) : ", or a JSON file"));
  return from_store(store, *id);
}

ReportSource load_latest_run(const std::string& db_path) {
  std::error_code ec;
  if (!fs::exists(db_path, ec))
    throw UsageError(fmt::format("no stored run: there is no history database at {} (run `accelbench run` first, or "
                                 "give a JSON file)",
                                 db_path));
  HistoryStore store(db_path, HistoryAccess::kReadOnly);
  const auto id = store.latest_run_id();
  if (!id) throw UsageError(fmt::format("no stored run in {} yet (run `accelbench run` first, or give a JSON file)", db_path));
  return from_store(store, *id);
}

}  // namespace accelbench
