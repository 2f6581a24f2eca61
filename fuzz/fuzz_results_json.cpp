// A run's JSON (schema accelbench.run/1) read with from_json: any document either reads or gives a
// one-line error, never undefined behaviour; what reads writes back (to_json) and reads again.
#include <nlohmann/json.hpp>

#include "core/results.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  accelbench::RunResult run;
  try {
    run = j.get<accelbench::RunResult>();
  } catch (const std::exception& e) {
    fuzz::check_one_line(e);
    return 0;
  }
  nlohmann::json again;
  try {
    again = run;
    (void)again.dump();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "to_json of a run that from_json accepted failed: %s\n", e.what());
    std::abort();
  }
  try {
    (void)again.get<accelbench::RunResult>();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "a run written by to_json does not read back: %s\n", e.what());
    std::abort();
  }
  return 0;
}
