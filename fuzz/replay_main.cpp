// Replays saved inputs through a fuzz target without libFuzzer: each file named on the command line
// (each file of a folder, in name order) is passed once to the target's LLVMFuzzerTestOneInput.
// Built with any compiler under AddressSanitizer and UndefinedBehaviorSanitizer (`make test`
// replays the corpora in fuzz/corpus/ and the findings kept in tests/data/fuzz/), so that a change
// which makes a saved input crash, read out of bounds or leak fails the tests, not only a fuzzing run.
//   ./build-sanitize/replay/replay_history fuzz/corpus/history tests/data/fuzz
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
namespace fs = std::filesystem;

// The files named: a folder stands for its regular files (not recursive), sorted by name. A prefix
// filter (after ':') keeps only the files whose names start with it: tests/data/fuzz:history-.
std::vector<fs::path> inputs_named(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], prefix;
    if (const auto colon = arg.rfind(':'); colon != std::string::npos) {
      prefix = arg.substr(colon + 1);
      arg.resize(colon);
    }
    if (!fs::is_directory(arg)) {
      files.emplace_back(arg);
      continue;
    }
    std::vector<fs::path> here;
    for (const auto& e : fs::directory_iterator(arg))
      if (e.is_regular_file() && e.path().filename().string().rfind(prefix, 0) == 0) here.push_back(e.path());
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  return files;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|FOLDER[:PREFIX]...\n", argv[0]);
    return 2;
  }
  const auto files = inputs_named(argc, argv);
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read %s\n", f.c_str());
      return 2;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::error_code ec;
  fs::remove_all(fuzz::scratch_dir(), ec);
  std::printf("replay: %zu inputs, none crashed\n", files.size());
  return files.empty() ? 1 : 0;
}
