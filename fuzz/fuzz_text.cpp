// The bert-base text input: read_labelled_text on the file, then the tokenizer on every example.
// The first byte gives the number of labels (1..4) and the token limit (0..63).
#include "core/errors.h"
#include "data/tokenizer.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int num_labels = 1 + (data[0] & 3);
  const std::size_t max_len = data[0] >> 2;
  const std::string_view whole(reinterpret_cast<const char*>(data + 1), size - 1);
  auto check_ids = [&](const std::vector<std::int32_t>& ids) {
    if (ids.size() > max_len) fuzz::finding("more ids than max_len");
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const bool special = ids[i] == accelbench::kClsId || ids[i] == accelbench::kSepId;
      if (!special && (ids[i] < accelbench::kFirstWordId || ids[i] >= accelbench::kBertVocab)) fuzz::finding("id out of vocabulary");
    }
  };
  check_ids(accelbench::tokenize(whole, max_len));
  const auto path = fuzz::write_scratch("text.tsv", data + 1, size - 1);
  try {
    for (const auto& ex : accelbench::read_labelled_text(path, num_labels)) {
      if (ex.label < 0 || ex.label >= num_labels) fuzz::finding("label out of range accepted");
      check_ids(accelbench::tokenize(ex.text, max_len));
    }
  } catch (const accelbench::UsageError& e) {
    fuzz::check_one_line(e);
  }
  return 0;
}
