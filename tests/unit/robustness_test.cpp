// "Never crash, never lose a result": the data readers, the parsers and the results JSON on bad
// input (each case found by the bad-input matrix or by the fuzzers in fuzz/), and the safe writer
// of output files (symlinks, device nodes, FIFOs, directories). Torch-free.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>
#include <nlohmann/json.hpp>

#include "core/durations.h"
#include "core/errors.h"
#include "core/results.h"
#include "core/safe_write.h"
#include "data/cifar_reader.h"
#include "data/idx_reader.h"
#include "data/tokenizer.h"
#include "core/sweep_logic.h"
#include "report/json_report.h"
#include "test_files.h"

namespace fs = std::filesystem;
using namespace accelbench;
using namespace accelbench::testing;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << "one line: " << m;
    return m;
  }
  return "(no UsageError)";
}
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++n;
  }
  return n;
}
}  // namespace

// ---- IDX ----------------------------------------------------------------------------------------

// The bad-input matrix's SIGSEGV: a header declaring 1x1 images (data consistent with it), which the
// workloads then read as 28x28. Now refused by the loader with the dimensions it found.
TEST(RobustIdx, ImageDimensionsOtherThan28x28AreRefused) {
  TempDir dir;
  write_gzip(dir.file("train-images-idx3-ubyte.gz"), idx_bytes({4, 1, 1}, {1, 2, 3, 4}));
  write_gzip(dir.file("train-labels-idx1-ubyte.gz"), idx_bytes({4}, {1, 2, 3, 4}));
  const auto msg = error_of([&] { load_fashion_mnist(dir.path.string()); });
  EXPECT_TRUE(has(msg, "1x1 pixels, expected 28x28")) << msg;
}

// Dimensions whose product wraps around 64 bits (2^31 x 2^31 x 2^31 x ...) with a few bytes of data.
TEST(RobustIdx, DimensionProductOverflowIsRefusedBeforeAllocating) {
  TempDir dir;
  const std::int32_t big = 0x7fffffff;
  write_plain(dir.file("o"), idx_bytes({1, big, big, big}, {1, 2, 3}));
  auto msg = error_of([&] { read_idx(dir.file("o")); });
  EXPECT_TRUE(has(msg, "exceeds 2^40 bytes")) << msg;
  // 2^31 items of 2^31 bytes: the item size fits, the total does not.
  write_plain(dir.file("p"), idx_bytes({big, big}, {1}));
  msg = error_of([&] { read_idx(dir.file("p")); });
  EXPECT_TRUE(has(msg, "more than 2^40 bytes")) << msg;
  // Declared sizes larger than the data, in a gzip stream (size unknown up front): no huge allocation.
  write_gzip(dir.file("q.gz"), idx_bytes({60000, 28, 28}, std::vector<std::uint8_t>(100, 7)));
  msg = error_of([&] { read_idx(dir.file("q.gz")); });
  EXPECT_TRUE(has(msg, "truncated")) << msg;
  EXPECT_TRUE(has(msg, "0 whole items")) << msg;
}

TEST(RobustIdx, RowsAndColsAreCheckedAgainstTheBytesPresent) {
  TempDir dir;
  // 3 items of 2x2 declared, 3 items of 1x1 present (plain: known from the file size).
  write_plain(dir.file("r"), idx_bytes({3, 2, 2}, {1, 2, 3}));
  const auto msg = error_of([&] { read_idx(dir.file("r")); });
  EXPECT_TRUE(has(msg, "truncated")) << msg;
  EXPECT_TRUE(has(msg, "12 bytes")) << msg;
  EXPECT_TRUE(has(msg, "only 3 bytes")) << msg;
  // Even with max_items (only the first item wanted), a damaged plain file is refused.
  EXPECT_TRUE(has(error_of([&] { read_idx(dir.file("r"), 1); }), "truncated"));
  // Zero dimension.
  write_plain(dir.file("z"), idx_bytes({3, 0}, {}));
  EXPECT_TRUE(has(error_of([&] { read_idx(dir.file("z")); }), "bad IDX dimension 2 = 0 at header offset 8"));
}

