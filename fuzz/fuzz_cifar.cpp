// CIFAR-10 binary batch reader. The first byte is max_items (255: all); the rest is the file.
#include "core/errors.h"
#include "data/cifar_reader.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::int64_t max_items = data[0] == 255 ? -1 : data[0];
  const auto path = fuzz::write_scratch("data_batch_1.bin", data + 1, size - 1);
  try {
    accelbench::CifarData d;
    accelbench::read_cifar_file(path, d, max_items);
    if (d.pixels.size() != d.labels.size() * 3072) fuzz::finding("pixels and labels disagree");
    for (auto l : d.labels)
      if (l >= 10) fuzz::finding("label out of range accepted");
  } catch (const accelbench::UsageError& e) {
    fuzz::check_one_line(e);
  }
  return 0;
}
