// Writes the small seed corpora of the fuzz targets into fuzz/corpus/<target>/ with the project's
// own writers (a run's JSON, a history database) and hand-made IDX, CIFAR and text files.
//   ./build-fuzz/fuzz_make_seeds fuzz/corpus
#include <sqlite3.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "store/history_store.h"
#include "support/synthetic_runs.h"

namespace fs = std::filesystem;

namespace {
void put(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}
std::string idx(const std::vector<std::uint32_t>& dims, std::size_t fill_bytes) {
  std::string b{0, 0, 8, static_cast<char>(dims.size())};
  for (auto d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<char>((d >> s) & 0xff));
  for (std::size_t i = 0; i < fill_bytes; ++i) b.push_back(static_cast<char>(i % 10));
  return b;
}
}  // namespace

int main(int argc, char** argv) {
  const fs::path out = argc > 1 ? argv[1] : "fuzz/corpus";
  // idx: first byte = mode | max_items << 2 (see fuzz_idx.cpp)
  put(out / "idx" / "plain_labels", std::string(1, char(63 << 2 | 0)) + idx({5}, 5));
  put(out / "idx" / "plain_images", std::string(1, char(63 << 2 | 0)) + idx({2, 3, 3}, 18));
  put(out / "idx" / "gzip_images", std::string(1, char(2 << 2 | 1)) + idx({3, 2, 2}, 12));
  {
    // A real deflate stream after the gzip header (mode 2: the fuzzer mutates the stream itself).
    const std::string raw = idx({2, 2}, 4);
    std::vector<unsigned char> z(256);
    z_stream s{};
    deflateInit2(&s, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
    s.avail_in = static_cast<uInt>(raw.size());
    s.next_out = z.data();
    s.avail_out = static_cast<uInt>(z.size());
    deflate(&s, Z_FINISH);
    z.resize(s.total_out);
    deflateEnd(&s);
    std::string body(z.begin(), z.end());
    const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(raw.data()), static_cast<uInt>(raw.size()));
    for (int i = 0; i < 4; ++i) body.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
    for (int i = 0; i < 4; ++i) body.push_back(static_cast<char>((raw.size() >> (8 * i)) & 0xff));
    put(out / "idx" / "raw_deflate", std::string(1, char(63 << 2 | 2)) + body);
  }
  {
    const std::string images = idx({1, 28, 28}, 784), labels = idx({1}, 1);
    // mode 3 splits the rest in halves: pad the labels file to the images' length is not possible,
    // so give equal halves by repeating the header bytes as trailing data (an error path) too.
    put(out / "idx" / "split", std::string(1, char(63 << 2 | 3)) + images + labels);
  }
  // cifar: first byte = max_items
  {
    std::string recs;
    for (int r = 0; r < 2; ++r) {
      recs.push_back(static_cast<char>(r + 3));
      recs += std::string(3072, static_cast<char>(r * 40));
    }
    put(out / "cifar" / "two_records", std::string(1, char(255)) + recs);
    put(out / "cifar" / "one_of_two", std::string(1, char(1)) + recs);
  }
  // text: first byte = (num_labels - 1) | max_len << 2
  put(out / "text" / "reviews", std::string(1, char(1 | 16 << 2)) + "1\tA great, GREAT movie!\n\n0\tawful\r\n1\tfine\n");
  put(out / "text" / "bad_label", std::string(1, char(1 | 8 << 2)) + "1\tok\n7\tno\n");
  // results_json: a run as the engine writes it (telemetry included)
  accelbench::testing::SyntheticOptions o;
  o.workloads = {"mlp", "cnn"};
  o.n = 4;
  auto run = accelbench::testing::make_run(o);
  accelbench::TelemetrySummary t;
  t.sample_hz = 10;
  t.steps = 12;
  t.energy_j = accelbench::TelemetryFigure::of(12.5, "nvml:0");
  t.series.t_s = {0, 0.1};
  t.series.channels["nvml:0"]["power_w"] = {100.0, std::nullopt};
  run.cases[0].telemetry = t;
  run.cases[0].epoch_s_measured = 3.5;
  run.cases[0].phases = accelbench::PhaseSamples{{0.1, 0.2}, {0.2, 0.3}, {0.01, 0.02}};
  put(out / "results_json" / "run.json", nlohmann::json(run).dump(1));
  put(out / "results_json" / "minimal.json", R"({"schema": "accelbench.run/1", "cases": [{"workload": "mlp", "device": "cpu"}]})");
  // history: a small database with one run (schema 2)
  {
    const fs::path db = out / "history" / "one_run.db";
    fs::create_directories(db.parent_path());
    fs::remove(db);
    o.workloads = {"mlp"};
    o.n = 3;
    {
      accelbench::HistoryStore store(db.string());
      store.save_run(accelbench::testing::make_run(o));
    }
    {
      // A single small file: rollback journal, 512-byte pages, vacuumed.
      sqlite3* raw = nullptr;
      sqlite3_open(db.string().c_str(), &raw);
      sqlite3_exec(raw, "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;", nullptr, nullptr, nullptr);
      sqlite3_close(raw);
    }
    for (const char* suffix : {"-wal", "-shm"}) fs::remove(db.string() + suffix);
  }
  return 0;
}