TEST(RobustIdx, CorruptGzipIsNotReportedAsTruncatedHeader) {
  TempDir dir;
  const auto good = idx_bytes({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  write_gzip(dir.file("g.gz"), good);
  auto bytes = slurp(dir.file("g.gz"));
  // Damage the deflate data right after the 10-byte gzip header.
  std::string bad = bytes;
  for (std::size_t i = 10; i < 16 && i < bad.size(); ++i) bad[i] = static_cast<char>(0xff);
  std::ofstream(dir.file("bad.gz"), std::ios::binary) << bad;
  auto msg = error_of([&] { read_idx(dir.file("bad.gz")); });
  EXPECT_TRUE(has(msg, "corrupt gzip stream")) << msg;
  EXPECT_FALSE(has(msg, "truncated IDX header")) << msg;
  // A gzip header alone: the compressed stream stops early.
  std::ofstream(dir.file("cut.gz"), std::ios::binary) << bytes.substr(0, 12);
  msg = error_of([&] { read_idx(dir.file("cut.gz")); });
  EXPECT_TRUE(has(msg, "gzip stream")) << msg;
  EXPECT_FALSE(has(msg, "truncated IDX header")) << msg;
  // A damaged CRC at the end: found after the data.
  std::string crc = bytes;
  crc[crc.size() - 6] = static_cast<char>(crc[crc.size() - 6] ^ 0x55);
  std::ofstream(dir.file("crc.gz"), std::ios::binary) << crc;
  msg = error_of([&] { read_idx(dir.file("crc.gz")); });
  EXPECT_TRUE(has(msg, "corrupt gzip stream")) << msg;
}

TEST(RobustIdx, DirectoryOrDeviceIsNotARegularFile) {
  TempDir dir;
  fs::create_directories(dir.file("d"));
  EXPECT_TRUE(has(error_of([&] { read_idx(dir.file("d")); }), "is a directory"));
  EXPECT_TRUE(has(error_of([&] { read_idx("/dev/null"); }), "is not a regular file"));
}

// ---- CIFAR-10 and text --------------------------------------------------------------------------

TEST(RobustCifar, DirectoryAndDeviceGiveClearErrors) {
  TempDir dir;
  fs::create_directories(dir.file("data_batch_1.bin"));
  CifarData d;
  EXPECT_TRUE(has(error_of([&] { read_cifar_file(dir.file("data_batch_1.bin"), d); }), "is a directory"));
  EXPECT_TRUE(has(error_of([&] { load_cifar10_train(dir.path.string()); }), "is a directory"));
  EXPECT_TRUE(has(error_of([&] { read_cifar_file("/dev/zero", d); }), "is not a regular file"));
  // A record's label out of range names the record and its byte offset.
  std::vector<std::uint8_t> recs(2 * kCifarRecordBytes, 1);
  recs[kCifarRecordBytes] = 200;
  write_plain(dir.file("b.bin"), recs);
  EXPECT_TRUE(has(error_of([&] { read_cifar_file(dir.file("b.bin"), d); }), "record 1 (byte 3073) has label 200"));
}

TEST(RobustText, DirectoryIsNotReportedAsEmptyFile) {
  TempDir dir;
  fs::create_directories(dir.file("t"));
  const auto msg = error_of([&] { read_labelled_text(dir.file("t"), 2); });
  EXPECT_TRUE(has(msg, "is a directory")) << msg;
  EXPECT_FALSE(has(msg, "empty")) << msg;
  EXPECT_TRUE(has(error_of([&] { read_labelled_text("/dev/null", 2); }), "is not a regular file"));
}

TEST(RobustText, LabelsAndBinaryLines) {
  TempDir dir;
  std::ofstream(dir.file("big.tsv")) << "99999999999999999999\ttext\n";  // std::stoi would throw out_of_range
  EXPECT_TRUE(has(error_of([&] { read_labelled_text(dir.file("big.tsv"), 2); }), "out of range [0, 2)"));
  std::ofstream(dir.file("sign.tsv")) << "-0\ttext\n";
  EXPECT_TRUE(has(error_of([&] { read_labelled_text(dir.file("sign.tsv"), 2); }), "out of range"));
  std::ofstream(dir.file("junk.tsv")) << "1x\ttext\n";
  EXPECT_TRUE(has(error_of([&] { read_labelled_text(dir.file("junk.tsv"), 2); }), "out of range"));
  {
    std::ofstream out(dir.file("nul.tsv"), std::ios::binary);
    out << "1\tgood\n0\tba";
    out.put('\0');
    out << "d\n";
  }
  EXPECT_TRUE(has(error_of([&] { read_labelled_text(dir.file("nul.tsv"), 2); }), "nul.tsv:2: NUL byte at column 5"));
  std::ofstream(dir.file("blank.tsv")) << "\n  \n\t\n";
  EXPECT_TRUE(has(error_of([&] { read_labelled_text(dir.file("blank.tsv"), 2); }), "only blank lines"));
  std::ofstream(dir.file("space.tsv")) << " 1 \tpadded label\n";
  EXPECT_EQ(read_labelled_text(dir.file("space.tsv"), 2).at(0).label, 1);
}

TEST(RobustText, TokenizeNeverExceedsMaxLen) {
  for (std::size_t max_len : {0u, 1u, 2u, 3u, 10u}) {
    const auto ids = tokenize("one two three four five six seven", max_len);
    EXPECT_LE(ids.size(), max_len) << max_len;
  }
}

// ---- durations and sizes ------------------------------------------------------------------------

TEST(RobustDurations, BudgetZeroIsRefusedNoneMeansNoBudget) {
  EXPECT_EQ(parse_budget_seconds("none"), 0);
  EXPECT_DOUBLE_EQ(parse_budget_seconds("4m"), 240);
  const auto msg = error_of([] { parse_budget_seconds("0s"); });
  EXPECT_TRUE(has(msg, "must be positive")) << msg;
  EXPECT_TRUE(has(msg, "use 'none' for no budget")) << msg;
  EXPECT_TRUE(has(error_of([] { parse_budget_seconds("0"); }), "must be positive"));
  EXPECT_TRUE(has(error_of([] { parse_budget_seconds("-1m"); }), "negative"));
}

TEST(RobustDurations, HugeNanInfAndJunkAreRefusedWithTheRange) {
  for (const char* text : {"nan", "inf", "infs", "NaN", "1e400", "99999999999h", "721h", "1e308h", "0x10", "5s junk",
                           "1m 30s", "+5", "5ss", "s", ".", "1..2s"}) {
    const auto msg = error_of([&] { parse_duration_seconds(text); });
    EXPECT_TRUE(has(msg, "invalid duration")) << text << ": " << msg;
    EXPECT_TRUE(has(msg, "720h")) << text << ": " << msg;
  }
  EXPECT_DOUBLE_EQ(parse_duration_seconds("720h"), 720.0 * 3600);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("0s"), 0);  // a pause or a minimum may be 0
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1e3"), 1000);
}

// Found by fuzz_parsers: a value with a newline was quoted as it is, giving a two-line message.
TEST(RobustDurations, FuzzFindingNewlineInValueStaysOneLine) {
  const auto msg = error_of([] { parse_duration_seconds("\xb2" "00\n"); });  // the crash input: b2 30 30 0a
  EXPECT_TRUE(has(msg, "00\\n'")) << msg;
  EXPECT_TRUE(has(error_of([] { parse_budget_seconds("0\n"); }), "must be positive"));
}

TEST(RobustSizes, MemorySizeEdges) {
  for (const char* text : {"-1", "0", "nan", "inf", "1e30", "1e400", "16 GiB junk", "GiB", "0.1"})
    EXPECT_TRUE(has(error_of([&] { parse_memory_size(text); }), "invalid memory size")) << text;
  // A newline or another control character in the value is quoted escaped: the message stays one line.
  for (const char* text : {"16GiB\njunk", "x\ny", "-1\n", "\x01\x02"}) {
    const auto msg = error_of([&] { parse_memory_size(text); });
    EXPECT_EQ(msg.find_first_of("\n\r\x01"), std::string::npos) << msg;
    EXPECT_TRUE(has(msg, "invalid memory size")) << msg;
  }
  EXPECT_TRUE(has(error_of([] { parse_memory_size("16GiB\njunk"); }), "'16GiB\\njunk'"));
}

// ---- results JSON (from_json of the run schema) -------------------------------------------------

namespace {
std::string run_error(const std::string& text) {
  try {
    (void)nlohmann::json::parse(text).get<RunResult>();
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  return "(accepted)";
}
}  // namespace

TEST(RobustResultsJson, MistypedAndOutOfRangeFieldsNameTheField) {
  const std::string head = R"({"schema": "accelbench.run/1", "cases": [)";
  // 1e300 as an integer: a float-to-integer conversion out of range is undefined behaviour.
  auto m = run_error(head + R"({"workload": "mlp", "device": "cpu", "batch_size": 1e300}]})");
  EXPECT_TRUE(has(m, "cases[0]: field 'batch_size'")) << m;
  m = run_error(head + R"({"workload": "mlp", "device": "cpu", "threads": 4294967296}]})");
  EXPECT_TRUE(has(m, "field 'threads'")) << m;
  m = run_error(head + R"({"workload": "mlp", "device": "cpu", "stats": {"n": -3}}]})");
  EXPECT_TRUE(has(m, "field 'n'")) << m;
  m = run_error(head + R"({"workload": "mlp", "device": "cpu", "steps_per_sample": 2.5}]})");
  EXPECT_TRUE(has(m, "field 'steps_per_sample'")) << m;
  m = run_error(head + R"({"workload": "mlp", "device": "cpu", "batch_size": "64"}]})");
  EXPECT_TRUE(has(m, "field 'batch_size'")) << m;
  m = run_error(head + R"({"device": "cpu"}]})");
  EXPECT_TRUE(has(m, "cases[0]: field 'workload' is missing")) << m;
  m = run_error(head + R"({"workload": 3, "device": "cpu"}]})");
  EXPECT_TRUE(has(m, "field 'workload': a string was expected")) << m;
  m = run_error(head + R"(7]})");
  EXPECT_TRUE(has(m, "cases[0]: an object was expected")) << m;
  m = run_error(R"({"schema": "accelbench.run/1", "cases": {"a": 1}})");
  EXPECT_TRUE(has(m, "\"cases\" must be an array")) << m;
  m = run_error(R"({"schema": 1})");
  EXPECT_TRUE(has(m, "\"schema\" is number")) << m;
  m = run_error(R"({"schema": "accelbench.run/1", "context": {"memory_bytes": -1}})");
  EXPECT_TRUE(has(m, "field 'memory_bytes'")) << m;
  m = run_error(R"({"schema": "accelbench.run/1", "context": []})");
  EXPECT_TRUE(has(m, "\"context\" must be an object")) << m;
  m = run_error(head + R"({"workload": "mlp", "device": "cpu", "memory": {"peak_rss_bytes": 1e20}}]})");
  EXPECT_TRUE(has(m, "field 'peak_rss_bytes'")) << m;
  // What to_json writes still reads back.
  EXPECT_EQ(run_error(head + R"({"workload": "mlp", "device": "cpu", "batch_size": 64.0, "threads": 2}]})"), "(accepted)");
}

TEST(RobustResultsJson, ReadJsonReportOnADirectoryOrGarbage) {
  TempDir dir;
  fs::create_directories(dir.file("d.json"));
  EXPECT_TRUE(has(error_of([&] { read_json_report(dir.file("d.json")); }), "is a directory"));
  std::ofstream(dir.file("g.json")) << "{\"schema\": \"accelbench.run/1\", \"cases\": [{\"workload\": 1}]}";
  const auto msg = error_of([&] { read_json_report(dir.file("g.json")); });
  EXPECT_TRUE(has(msg, "g.json")) << msg;
  EXPECT_TRUE(has(msg, "cases[0]")) << msg;
}

// ---- writing output files -----------------------------------------------------------------------

TEST(SafeWrite, RegularFileReplacedAtomicallyKeepingItsMode) {
  TempDir dir;
  const auto p = dir.file("out.json");
  write_file_atomically(p, "one\n");
  EXPECT_EQ(slurp(p), "one\n");
  ::chmod(p.c_str(), 0640);
  write_file_atomically(p, "two\n");
  EXPECT_EQ(slurp(p), "two\n");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(entries(dir.path), 1u) << "no temporary left";
}

// A writer killed with SIGKILL between creating its temporary and renaming it leaves the temporary;
// the next write of the same file removes it (its process is gone), never a live writer's.
TEST(SafeWrite, TemporaryOfAKilledWriterIsRemovedByTheNextWrite) {
  TempDir dir;
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);  // reaped: no process has this id now
  const auto p = dir.file("out.json");
  const auto killed = dir.file(".out.json.tmp." + std::to_string(dead) + ".AbCdEf");
  const auto live = dir.file(".out.json.tmp." + std::to_string(::getppid()) + ".AbCdEf");
  const auto other = dir.file(".other.json.tmp." + std::to_string(dead) + ".AbCdEf");
  for (const auto& f : {killed, live, other}) std::ofstream(f) << "{\"half";
  write_file_atomically(p, "new\n");
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_TRUE(fs::exists(live)) << "a running writer's temporary is kept";
  EXPECT_TRUE(fs::exists(other)) << "another file's temporary is kept";
  EXPECT_EQ(slurp(p), "new\n");
  EXPECT_EQ(entries(dir.path), 3u);
}

// A sweep killed with SIGKILL leaves its scratch folder; the next sweep removes the folders of dead
// processes and keeps a live one's and any file of that name.
TEST(SafeWrite, ScratchFolderOfAKilledSweepIsRemovedWithItsContents) {
  TempDir dir;
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  const auto killed = dir.file("accelbench-sweep-" + std::to_string(dead) + ".AbCdEf");
  const auto live = dir.file("accelbench-sweep-" + std::to_string(::getppid()) + ".AbCdEf");
  fs::create_directories(killed + "/sub");
  std::ofstream(killed + "/sub/point-0.json") << "{}";
  fs::create_directories(live);
  std::ofstream(dir.file("accelbench-sweep-" + std::to_string(dead) + ".file")) << "x";
  EXPECT_EQ(remove_stale_temporaries(dir.path.string(), "accelbench-sweep-", StaleKind::folders), 1u);
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_EQ(entries(dir.path), 2u);
}

TEST(SafeWrite, SymlinkStaysALinkAndItsTargetIsReplaced) {
  TempDir dir;
  fs::create_directories(dir.file("real"));
  const auto target = dir.file("real/r.json");
  write_file_atomically(target, "old");
  fs::create_symlink("real/r.json", dir.file("link.json"));  // relative link
  write_file_atomically(dir.file("link.json"), "new");
  EXPECT_TRUE(fs::is_symlink(dir.file("link.json")));
  EXPECT_EQ(slurp(target), "new");
  // A dangling link: its target is created, the link stays.
  fs::create_symlink("real/absent.json", dir.file("dangling.json"));
  write_file_atomically(dir.file("dangling.json"), "made");
  EXPECT_TRUE(fs::is_symlink(dir.file("dangling.json")));
  EXPECT_EQ(slurp(dir.file("real/absent.json")), "made");
  // A chain of links.
  fs::create_symlink("link.json", dir.file("link2.json"));
  write_file_atomically(dir.file("link2.json"), "chain");
  EXPECT_TRUE(fs::is_symlink(dir.file("link2.json")));
  EXPECT_TRUE(fs::is_symlink(dir.file("link.json")));
  EXPECT_EQ(slurp(target), "chain");
}

TEST(SafeWrite, DeviceNodeAndFifoAreWrittenInPlace) {
  write_file_atomically("/dev/null", "discarded");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  TempDir dir;
  fs::create_symlink("/dev/null", dir.file("null-link"));
  write_file_atomically(dir.file("null-link"), "x");
  EXPECT_TRUE(fs::is_symlink(dir.file("null-link")));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  const auto fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_file_atomically(fifo, "through the pipe");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(SafeWrite, DirectoryRefusedMissingFolderNamed) {
  TempDir dir;
  auto msg = error_of([&] { write_file_atomically(dir.path.string(), "x"); });
  EXPECT_TRUE(has(msg, "is a directory")) << msg;
  msg = error_of([&] { write_file_atomically(dir.file("no/such/f.json"), "x"); });
  EXPECT_TRUE(has(msg, "does not exist")) << msg;
  EXPECT_EQ(entries(dir.path), 0u);
}

TEST(SafeWrite, JsonReportWriterFollowsSymlinks) {
  TempDir dir;
  fs::create_symlink("target.json", dir.file("r.json"));
  RunResult run;
  write_json_report(run, dir.file("r.json"));
  EXPECT_TRUE(fs::is_symlink(dir.file("r.json")));
  EXPECT_EQ(read_json_report(dir.file("target.json")).schema, kRunSchema);
}

TEST(SafeWrite, SameFile) {
  TempDir dir;
  const auto a = dir.file("a.db");
  write_file_atomically(a, "x");
  EXPECT_TRUE(same_file(a, a));
  EXPECT_TRUE(same_file(a, dir.path.string() + "/./a.db"));
  fs::create_symlink("a.db", dir.file("l.db"));
  EXPECT_TRUE(same_file(a, dir.file("l.db")));
  fs::create_hard_link(a, dir.file("h.db"));
  EXPECT_TRUE(same_file(dir.file("h.db"), a));
  EXPECT_FALSE(same_file(a, dir.file("b.db")));
  // Neither exists yet: by path.
  EXPECT_TRUE(same_file(dir.file("new.json"), dir.path.string() + "//new.json"));
  EXPECT_FALSE(same_file(dir.file("new.json"), dir.file("new2.json")));
  // A dangling link and the file it will create.
  fs::create_symlink("later.json", dir.file("later-link.json"));
  EXPECT_TRUE(same_file(dir.file("later-link.json"), dir.file("later.json")));
  // Relative and absolute.
  const auto cwd = fs::current_path();
  fs::current_path(dir.path);
  EXPECT_TRUE(same_file("a.db", a));
  EXPECT_TRUE(same_file("x.json", dir.file("x.json")));
  fs::current_path(cwd);
}

TEST(SafeWrite, CheckOutputPath) {
  TempDir dir;
  EXPECT_TRUE(has(error_of([&] { check_output_path(dir.path.string(), "--json"); }), "--json"));
  EXPECT_TRUE(has(error_of([&] { check_output_path(dir.path.string(), "--json"); }), "is a directory"));
  EXPECT_TRUE(has(error_of([&] { check_output_path(dir.file("no/f.json"), "-o"); }), "folder"));
  EXPECT_TRUE(has(error_of([&] { check_output_path("", "--json"); }), "needs a file name"));
  write_file_atomically(dir.file("f"), "x");
  EXPECT_TRUE(has(error_of([&] { check_output_path(dir.file("f/g.json"), "--json"); }), "is not a folder"));
  check_output_path(dir.file("new.json"), "--json");
  check_output_path("/dev/null", "--json");
  check_output_path("/dev/stdout", "--json");
  EXPECT_EQ(entries(dir.path), 1u) << "creates nothing";
}

// remove_tree: a nested folder of files goes; a symlink inside it goes, its target stays; a missing
// folder is no error.
TEST(RemoveTree, RemovesNestedFoldersButNotWhatLinksPointTo) {
  const fs::path root = fs::path(::testing::TempDir()) / ("remove-tree-" + std::to_string(::getpid()));
  const fs::path outside = root.string() + "-target";
  fs::create_directories(root / "world1");
  fs::create_directories(root / "world2" / "deeper");
  std::ofstream(root / "world1" / "rank0.json") << "{}";
  std::ofstream(root / "world2" / "deeper" / "rank1.log") << "log";
  std::ofstream(outside) << "keep me";
  fs::create_symlink(outside, root / "world2" / "link");
  EXPECT_TRUE(remove_tree(root.string()));
  EXPECT_FALSE(fs::exists(root));
  EXPECT_TRUE(fs::exists(outside)) << "the link's target was removed";
  EXPECT_TRUE(remove_tree(root.string())) << "a missing folder is not an error";
  fs::remove(outside);
}
