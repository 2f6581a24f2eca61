// IDX reader (Fashion-MNIST), plain and gzip. The first byte picks how the rest is presented:
// bit 0..1: 0 plain file, 1 gzip-compressed by zlib, 2 a gzip header followed by the raw bytes as
// the deflate stream (corrupt streams), 3 both files of a training split (load_fashion_mnist);
// bits 2..7: max_items (63: all).
#include <zlib.h>

#include <vector>

#include "core/errors.h"
#include "data/idx_reader.h"
#include "fuzz_common.h"

namespace {
void write_gzip(const std::string& path, const std::uint8_t* data, std::size_t size) {
  gzFile f = gzopen(path.c_str(), "wb1");
  if (size) gzwrite(f, data, static_cast<unsigned>(size));
  gzclose(f);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int mode = data[0] & 3;
  const int max_bits = data[0] >> 2;
  const std::int64_t max_items = max_bits == 63 ? -1 : max_bits;
  ++data;
  --size;
  try {
    if (mode == 3) {
      const std::string dir = fuzz::scratch_dir() + "/split";
      std::filesystem::create_directories(dir);
      const std::size_t half = size / 2;
      fuzz::write_scratch("split/train-images-idx3-ubyte", data, half);
      fuzz::write_scratch("split/train-labels-idx1-ubyte", data + half, size - half);
      const auto d = accelbench::load_fashion_mnist(dir, max_items);
      if (d.images.data.size() != static_cast<std::size_t>(d.images.count()) * 28 * 28) fuzz::finding("pixel count");
      return 0;
    }
    std::string path;
    if (mode == 0) {
      path = fuzz::write_scratch("f.idx", data, size);
    } else if (mode == 1) {
      path = fuzz::scratch_dir() + "/f.idx.gz";
      write_gzip(path, data, size);
    } else {
      std::vector<std::uint8_t> b{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
      b.insert(b.end(), data, data + size);
      path = fuzz::write_scratch("raw.gz", b.data(), b.size());
    }
    const auto a = accelbench::read_idx(path, max_items);
    std::size_t expect = a.dims.empty() ? 0 : 1;
    for (auto d : a.dims) expect *= static_cast<std::size_t>(d);
    if (a.data.size() != expect) fuzz::finding("data size differs from the product of the dimensions");
  } catch (const accelbench::UsageError& e) {
    fuzz::check_one_line(e);
  }
  return 0;
}
