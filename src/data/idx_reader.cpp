#include "data/idx_reader.h"

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "core/errors.h"

namespace accelbench {

namespace {
struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzPtr = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Reads exactly n bytes; returns how many were read.
std::size_t read_bytes(gzFile f, void* dst, std::size_t n) {
  std::size_t done = 0;
  auto* p = static_cast<unsigned char*>(dst);
  while (done < n) {
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1u << 30));
    const int got = gzread(f, p + done, chunk);
    if (got <= 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

std::string pick(const std::string& dir, const std::string& base) {
  for (const auto& name : {base + ".gz", base}) {
    const auto p = std::filesystem::path(dir) / name;
    if (std::filesystem::exists(p)) return p.string();
  }
  return (std::filesystem::path(dir) / (base + ".gz")).string();
}
}  // namespace

IdxArray read_idx(const std::string& path, std::int64_t max_items) {
  if (!std::filesystem::exists(path)) throw UsageError(fmt::format("IDX file not found: {}", path));
  GzPtr f(gzopen(path.c_str(), "rb"));  // reads uncompressed files as they are, too
  if (!f) throw UsageError(fmt::format("cannot open IDX file {}", path));
  unsigned char magic[4];
  if (read_bytes(f.get(), magic, 4) != 4) throw UsageError(fmt::format("{}: truncated IDX header", path));
  if (magic[0] != 0 || magic[1] != 0)
    throw UsageError(fmt::format("{}: bad IDX magic {:02x}{:02x}{:02x}{:02x} (not an IDX file)", path, magic[0],
                                 magic[1], magic[2], magic[3]));
  if (magic[2] != 0x08)
    throw UsageError(fmt::format("{}: unsupported IDX element type 0x{:02x} (only unsigned bytes, 0x08)", path, magic[2]));
  const int ndims = magic[3];
  if (ndims < 1 || ndims > 4) throw UsageError(fmt::format("{}: bad IDX dimension count {}", path, ndims));
  IdxArray a;
  std::int64_t per_item = 1;
  for (int d = 0; d < ndims; ++d) {
    unsigned char b[4];
    if (read_bytes(f.get(), b, 4) != 4) throw UsageError(fmt::format("{}: truncated IDX header", path));
    const std::int64_t v = (std::int64_t{b[0]} << 24) | (b[1] << 16) | (b[2] << 8) | b[3];
    if (v <= 0 || v > (1LL << 31)) throw UsageError(fmt::format("{}: bad IDX dimension {}", path, v));
    a.dims.push_back(v);
    if (d > 0) per_item *= v;
  }
  const std::int64_t declared = a.dims[0];
  const std::int64_t want = max_items < 0 ? declared : std::min(declared, max_items);
  a.data.resize(static_cast<std::size_t>(want * per_item));
  const auto got = read_bytes(f.get(), a.data.data(), a.data.size());
  if (got != a.data.size())
    throw UsageError(fmt::format("{}: truncated: header declares {} items, data holds only {}", path, declared,
                                 static_cast<std::int64_t>(got) / per_item));
  if (want == declared) {
    unsigned char extra;
    if (read_bytes(f.get(), &extra, 1) != 0)
      throw UsageError(fmt::format("{}: count mismatch: more data than the {} items the header declares", path, declared));
  }
  int errnum = 0;
  gzerror(f.get(), &errnum);
  if (errnum != Z_OK && errnum != Z_STREAM_END)
    throw UsageError(fmt::format("{}: corrupt gzip stream", path));
  a.dims[0] = want;
  return a;
}

ImageClassificationData load_fashion_mnist(const std::string& dir, std::int64_t max_items) {
  ImageClassificationData d;
  const auto images = pick(dir, "train-images-idx3-ubyte");
  const auto labels = pick(dir, "train-labels-idx1-ubyte");
  d.images = read_idx(images, max_items);
  d.labels = read_idx(labels, max_items);
  if (d.images.dims.size() != 3)
    throw UsageError(fmt::format("{}: expected 3 dimensions (n, rows, cols), found {}", images, d.images.dims.size()));
  if (d.labels.dims.size() != 1)
    throw UsageError(fmt::format("{}: expected 1 dimension, found {}", labels, d.labels.dims.size()));
  if (d.images.count() != d.labels.count())
    throw UsageError(fmt::format("count mismatch: {} images but {} labels in {}", d.images.count(), d.labels.count(), dir));
  for (auto l : d.labels.data)
    if (l >= 10) throw UsageError(fmt::format("{}: label {} out of range [0, 10)", labels, int(l)));
  d.source = fmt::format("fashion-mnist ({})", dir);
  return d;
}

std::string find_fashion_mnist_dir() {
  std::string dir = kDefaultFashionMnistDir;
  if (const char* env = std::getenv("ACCELBENCH_FASHION_MNIST"); env && *env) dir = env;
  const auto p = std::filesystem::path(dir);
  if (std::filesystem::exists(p / "train-images-idx3-ubyte.gz") || std::filesystem::exists(p / "train-images-idx3-ubyte"))
    return dir;
  return "";
}

}  // namespace accelbench
