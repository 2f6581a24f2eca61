#pragma once
// Measuring a case in a child process: the same binary re-executed with the hidden `_measure-case`
// command (cli/measure_case_command.cpp), so that a crash, an abort or a killed process ends only
// that case, recorded as FailureKind::crashed. The request (spec, MeasureOptions, memory limit)
// goes as JSON on the command line; the result comes back as CaseResult JSON in a scratch folder.
// No torch here. See docs/sweeps.md.
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/measurement.h"

namespace accelbench {

inline constexpr const char* kMeasureCaseCommand = "_measure-case";

// A private temporary folder for the children's result files, removed with what it holds.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

// The request a child reads (--spec-json) and writes its result for.
struct MeasureRequest {
  CaseSpec spec;
  MeasureOptions options;
  std::uint64_t memory_limit_bytes = 0;  // 0: none (--memory-limit)
};
void to_json(nlohmann::json& j, const MeasureRequest& v);
void from_json(const nlohmann::json& j, MeasureRequest& v);

class IsolatedMeasurer : public CaseMeasurer {
 public:
  explicit IsolatedMeasurer(std::uint64_t memory_limit_bytes = 0) : memory_limit_bytes_(memory_limit_bytes) {}
  // A case that overruns twice its time (plus two minutes for start-up and build) is killed.
  // The child's own messages (stderr) are passed on; no progress events come from a child.
  CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) override;

 private:
  std::uint64_t memory_limit_bytes_;
  ScratchDir scratch_;
  std::size_t count_ = 0;
};

}  // namespace accelbench
