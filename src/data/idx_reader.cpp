#include "data/idx_reader.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "core/errors.h"
#include "core/safe_write.h"

namespace accelbench {

namespace {
struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzPtr = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// The most an IDX file may declare: 2^40 bytes of data (1 TiB) and 2^31 along one dimension. Checked
// before any multiplication can overflow and before anything is allocated.
constexpr std::uint64_t kMaxIdxBytes = std::uint64_t{1} << 40;
// Data is read in chunks of at most this, so that memory grows only with the bytes really present
// (a gzip stream's uncompressed size is not known until it is read).
constexpr std::size_t kChunkBytes = std::size_t{1} << 24;

// Whether zlib found the stream damaged; then throws "corrupt gzip stream" (or "truncated gzip
// stream" when the compressed data stops early), naming where: `where` says what was being read.
void check_stream(gzFile f, const std::string& path, const char* where, std::uint64_t offset) {
  int errnum = Z_OK;
  const char* msg = gzerror(f, &errnum);
  if (errnum == Z_OK || errnum == Z_STREAM_END) return;
  if (errnum == Z_BUF_ERROR)
    throw UsageError(fmt::format("{}: truncated gzip stream ({} while reading the {} at uncompressed byte {})", path,
                                 msg ? msg : "unexpected end of file", where, offset));
  if (errnum == Z_ERRNO)
    throw UsageError(fmt::format("{}: read error while reading the {}: {}", path, where, std::strerror(errno)));
  throw UsageError(fmt::format("{}: corrupt gzip stream ({}) while reading the {} at uncompressed byte {}", path,
                               msg ? msg : "data error", where, offset));
}

// Reads up to n bytes; returns how many were read (fewer only at the end of the data).
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

bool starts_with_gzip_magic(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char m[2] = {0, 0};
  in.read(reinterpret_cast<char*>(m), 2);
  return in.gcount() == 2 && m[0] == 0x1f && m[1] == 0x8b;
}
// The IDX header: the magic number (unsigned bytes, 1 to 4 dimensions) and each dimension, into
// a.dims; returns the bytes of one item (the product of dimensions 2..). Each bound is checked before
// anything is multiplied or allocated.
std::uint64_t read_idx_header(gzFile f, const std::string& path, IdxArray& a) {
  unsigned char magic[4];
  if (read_bytes(f, magic, 4) != 4) {
    check_stream(f, path, "IDX header", 0);
    throw UsageError(fmt::format("{}: truncated IDX header (the 4-byte magic number is incomplete)", path));
  }
  if (magic[0] != 0 || magic[1] != 0)
    throw UsageError(fmt::format("{}: bad IDX magic {:02x}{:02x}{:02x}{:02x} (not an IDX file)", path, magic[0],
                                 magic[1], magic[2], magic[3]));
  if (magic[2] != 0x08)
    throw UsageError(fmt::format("{}: unsupported IDX element type 0x{:02x} (only unsigned bytes, 0x08)", path, magic[2]));
  const int ndims = magic[3];
  if (ndims < 1 || ndims > 4) throw UsageError(fmt::format("{}: bad IDX dimension count {} (expected 1 to 4)", path, ndims));
  std::uint64_t per_item = 1;  // bytes of one item: the product of dimensions 1.., at most kMaxIdxBytes
  for (int d = 0; d < ndims; ++d) {
    unsigned char b[4];
    if (read_bytes(f, b, 4) != 4) {
      check_stream(f, path, "IDX header", 4 + 4 * static_cast<std::uint64_t>(d));
      throw UsageError(fmt::format("{}: truncated IDX header (dimension {} of {} missing, header offset {})", path, d + 1,
                                   ndims, 4 + 4 * d));
    }
    const std::uint64_t v = (std::uint64_t{b[0]} << 24) | (std::uint64_t{b[1]} << 16) | (std::uint64_t{b[2]} << 8) | b[3];
    if (v == 0 || v > (std::uint64_t{1} << 31))
      throw UsageError(fmt::format("{}: bad IDX dimension {} = {} at header offset {} (expected 1 to 2^31)", path, d + 1, v,
                                   4 + 4 * d));
    a.dims.push_back(static_cast<std::int64_t>(v));
    if (d > 0) {
      if (per_item > kMaxIdxBytes / v)
        throw UsageError(fmt::format("{}: IDX item size (dimensions 2..{}) exceeds 2^40 bytes: not a real data file", path,
                                     ndims));
      per_item *= v;
    }
  }
  return per_item;
}
}  // namespace

IdxArray read_idx(const std::string& path, std::int64_t max_items) {
  check_regular_input_file(path, "IDX file");
  std::error_code ec;
  const auto file_bytes = static_cast<std::uint64_t>(std::filesystem::file_size(path, ec));
  if (ec) throw UsageError(fmt::format("cannot read IDX file {}: {}", path, ec.message()));
  const bool gzip = starts_with_gzip_magic(path);
  GzPtr f(gzopen(path.c_str(), "rb"));  // reads uncompressed files as they are, too
  if (!f) throw UsageError(fmt::format("cannot open IDX file {}: {}", path, std::strerror(errno)));
  IdxArray a;
  const std::uint64_t per_item = read_idx_header(f.get(), path, a);
  const int ndims = static_cast<int>(a.dims.size());
  const std::uint64_t header_bytes = 4 + 4 * static_cast<std::uint64_t>(ndims);
  const std::uint64_t declared = static_cast<std::uint64_t>(a.dims[0]);
  if (declared > kMaxIdxBytes / per_item)
    throw UsageError(fmt::format("{}: IDX header declares {} items of {} bytes: more than 2^40 bytes", path, declared,
                                 per_item));
  const std::uint64_t declared_bytes = declared * per_item;
  // An uncompressed file holds exactly header + data: known before reading anything.
  if (!gzip && file_bytes != header_bytes + declared_bytes) {
    const std::uint64_t present = file_bytes - header_bytes;
    if (present < declared_bytes)
      throw UsageError(fmt::format("{}: truncated: header declares {} items of {} bytes ({} bytes), data holds only {} bytes "
                                   "({} whole items)",
                                   path, declared, per_item, declared_bytes, present, present / per_item));
    throw UsageError(fmt::format("{}: count mismatch: {} bytes of data, more than the {} items of {} bytes the header "
                                 "declares",
                                 path, present, declared, per_item));
  }
  const std::uint64_t want = max_items < 0 ? declared : std::min<std::uint64_t>(declared, static_cast<std::uint64_t>(max_items));
  const std::uint64_t want_bytes = want * per_item;
  // Grow with the data actually read, a chunk at a time: a gzip header that lies costs no memory.
  std::uint64_t got = 0;
  while (got < want_bytes) {
    // Geometric growth from 64 KiB, at most kChunkBytes a step: small files cost little.
    const std::uint64_t step = std::min<std::uint64_t>(std::max<std::uint64_t>(got, 1u << 16), kChunkBytes);
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(want_bytes - got, step));
    a.data.resize(static_cast<std::size_t>(got) + n);
    const auto r = read_bytes(f.get(), a.data.data() + got, n);
    got += r;
    if (r < n) break;
  }
  if (got != want_bytes) {
    check_stream(f.get(), path, "IDX data", header_bytes + got);
    throw UsageError(fmt::format("{}: truncated: header declares {} items of {} bytes, data holds only {} whole items "
                                 "({} bytes)",
                                 path, declared, per_item, got / per_item, got));
  }
  if (want == declared) {
    unsigned char extra;
    if (read_bytes(f.get(), &extra, 1) != 0)
      throw UsageError(fmt::format("{}: count mismatch: more data than the {} items the header declares", path, declared));
  }
  check_stream(f.get(), path, want == declared ? "end of the IDX data" : "IDX data", header_bytes + got);
  a.dims[0] = static_cast<std::int64_t>(want);
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
  if (d.images.dims[1] != kFashionMnistRows || d.images.dims[2] != kFashionMnistCols)
    throw UsageError(fmt::format("{}: images are {}x{} pixels, expected {}x{} (Fashion-MNIST)", images, d.images.dims[1],
                                 d.images.dims[2], kFashionMnistRows, kFashionMnistCols));
  if (d.images.data.size() != static_cast<std::size_t>(d.images.count()) * kFashionMnistRows * kFashionMnistCols)
    throw UsageError(fmt::format("{}: {} bytes of pixels for {} images of {}x{}", images, d.images.data.size(),
                                 d.images.count(), kFashionMnistRows, kFashionMnistCols));
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
  if (const char* env = std::getenv(kFashionMnistVariable); env && *env) dir = env;
  const auto p = std::filesystem::path(dir);
  if (std::filesystem::exists(p / "train-images-idx3-ubyte.gz") || std::filesystem::exists(p / "train-images-idx3-ubyte"))
    return dir;
  return "";
}

}  // namespace accelbench
