#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "analysis/advisor.h"
#include "core/parity.h"
#include "core/peak_records.h"
#include "core/sweep_records.h"
#include "core/utilisation.h"

using namespace accelbench;

namespace {
CaseResult make(const std::string& w, const std::string& d, double step, const std::string& dtype = "float32") {
  CaseResult c;
  c.spec = {w, d, dtype, 64, 2};
  for (int i = 0; i < 30; ++i) c.samples.push_back(step * (1 + 0.002 * (i % 5)));
  c.stats = summarize(c.samples);
  c.relative_ci_half_width = c.stats.ci_half_width_relative();
  c.loss_after = 0.5;
  c.checkpointable = w == "transformer" || w == "bert-base";  // as the engine records it (WorkloadInfo::has_checkpoint)
  return c;
}
bool has(const std::vector<Advice>& a, const std::string& rule) {
  return std::any_of(a.begin(), a.end(), [&](const Advice& x) { return x.rule == rule; });
}
// Every advice quotes its measured figures: each piece of evidence is "name=value", and the text
// contains every value as it is written there (no rule exempted).
void expect_cited(const std::vector<Advice>& a) {
  for (const auto& x : a) {
    EXPECT_FALSE(x.evidence.empty()) << x.rule << ": " << x.text;
    for (const auto& e : x.evidence) {
      const auto eq = e.find('=');
      ASSERT_NE(eq, std::string::npos) << x.rule << ": evidence '" << e << "' is not name=value";
      const auto value = e.substr(eq + 1);
      EXPECT_FALSE(value.empty()) << x.rule << ": evidence '" << e << "' has no value";
      EXPECT_NE(x.text.find(value), std::string::npos) << x.rule << ": evidence '" << e << "' is not quoted in: " << x.text;
    }
  }
}
}  // namespace

TEST(Advisor, OverheadBoundAndSlowerAccelerator) {
  RunResult run;
  run.cases = {make("mlp", "cpu", 0.0010), make("mlp", "cuda:0", 0.0008), make("tiny", "cpu", 0.001),
               make("tiny", "cuda:0", 0.002), make("big", "cpu", 1.0), make("big", "cuda:0", 0.01)};
  run.speedups = compute_speedups(run.cases);
  const auto a = advise(run);
  EXPECT_TRUE(has(a, "overhead-bound"));
  EXPECT_TRUE(has(a, "accelerator-slower"));
  for (const auto& x : a) EXPECT_EQ(x.subject.find("big"), std::string::npos) << "a 100x speed-up needs no advice";
  expect_cited(a);
}

TEST(Advisor, InputBoundNoisyMemoryAndPrecision) {
  RunResult run;
  auto in = make("resnet18", "cuda:0", 0.01);
  in.input_bound = true;
  in.data_wait_fraction = 0.35;
  auto noisy = make("transformer", "cpu", 5.0);
  noisy.noisy = true;
  noisy.relative_ci_half_width = 0.145;
  noisy.ci_target = 0.02;
  auto full = make("bert-base", "cuda:0", 0.1);
  full.memory.peak_reserved_bytes = 90ull << 30;
  auto bf16 = make("bert-base", "cuda:0", 0.025, "bfloat16");
  bf16.loss_after = 0.55;  // 10% above float32's 0.5
  run.context.devices.push_back({"cuda:0", "cuda", "GPU", 0, 100ull << 30});
  run.cases = {in, noisy, full, bf16};
  const auto a = advise(run);
  EXPECT_TRUE(has(a, "input-bound"));
  EXPECT_TRUE(has(a, "noisy"));
  EXPECT_TRUE(has(a, "memory-headroom"));
  EXPECT_TRUE(has(a, "precision-faster"));
  expect_cited(a);
  EXPECT_NE(render_advice(a).find("35.0%"), std::string::npos);
  for (const auto& x : a)
    if (x.rule == "precision-faster")
      EXPECT_NE(std::find(x.evidence.begin(), x.evidence.end(), "loss_gap=+10.0%"), x.evidence.end()) << x.text;
}

TEST(Advisor, PythonLoopSlowerThanTheCppLoopQuotesBothStepsAndTheDeviceBusyTime) {
  RunResult run;
  auto cpp = make("mlp", "cuda:0", 0.0010);
  cpp.optimizer = "adam (fused ATen kernel)";
  cpp.device_busy_fraction = 0.4;
  auto py = make("mlp", "cuda:0", 0.0029);
  py.spec.impl = kPythonImpl;
  py.optimizer = "torch.optim.Adam (PyTorch's default: foreach), lr 0.001";
  auto same = make("cnn", "cuda:0", 0.0020);  // within each other's interval: nothing to explain
  auto same_py = make("cnn", "cuda:0", 0.0020);
  same_py.spec.impl = kPythonImpl;
  run.cases = {cpp, py, same, same_py};
  const auto a = advise(run);
  const auto it = std::find_if(a.begin(), a.end(), [](const Advice& x) { return x.rule == "python-loop"; });
  ASSERT_NE(it, a.end());
  EXPECT_NE(it->subject.find("mlp[python]"), std::string::npos) << it->subject;
  EXPECT_NE(it->text.find("2.9"), std::string::npos) << it->text;
  EXPECT_NE(it->text.find("--py-optimizer adam:fused"), std::string::npos) << it->text;
  EXPECT_EQ(std::count_if(a.begin(), a.end(), [](const Advice& x) { return x.rule == "python-loop"; }), 1);
  expect_cited(a);
}

TEST(Advisor, NoMeasurementNoAdvice) {
  RunResult run;
  auto failed = make("mlp", "cuda:0", 0.001);
  failed.status = CaseStatus::failed;
  failed.noisy = true;
  run.cases = {failed};
  EXPECT_TRUE(advise(run).empty());
  EXPECT_EQ(render_advice({}), "");
}

// ---- The sweep rules: `advise(run, document)` with a "sweep" block shaped as src/cli/sweep_*_command.cpp's
// sweep_block() writes it (field names and nulls as there; the figures small and hand-made). ----

namespace {
using nlohmann::json;

json ci(double ratio, double low, double high) { return {{"ratio", ratio}, {"low", low}, {"high", high}}; }
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
std::size_t count(const std::vector<Advice>& a, const std::string& rule) {
  return static_cast<std::size_t>(std::count_if(a.begin(), a.end(), [&](const Advice& x) { return x.rule == rule; }));
}
// The one advice of `rule` about `subject` (nullptr when none).
const Advice* find(const std::vector<Advice>& a, const std::string& rule, const std::string& subject = "") {
  for (const auto& x : a)
    if (x.rule == rule && (subject.empty() || x.subject == subject)) return &x;
  return nullptr;
}
std::string dump(const std::vector<Advice>& a) {
  std::string out;
  for (const auto& x : a) out += "\n  [" + x.rule + "] " + x.subject + ": " + x.text;
  return out;
}
// The guarantee: no advice without a measurement (expect_cited above: every piece of evidence quoted).
void expect_quoted(const std::vector<Advice>& a) { expect_cited(a); }

// A parity of `steps` training steps whose last loss is off the reference's by `rel_diff` (relative),
// through make_parity as the sweeps and `run --parity-steps` do.
Parity parity_off_by(double rel_diff, const std::string& reference = "cuda:0 float32", int steps = 10) {
  ParityTrace ref{{}, 3.0, ""}, run{{}, 3.0, ""};
  for (int i = 0; i < steps; ++i) ref.losses.push_back(2.0 - 0.1 * i);
  run.losses = ref.losses;
  run.losses.back() *= 1 + rel_diff;
  return make_parity(run, ref, reference);
}
Parity parity_failed(const std::string& error) { return make_parity({{}, std::nullopt, error}, {{2.0, 1.0}, 3.0, ""}, "cuda:0 float32"); }

// ---- batch (sweep_batch_command.cpp) ----
// A case whose every sample is `step` seconds: the throughput ratios and their CIs are exact.
CaseResult steady(std::int64_t batch, double step) {
  auto c = make("transformer", "cuda:0", step);
  c.spec.batch_size = batch;
  c.samples.assign(30, step);
  c.stats = summarize(c.samples);
  c.samples_per_s = static_cast<double>(batch) / step;
  return c;
}
CaseResult out_of_memory(std::int64_t batch) {
  CaseResult c;
  c.spec = {"transformer", "cuda:0", "float32", batch, 0};
  c.status = CaseStatus::failed;
  c.error = "out of memory: CUDA out of memory. Tried to allocate 2.00 GiB.";
  return c;
}
// 8 16 32 64 fit (doubling), 128 does not; the bisection: 96 does not, 80 fits. The knee is 32
// (2560 samples/s, within 5% of 80's 2623), 3.2 times the samples/s of batch 8.
RunResult batch_run() {
  RunResult run;
  run.command = "sweep batch";
  run.cases = {steady(8, 0.010), steady(16, 0.011), steady(32, 0.0125), steady(64, 0.0245), out_of_memory(128),
               out_of_memory(96), steady(80, 0.0305)};
  run.cases[2].memory.peak_allocated_bytes = 3758096384ull;  // 3.5 GiB
  return run;
}
json batch_block(const RunResult& run) {
  json points = json::array();
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    const auto& c = run.cases[i];
    json p{{"batch", c.spec.batch_size}, {"outcome", c.ok() ? "ok" : "out of memory"},
           {"phase", i < 5 ? "doubling" : "bisection"}, {"case_index", i}};
    if (c.ok()) p["samples_per_s"] = c.samples_per_s;
    else p["error"] = c.error;
    points.push_back(p);
  }
  return {{"kind", "batch"}, {"model", "transformer"}, {"device", "cuda:0"}, {"dtype", "float32"}, {"width", 0},
          {"checkpoint", false}, {"from", 8}, {"to", 4096}, {"to_default", true}, {"isolated", true},
          {"memory_limit_bytes", 17179869184ull}, {"knee_tolerance", 0.05}, {"points", points}, {"knee", 32},
          {"best_batch", 80}, {"best_samples_per_s", 80 / 0.0305}, {"largest_fit", 80}, {"first_oom", 128},
          {"smallest_oom", 96}, {"bisection", {{"low", 64}, {"high", 128}, {"resolution", 16}}}, {"finished", true}};
}

// ---- precision (sweep_precision_command.cpp) ----
json precision_point(const std::string& precision, const json& speedup, const std::optional<Parity>& parity, int index) {
  json j{{"precision", precision}, {"outcome", "ok"}, {"error", ""}, {"case_index", index},
         {"samples_per_s", 600.0 * speedup.value("ratio", 1.0)}, {"median_step_s", 0.1 / speedup.value("ratio", 1.0)}};
  j["speedup"] = speedup;
  j["parity"] = parity ? json(*parity) : json(nullptr);
  j["parity_ok"] = nullptr;  // precision_block() sets it
  return j;
}
// The threshold as the sweep sets it: 2%, or twice float32's drift against itself when that is larger.
json precision_block(const std::string& device, json points, const json& best, const json& floor = nullptr,
                     int parity_steps = 10) {
  double threshold = 0.02;
  if (floor.is_object() && floor["error"] == "" && floor["steps"] > 0)
    threshold = std::max(threshold, 2 * floor["loss_rel_diff"].get<double>());
  for (auto& p : points)
    if (p["parity"].is_object()) p["parity_ok"] = p["parity"]["error"] == "" && p["parity"]["loss_rel_diff"] <= threshold;
  return {{"kind", "precision"}, {"model", "bert-base"}, {"device", device}, {"batch", 64}, {"width", 0},
          {"checkpoint", false}, {"reference", "float32"}, {"parity_steps", parity_steps}, {"parity_tolerance", 0.02},
          {"parity_threshold", threshold}, {"parity_floor", floor}, {"points", points}, {"best", best}, {"finished", true}};
}
// As `sweep precision --model bert-base` measured it on the H200 (speed-ups over float32 and
// tfloat32's parity), with bfloat16's loss made to drift by 3.1% and float16's parity run failed.
json precision_cuda_block() {
  json points = json::array({precision_point("float32", ci(1, 1, 1), parity_off_by(0), 0),
                             precision_point("tfloat32", ci(2.9482, 2.9447, 2.9575), parity_off_by(1.93e-5), 1),
                             precision_point("bfloat16", ci(3.7464, 3.6965, 3.7608), parity_off_by(0.031), 2),
                             precision_point("float16", ci(4.5506, 4.5424, 4.5639), parity_failed("loss is nan at step 3"), 3)});
  return precision_block("cuda:0", points, "tfloat32", json(parity_off_by(0.001)));
}
// On a CPU: bfloat16 within the noise of float32, float16 much slower.
json precision_cpu_block() {
  json points = json::array({precision_point("float32", ci(1, 1, 1), parity_off_by(0, "cpu float32"), 0),
                             precision_point("bfloat16", ci(1.04, 1.02, 1.06), parity_off_by(0.004, "cpu float32"), 1),
                             precision_point("float16", ci(0.40, 0.38, 0.42), parity_off_by(0.002, "cpu float32"), 2)});
  return precision_block("cpu", points, "float32");
}

// ---- threads (sweep_threads_command.cpp), workers (sweep_workers_command.cpp) ----
json threads_point(int threads, double sps, const json& speedup, int index) {
  return {{"threads", threads}, {"outcome", "ok"}, {"error", ""}, {"case_index", index}, {"samples_per_s", sps},
          {"speedup", speedup}, {"efficiency", speedup["ratio"].get<double>() / threads}};
}
// 4 threads: 3600 samples/s, 3.60x over one; 8 threads only 2.8% more: the fewest within 5% is 4.
json threads_block(const json& best = 4) {
  json points = json::array({threads_point(1, 1000, ci(1.0, 0.97, 1.03), 0), threads_point(2, 1900, ci(1.9, 1.85, 1.95), 1),
                             threads_point(4, 3600, ci(3.6, 3.5, 3.7), 2), threads_point(8, 3700, ci(3.7, 3.6, 3.8), 3)});
  return {{"kind", "threads"}, {"model", "cnn"}, {"device", "cpu"}, {"dtype", "float32"}, {"batch", 64}, {"width", 0},
          {"checkpoint", false}, {"points", points}, {"tolerance", 0.05}, {"best_threads", best},
          {"best_samples_per_s", 3700.0}, {"finished", true}};
}
json workers_point(int workers, double sps, double wait, int index) {
  return {{"workers", workers}, {"outcome", "ok"}, {"error", ""}, {"case_index", index}, {"samples_per_s", sps},
          {"data_wait_fraction", wait}, {"input_bound", wait > 0.1}};
}
// Staged (the ceiling, not a setting) is the fastest; 0 workers wait 30% of the step; 1 worker is
// within 5% of the best setting, 2 workers.
json workers_block(const json& best = 1) {
  json points = json::array({{{"workers", "staged"}, {"outcome", "ok"}, {"error", ""}, {"case_index", 0}, {"samples_per_s", 12341.0}},
                             workers_point(0, 8000, 0.30, 1), workers_point(1, 10000, 0.05, 2), workers_point(2, 10300, 0.01, 3),
                             workers_point(4, 10200, 0.011, 4)});
  return {{"kind", "workers"}, {"model", "resnet18"}, {"device", "cuda:0"}, {"dtype", "float32"}, {"batch", 64}, {"width", 0},
          {"checkpoint", false}, {"points", points}, {"tolerance", 0.05}, {"staged_samples_per_s", 12341.0},
          {"best_workers", best}, {"best_samples_per_s", 10300.0}, {"finished", true}};
}

// ---- crossover (sweep_crossover_command.cpp) ----
struct CrossPointSpec {
  std::int64_t x;
  json speedup;  // ci(...) or nullptr
};
json crossover_block(const std::string& axis, const std::vector<CrossPointSpec>& pts, const std::string& kind, const json& at,
                     const json& cpu_until) {
  json points = json::array();
  int i = 0;
  for (const auto& p : pts) {
    points.push_back({{"x", p.x}, {"device_case_index", i}, {"cpu_case_index", i + 1}, {"speedup", p.speedup}});
    i += 2;
  }
  return {{"kind", "crossover"}, {"axis", axis}, {"model", "mlp"}, {"device", "cuda:0"}, {"baseline_device", "cpu"},
          {"dtype", "float32"}, {"batch", axis == "width" ? json(64) : json(nullptr)}, {"width", 0}, {"points", points},
          {"crossover", {{"kind", kind}, {"at", at}, {"cpu_until", cpu_until}, {"text", "(describe_crossover's text)"}}},
          {"finished", true}};
}
// The CPU is faster at batch 8, the two within the noise at 16, the accelerator faster from 32 on.
json crosses_block(const json& cpu_until = 8) {
  return crossover_block("batch",
                         {{8, ci(0.60, 0.55, 0.65)}, {16, ci(1.01, 0.98, 1.03)}, {32, ci(1.58, 1.56, 1.61)}, {64, ci(4.37, 4.25, 4.45)}},
                         "crosses", 32, cpu_until);
}
json cpu_always_block() {
  return crossover_block("batch", {{8, ci(0.20, 0.18, 0.22)}, {16, ci(0.35, 0.33, 0.37)}, {32, ci(0.50, 0.45, 0.55)}},
                         "cpu_always", nullptr, 32);
}
json never_block() {
  return crossover_block("batch", {{8, ci(0.50, 0.45, 0.55)}, {16, ci(1.02, 0.97, 1.06)}}, "never", nullptr, 8);
}
json accelerator_always_block() {
  return crossover_block("width", {{1024, ci(2.50, 2.40, 2.60)}, {4096, ci(9.0, 8.7, 9.3)}}, "accelerator_always", 1024, nullptr);
}

json doc(const json& sweep) { return {{"sweep", sweep}}; }
bool any_sweep_rule(const std::vector<Advice>& a) {
  for (const char* r : {"batch-knee", "batch-memory-edge", "precision-faster", "precision-slower", "precision-drifts",
                        "precision-parity-failed", "threads-best", "workers-best", "crossover"})
    if (has(a, r)) return true;
  return false;
}
}  // namespace

TEST(AdvisorBatchSweep, KneeQuotesItsThroughputRatioWithCIAndPeakMemory) {
  const auto run = batch_run();
  const auto a = advise(run, doc(batch_block(run)));
  ASSERT_EQ(count(a, "batch-knee"), 1u) << dump(a);
  const auto& k = *find(a, "batch-knee");
  EXPECT_EQ(k.subject, "transformer on cuda:0 (float32)");
  EXPECT_TRUE(contains(k.text, "use batch 32: 2560 samples/s")) << k.text;
  // (32 / 0.0125 s) / (8 / 0.010 s) = 3.2, every sample equal: the CI is the point.
  EXPECT_TRUE(contains(k.text, "3.20x [3.20, 3.20] the samples/s of batch 8")) << k.text;
  EXPECT_TRUE(contains(k.text, "peak 3.50 GiB")) << k.text;
  EXPECT_TRUE(contains(k.text, "within 5% of the best throughput")) << k.text;
  EXPECT_NE(std::find(k.evidence.begin(), k.evidence.end(), "knee=32"), k.evidence.end());
  EXPECT_NE(std::find(k.evidence.begin(), k.evidence.end(), "throughput_ratio=3.20x [3.20, 3.20]"), k.evidence.end());
  expect_quoted(a);
}

TEST(AdvisorBatchSweep, MemoryEdgeQuotesTheLargestFitAndTheSmallestOutOfMemory) {
  const auto run = batch_run();
  auto block = batch_block(run);
  const auto a = advise(run, doc(block));
  ASSERT_EQ(count(a, "batch-memory-edge"), 1u) << dump(a);
  const auto& e = *find(a, "batch-memory-edge");
  EXPECT_TRUE(contains(e.text, "batch 80 is the largest that fits in 16.0 GiB (out of memory at 96)")) << e.text;
  EXPECT_FALSE(contains(e.text, "128")) << "the bisection's smallest out-of-memory batch, not the doubling's: " << e.text;
  EXPECT_EQ(e.evidence, (std::vector<std::string>{"largest_fit=80", "oom_at=96"}));

  // Before the bisection has found one, the doubling's first out-of-memory batch; without a limit, no "in".
  block["smallest_oom"] = nullptr;
  block["memory_limit_bytes"] = nullptr;
  const auto b = advise(run, doc(block));
  ASSERT_NE(find(b, "batch-memory-edge"), nullptr) << dump(b);
  EXPECT_TRUE(contains(find(b, "batch-memory-edge")->text, "batch 80 is the largest that fits (out of memory at 128)"))
      << find(b, "batch-memory-edge")->text;
}

TEST(AdvisorBatchSweep, NoEdgeWithoutOutOfMemoryNoAdviceWithoutKnee) {
  auto run = batch_run();
  run.cases = {run.cases[0], run.cases[1], run.cases[2], run.cases[3]};  // 8..64 all fit
  auto block = batch_block(run);
  block["largest_fit"] = 64;
  block["first_oom"] = nullptr;
  block["smallest_oom"] = nullptr;
  auto a = advise(run, doc(block));
  EXPECT_TRUE(has(a, "batch-knee")) << dump(a);
  EXPECT_FALSE(has(a, "batch-memory-edge")) << "nothing ran out of memory: " << dump(a);

  // No knee (nothing fit): no batch advice at all, even with an out-of-memory batch.
  RunResult none;
  none.cases = {out_of_memory(8)};
  block = batch_block(none);
  block["knee"] = nullptr;
  block["largest_fit"] = nullptr;
  block["first_oom"] = 8;
  block["smallest_oom"] = 8;
  a = advise(none, doc(block));
  EXPECT_FALSE(has(a, "batch-knee")) << dump(a);
  EXPECT_FALSE(has(a, "batch-memory-edge")) << dump(a);

  // The knee at the smallest batch: nothing to compare it with, so no ratio.
  run = batch_run();
  block = batch_block(run);
  block["knee"] = 8;
  a = advise(run, doc(block));
  ASSERT_TRUE(has(a, "batch-knee")) << dump(a);
  EXPECT_TRUE(contains(find(a, "batch-knee")->text, "use batch 8: 800 samples/s")) << find(a, "batch-knee")->text;
  EXPECT_FALSE(contains(find(a, "batch-knee")->text, "the samples/s of batch")) << find(a, "batch-knee")->text;
}

TEST(AdvisorPrecisionSweep, FasterQuotesTheSpeedupWithItsCIAndTheParity) {
  const auto a = advise(RunResult{}, doc(precision_cuda_block()));
  ASSERT_EQ(count(a, "precision-faster"), 1u) << "only tfloat32: bfloat16 drifts, float16's parity failed" << dump(a);
  const auto* f = find(a, "precision-faster", "bert-base on cuda:0 (tfloat32)");
  ASSERT_NE(f, nullptr) << dump(a);
  EXPECT_TRUE(contains(f->text, "tfloat32: 2.95x [2.94, 2.96] faster than float32")) << f->text;
  EXPECT_TRUE(contains(f->text, "loss within 0.0019% of float32 after 10 identical steps")) << f->text;
  EXPECT_TRUE(contains(f->text, "the best precision here")) << f->text;
  EXPECT_EQ(f->evidence.front(), "speedup=2.95x [2.94, 2.96]");
  for (const auto& x : a) EXPECT_FALSE(contains(x.subject, "(float32)")) << "no advice about the reference: " << x.text;
  EXPECT_EQ(a.size(), 3u) << dump(a);
  expect_quoted(a);
}

TEST(AdvisorPrecisionSweep, FasterNeedsTheCILowEndAbove1_05) {
  auto block = precision_block("cuda:0",
                               json::array({precision_point("float32", ci(1, 1, 1), parity_off_by(0), 0),
                                            precision_point("bfloat16", ci(1.20, 1.04, 1.36), parity_off_by(0.001), 1)}),
                               "bfloat16");
  auto a = advise(RunResult{}, doc(block));
  EXPECT_FALSE(has(a, "precision-faster")) << "1.20x but the CI reaches down to 1.04: " << dump(a);
  EXPECT_FALSE(has(a, "precision-slower")) << dump(a);

  block["points"][1]["speedup"] = ci(1.20, 1.06, 1.36);
  a = advise(RunResult{}, doc(block));
  ASSERT_TRUE(has(a, "precision-faster")) << dump(a);
  EXPECT_TRUE(contains(find(a, "precision-faster")->text, "1.20x [1.06, 1.36]")) << find(a, "precision-faster")->text;

  // Without a parity run (--parity-steps 0) it says so, and quotes only the speed-up.
  block["parity_steps"] = 0;
  block["points"][1]["parity"] = nullptr;
  block["points"][1]["parity_ok"] = nullptr;
  a = advise(RunResult{}, doc(block));
  ASSERT_TRUE(has(a, "precision-faster")) << dump(a);
  EXPECT_TRUE(contains(find(a, "precision-faster")->text, "(no parity run)")) << find(a, "precision-faster")->text;
  EXPECT_EQ(find(a, "precision-faster")->evidence, (std::vector<std::string>{"speedup=1.20x [1.06, 1.36]"}));
  expect_quoted(a);
}

TEST(AdvisorPrecisionSweep, SlowerOnlyWhenTheCIHighEndIsBelow0_95) {
  const auto a = advise(RunResult{}, doc(precision_cpu_block()));
  ASSERT_EQ(count(a, "precision-slower"), 1u) << dump(a);
  const auto* s = find(a, "precision-slower", "bert-base on cpu (float16)");
  ASSERT_NE(s, nullptr) << dump(a);
  EXPECT_TRUE(contains(s->text, "float16 is slower than float32 here (0.40x [0.38, 0.42] the speed)")) << s->text;
  // No case to read the device's busy share from: the cause is not guessed.
  EXPECT_TRUE(contains(s->text, "the cause was not measured")) << s->text;
  // bfloat16 at 1.04x [1.02, 1.06]: within the noise either way, no advice.
  EXPECT_EQ(a.size(), 1u) << dump(a);
  expect_quoted(a);

  // Surely slower, but by less than 5% (the CI's high end above 0.95): no advice; below 0.95: advice.
  auto block = precision_cpu_block();
  block["points"][1]["speedup"] = ci(0.97, 0.955, 0.985);
  EXPECT_EQ(find(advise(RunResult{}, doc(block)), "precision-slower", "bert-base on cpu (bfloat16)"), nullptr);
  block["points"][1]["speedup"] = ci(0.93, 0.92, 0.94);
  const auto b = advise(RunResult{}, doc(block));
  ASSERT_NE(find(b, "precision-slower", "bert-base on cpu (bfloat16)"), nullptr) << dump(b);
  EXPECT_TRUE(contains(find(b, "precision-slower", "bert-base on cpu (bfloat16)")->text, "0.93x [0.92, 0.94]"));
}

TEST(AdvisorPrecisionSweep, DriftsQuotesTheLossDifferenceAndTheFloat32Floor) {
  const auto a = advise(RunResult{}, doc(precision_cuda_block()));
  const auto* d = find(a, "precision-drifts", "bert-base on cuda:0 (bfloat16)");
  ASSERT_NE(d, nullptr) << dump(a);
  EXPECT_EQ(count(a, "precision-drifts"), 1u) << dump(a);
  EXPECT_TRUE(contains(d->text, "bfloat16 is 3.75x [3.70, 3.76] the speed of float32")) << d->text;
  EXPECT_TRUE(contains(d->text, "after 10 steps differs from float32's by 3.1% (more than 2%")) << d->text;
  EXPECT_TRUE(contains(d->text, "float32 against itself drifts by 0.1%")) << d->text;
  EXPECT_FALSE(contains(d->text, "chaotic")) << d->text;
  EXPECT_EQ(find(a, "precision-faster", "bert-base on cuda:0 (bfloat16)"), nullptr) << "a drifting precision is not advised";

  // float32 itself drifting by 5%: the threshold becomes 10%, and beyond it the training is chaotic.
  auto points = precision_cuda_block()["points"];
  auto block = precision_block("cuda:0", points, "tfloat32", json(parity_off_by(0.05)));
  ASSERT_NEAR(block["parity_threshold"].get<double>(), 0.1, 1e-9);
  EXPECT_FALSE(has(advise(RunResult{}, doc(block)), "precision-drifts")) << "3.1% is within twice float32's own 5%";
  points[2]["parity"] = json(parity_off_by(0.15));
  block = precision_block("cuda:0", points, "tfloat32", json(parity_off_by(0.05)));
  const auto b = advise(RunResult{}, doc(block));
  ASSERT_NE(find(b, "precision-drifts"), nullptr) << dump(b);
  EXPECT_TRUE(contains(find(b, "precision-drifts")->text, "differs from float32's by 15% (more than 10%; float32 against itself "
                                                          "drifts by 5%, so this training is chaotic"))
      << find(b, "precision-drifts")->text;

  // 1% is within the 2% tolerance: no drift, and the speed-up is advised with its parity.
  block = precision_cuda_block();
  block["points"][2]["parity"] = json(parity_off_by(0.01));
  const auto c = advise(RunResult{}, doc(block));
  EXPECT_FALSE(has(c, "precision-drifts")) << dump(c);
  const auto* f = find(c, "precision-faster", "bert-base on cuda:0 (bfloat16)");
  ASSERT_NE(f, nullptr) << dump(c);
  EXPECT_TRUE(contains(f->text, "loss within 1% of float32 after 10 identical steps")) << f->text;
  expect_quoted(a);
  expect_quoted(b);
  expect_quoted(c);
}

TEST(AdvisorPrecisionSweep, ParityFailedQuotesTheSpeedupAndTheError) {
  const auto a = advise(RunResult{}, doc(precision_cuda_block()));
  const auto* p = find(a, "precision-parity-failed", "bert-base on cuda:0 (float16)");
  ASSERT_NE(p, nullptr) << dump(a);
  EXPECT_EQ(count(a, "precision-parity-failed"), 1u) << dump(a);
  EXPECT_TRUE(contains(p->text, "float16 is 4.55x [4.54, 4.56] the speed of float32")) << p->text;
  EXPECT_TRUE(contains(p->text, "its parity run failed (loss is nan at step 3)")) << p->text;
  EXPECT_EQ(find(a, "precision-faster", "bert-base on cuda:0 (float16)"), nullptr) << "a precision whose parity failed is not advised";
  expect_quoted(a);
}

TEST(AdvisorPrecisionSweep, SuppressesTheOlderPrecisionRule) {
  RunResult run;
  run.cases = {make("bert-base", "cuda:0", 0.1), make("bert-base", "cuda:0", 0.025, "bfloat16")};
  ASSERT_TRUE(has(advise(run), "precision-faster")) << "rule 5 fires on these cases outside a precision sweep";
  // A precision sweep over the same cases with no advice of its own: rule 5 stays silent.
  const auto block = precision_block("cuda:0", json::array({precision_point("float32", ci(1, 1, 1), parity_off_by(0), 0)}), "float32");
  const auto a = advise(run, doc(block));
  EXPECT_TRUE(a.empty()) << dump(a);
  // And with the sweep's own rule: one precision-faster, the sweep's (it quotes the parity), not rule 5's.
  const auto b = advise(run, doc(precision_cuda_block()));
  EXPECT_EQ(count(b, "precision-faster"), 1u) << dump(b);
  for (const auto& x : b) EXPECT_FALSE(contains(x.text, "loss after the measured steps")) << x.text;
}

TEST(AdvisorThreadsSweep, BestIsTheFewestWithinTheToleranceWithItsSpeedup) {
  const auto a = advise(RunResult{}, doc(threads_block()));
  ASSERT_EQ(count(a, "threads-best"), 1u) << dump(a);
  const auto& t = *find(a, "threads-best");
  EXPECT_EQ(t.subject, "cnn on cpu");
  EXPECT_TRUE(contains(t.text, "use 4 threads: 3600 samples/s, 3.60x [3.50, 3.70] over 1 thread")) << t.text;
  EXPECT_TRUE(contains(t.text, "the best, 8 threads, is only 2.8% faster")) << t.text;
  EXPECT_NE(std::find(t.evidence.begin(), t.evidence.end(), "threads=4"), t.evidence.end());
  EXPECT_NE(std::find(t.evidence.begin(), t.evidence.end(), "speedup=3.60x [3.50, 3.70]"), t.evidence.end());
  expect_quoted(a);

  // The best is the fastest: nothing to add.
  const auto b = advise(RunResult{}, doc(threads_block(8)));
  ASSERT_TRUE(has(b, "threads-best")) << dump(b);
  EXPECT_TRUE(contains(find(b, "threads-best")->text, "use 8 threads")) << find(b, "threads-best")->text;
  EXPECT_FALSE(contains(find(b, "threads-best")->text, "is only")) << find(b, "threads-best")->text;
  // No best (no point measured): no advice.
  EXPECT_TRUE(advise(RunResult{}, doc(threads_block(nullptr))).empty());
}

TEST(AdvisorWorkersSweep, BestQuotesItsDataWaitAndZeroWorkers) {
  const auto a = advise(RunResult{}, doc(workers_block()));
  ASSERT_EQ(count(a, "workers-best"), 1u) << dump(a);
  const auto& w = *find(a, "workers-best");
  EXPECT_EQ(w.subject, "resnet18 on cuda:0");
  EXPECT_TRUE(contains(w.text, "use 1 worker: 10.0k samples/s, data wait 5.0% of the step")) << w.text;
  EXPECT_TRUE(contains(w.text, "(with 0 workers: 30.0%, 8000 samples/s)")) << w.text;
  // Staged (12.3k samples/s) is the ceiling, not a setting: the best setting is 2 workers.
  EXPECT_TRUE(contains(w.text, "the best, 2 workers, is only 3.0% faster")) << w.text;
  EXPECT_FALSE(contains(w.text, "12.3k")) << w.text;
  EXPECT_NE(std::find(w.evidence.begin(), w.evidence.end(), "workers=1"), w.evidence.end());
  expect_quoted(a);

  // The best at 0 workers: no comparison with itself.
  const auto b = advise(RunResult{}, doc(workers_block(0)));
  ASSERT_TRUE(has(b, "workers-best")) << dump(b);
  EXPECT_TRUE(contains(find(b, "workers-best")->text, "use 0 workers: 8000 samples/s, data wait 30.0% of the step"))
      << find(b, "workers-best")->text;
  EXPECT_FALSE(contains(find(b, "workers-best")->text, "with 0 workers")) << find(b, "workers-best")->text;
  EXPECT_TRUE(advise(RunResult{}, doc(workers_block(nullptr))).empty());
}

TEST(AdvisorCrossoverSweep, CrossesQuotesTheBatchAndItsSpeedup) {
  const auto a = advise(RunResult{}, doc(crosses_block()));
  ASSERT_EQ(count(a, "crossover"), 1u) << dump(a);
  const auto& c = *find(a, "crossover");
  EXPECT_EQ(c.subject, "mlp on cuda:0 vs cpu");
  EXPECT_TRUE(contains(c.text, "the accelerator wins only from batch 32 (1.58x [1.56, 1.61])")) << c.text;
  EXPECT_TRUE(contains(c.text, "below it, the CPU is faster (up to batch 8)")) << c.text;
  EXPECT_EQ(c.evidence, (std::vector<std::string>{"crossover_batch=32", "speedup=1.58x [1.56, 1.61]"}));
  // No point below the crossover where the CPU is surely faster: within the noise.
  const auto b = advise(RunResult{}, doc(crosses_block(nullptr)));
  ASSERT_TRUE(has(b, "crossover")) << dump(b);
  EXPECT_TRUE(contains(find(b, "crossover")->text, "below it, the two are within the noise")) << find(b, "crossover")->text;
  expect_quoted(a);
  expect_quoted(b);
}

TEST(AdvisorCrossoverSweep, NeverCrossingSaysTheAcceleratorDoesNotWin) {
  for (const auto& block : {cpu_always_block(), never_block()}) {
    const auto a = advise(RunResult{}, doc(block));
    ASSERT_EQ(count(a, "crossover"), 1u) << block["crossover"]["kind"] << dump(a);
    const auto& c = *find(a, "crossover");
    EXPECT_TRUE(contains(c.text, "the accelerator does not beat the CPU")) << c.text;
    EXPECT_FALSE(contains(c.text, "wins")) << c.text;
    expect_quoted(a);
  }
  const auto a = advise(RunResult{}, doc(cpu_always_block()));
  EXPECT_TRUE(contains(find(a, "crossover")->text, "anywhere up to batch 32 (0.50x [0.45, 0.55] there)")) << find(a, "crossover")->text;
  const auto b = advise(RunResult{}, doc(never_block()));
  EXPECT_TRUE(contains(find(b, "crossover")->text, "anywhere up to batch 16 (1.02x [0.97, 1.06] there)")) << find(b, "crossover")->text;
  // The largest batch failed on a device: the end is the largest measured on both, not a "-".
  auto block = cpu_always_block();
  block["points"].push_back({{"x", 64}, {"device_case_index", 6}, {"cpu_case_index", 7}, {"speedup", nullptr}});
  const auto c = advise(RunResult{}, doc(block));
  ASSERT_TRUE(has(c, "crossover")) << dump(c);
  EXPECT_TRUE(contains(find(c, "crossover")->text, "anywhere up to batch 32 (0.50x [0.45, 0.55] there)")) << find(c, "crossover")->text;
  expect_quoted(c);
}

TEST(AdvisorCrossoverSweep, NeverCrossingDoesNotDenyAWinBelowTheEnd) {
  // "never" (find_crossover): not surely faster at the end of the range, though surely faster at batch 16.
  const auto block = crossover_block("batch", {{8, ci(0.50, 0.45, 0.55)}, {16, ci(2.00, 1.80, 2.20)}, {32, ci(1.00, 0.90, 1.10)}},
                                     "never", nullptr, 8);
  const auto a = advise(RunResult{}, doc(block));
  ASSERT_EQ(count(a, "crossover"), 1u) << dump(a);
  const auto& c = *find(a, "crossover");
  EXPECT_FALSE(contains(c.text, "anywhere")) << "it did beat the CPU at batch 16: " << c.text;
  EXPECT_TRUE(contains(c.text, "batch 16 (2.00x [1.80, 2.20])")) << c.text;
  EXPECT_TRUE(contains(c.text, "batch 32 (1.00x [0.90, 1.10]")) << c.text;
  expect_quoted(a);
}

TEST(AdvisorCrossoverSweep, AcceleratorAlwaysQuotesTheSmallestPoint) {
  const auto a = advise(RunResult{}, doc(accelerator_always_block()));
  ASSERT_EQ(count(a, "crossover"), 1u) << dump(a);
  const auto& c = *find(a, "crossover");
  EXPECT_TRUE(contains(c.text, "the accelerator is faster from the smallest width measured (width 1024: 2.50x [2.40, 2.60])")) << c.text;
  EXPECT_FALSE(contains(c.text, "does not")) << c.text;
  expect_quoted(a);
  // "none" (no point measured on both devices): nothing to say.
  EXPECT_TRUE(advise(RunResult{}, doc(crossover_block("batch", {{8, nullptr}}, "none", nullptr, nullptr))).empty());
}

TEST(AdvisorCrossoverSweep, SuppressesThePerSpeedupRules) {
  RunResult run;
  run.cases = {make("mlp", "cpu", 0.001), make("mlp", "cuda:0", 0.002)};  // the accelerator slower at batch 64
  auto faster = make("mlp", "cpu", 0.0012), faster_dev = make("mlp", "cuda:0", 0.001);
  faster.spec.batch_size = faster_dev.spec.batch_size = 128;  // barely faster at 128
  run.cases.push_back(faster);
  run.cases.push_back(faster_dev);
  run.speedups = compute_speedups(run.cases);
  const auto plain = advise(run);
  ASSERT_TRUE(has(plain, "accelerator-slower")) << dump(plain);
  ASSERT_TRUE(has(plain, "overhead-bound")) << dump(plain);
  const auto a = advise(run, doc(crosses_block()));
  EXPECT_FALSE(has(a, "accelerator-slower")) << dump(a);
  EXPECT_FALSE(has(a, "overhead-bound")) << dump(a);
  EXPECT_TRUE(has(a, "crossover")) << dump(a);
  // Another sweep kind keeps them.
  const auto b = advise(run, doc(threads_block()));
  EXPECT_TRUE(has(b, "accelerator-slower")) << dump(b);
  EXPECT_TRUE(has(b, "overhead-bound")) << dump(b);
}

TEST(AdvisorParity, DriftAgainstTheCPUAbove2PercentIsQuoted) {
  RunResult run;
  Speedup s;
  s.workload = s.model = "mlp";
  s.device = "cuda:0";
  s.batch_size = 64;
  s.dtype = "float32";
  s.ratio = 3.0, s.ci_low = 2.9, s.ci_high = 3.1;  // well ahead: no speed-up rule
  s.parity = parity_off_by(0.05, "cpu float32");
  run.speedups = {s};
  const auto a = advise(run);
  ASSERT_EQ(a.size(), 1u) << dump(a);
  EXPECT_EQ(a[0].rule, "parity-drift");
  EXPECT_EQ(a[0].subject, "mlp on cuda:0 (float32)");
  EXPECT_TRUE(contains(a[0].text, "training on cuda:0 drifts from the CPU's: loss +5% (max |d| 5%)")) << a[0].text;
  EXPECT_TRUE(contains(a[0].text, "after 10 steps vs cpu float32")) << a[0].text;
  expect_quoted(a);

  // 1%: within the tolerance; a failed parity run or none: no figure, no advice.
  run.speedups[0].parity = parity_off_by(0.01, "cpu float32");
  EXPECT_TRUE(advise(run).empty()) << dump(advise(run));
  run.speedups[0].parity = parity_failed("the reference run failed: out of memory");
  EXPECT_TRUE(advise(run).empty()) << dump(advise(run));
  run.speedups[0].parity.reset();
  EXPECT_TRUE(advise(run).empty()) << dump(advise(run));
}

TEST(AdvisorSweep, MalformedBlockGivesNoSweepAdviceAndNoException) {
  const RunResult run;
  std::vector<json> blocks{
      json("batch"),                                                // not an object
      {{"kind", "frobnicate"}},                                     // an unknown kind
      {{"kind", "batch"}},                                          // every field missing
      {{"kind", "precision"}},
      {{"kind", "threads"}},
      {{"kind", "workers"}},
      {{"kind", "crossover"}},
  };
  auto wrong = [&](json block, const json::json_pointer& where, const json& value) {
    block[where] = value;
    blocks.push_back(block);
  };
  wrong(batch_block(batch_run()), json::json_pointer("/knee"), "thirty-two");
  wrong(batch_block(batch_run()), json::json_pointer("/model"), nullptr);
  wrong(precision_cuda_block(), json::json_pointer("/points/1/speedup"), {{"ratio", 2.9}, {"low", 2.8}});  // no high
  wrong(precision_cuda_block(), json::json_pointer("/points/3/speedup/ratio"), "fast");
  wrong(precision_cuda_block(), json::json_pointer("/points"), 5);
  wrong(threads_block(), json::json_pointer("/points/2/speedup"), "3.6x");
  wrong(threads_block(), json::json_pointer("/best_threads"), "four");
  wrong(workers_block(), json::json_pointer("/points/2/data_wait_fraction"), "5%");
  wrong(crosses_block(), json::json_pointer("/crossover/at"), nullptr);
  wrong(crosses_block(), json::json_pointer("/crossover"), "crosses");
  wrong(crosses_block(), json::json_pointer("/axis"), 1);
  wrong(never_block(), json::json_pointer("/points"), json::array());
  {
    auto block = crosses_block();
    block["crossover"].erase("at");
    blocks.push_back(block);
    block = precision_cuda_block();
    block["points"][2]["parity"].erase("loss_rel_diff");
    blocks.push_back(block);
    block = threads_block();
    block["points"][2].erase("threads");
    blocks.push_back(block);
  }
  for (const auto& b : blocks) {
    std::vector<Advice> a;
    EXPECT_NO_THROW(a = advise(run, doc(b))) << b.dump();
    EXPECT_FALSE(any_sweep_rule(a)) << b.dump() << dump(a);
  }
}

TEST(AdvisorSweep, EveryAdviceQuotesItsMeasurements) {
  const auto batch = batch_run();
  RunResult drifting;
  Speedup s;
  s.workload = s.model = "mlp";
  s.device = "cuda:0";
  s.dtype = "float32";
  s.ratio = 1.2, s.ci_low = 1.1, s.ci_high = 1.3;
  s.parity = parity_off_by(0.031, "cpu float32");
  drifting.speedups = {s};
  const std::vector<std::pair<RunResult, json>> runs{
      {batch, doc(batch_block(batch))},
      {RunResult{}, doc(precision_cuda_block())},
      {RunResult{}, doc(precision_cpu_block())},
      {RunResult{}, doc(threads_block())},
      {RunResult{}, doc(workers_block())},
      {RunResult{}, doc(crosses_block())},
      {RunResult{}, doc(crosses_block(nullptr))},
      {RunResult{}, doc(cpu_always_block())},
      {RunResult{}, doc(never_block())},
      {RunResult{}, doc(accelerator_always_block())},
      {drifting, json::object()},
  };
  std::size_t total = 0;
  for (const auto& [run, document] : runs) {
    const auto a = advise(run, document);
    EXPECT_FALSE(a.empty()) << document.dump();
    total += a.size();
    expect_quoted(a);
  }
  EXPECT_GE(total, 15u);
}

// Launch-bound comes from the measured busy share only: quoted with the busy time and the step;
// a busy device, or a case without the busy figure, gets no such advice.
TEST(Advisor, LaunchBoundQuotesTheDevicesBusyShare) {
  RunResult run;
  auto idle = make("cnn", "cuda:0", 0.0017);
  idle.device_busy_fraction = 0.26;
  idle.launch_bound = true;
  auto busy = make("transformer", "cuda:0", 0.027);
  busy.device_busy_fraction = 0.98;
  auto unknown = make("mlp", "cuda:0", 0.0006);
  unknown.device_clock_ratio = 0.99;
  run.cases = {idle, busy, unknown};
  const auto a = advise(run);
  ASSERT_EQ(std::count_if(a.begin(), a.end(), [](const Advice& x) { return x.rule == "launch-bound"; }), 1);
  const auto it = std::find_if(a.begin(), a.end(), [](const Advice& x) { return x.rule == "launch-bound"; });
  EXPECT_NE(it->subject.find("cnn"), std::string::npos);
  EXPECT_NE(it->text.find("26.0%"), std::string::npos) << it->text;
  EXPECT_NE(it->text.find("CUDA graph"), std::string::npos) << it->text;
  expect_cited(a);
}

// The utilisation verdicts of device-bound cases become advice that quotes the share, the verdict's
// evidence and (small kernels) the kernel count; launch-bound and verdict-less cases get none.
TEST(Advisor, UtilisationVerdictsOfDeviceBoundCasesAreAdvised) {
  DeviceCeilings h200;
  h200.ceilings = {{CeilingKind::kMatmul, "float32", "8192 x 8192 x 8192", 15, 50e12, 49e12, 51e12, ""},
                   {CeilingKind::kMatmul, "bfloat16", "16384 x 16384 x 16384", 15, 797e12, 790e12, 800e12, ""}};
  auto graph = make("mlp", "cuda:0", 118e-6);
  graph.spec.graphs = true;
  graph.device_busy_fraction = 0.97;
  graph.device_operations_per_step = 24;
  graph.achieved_flops_per_s = 2.6e12;
  auto memory = make("transformer", "cuda:0", 6.2e-3, "bfloat16");
  memory.device_busy_fraction = 0.99;
  memory.achieved_flops_per_s = 155e12;
  auto compute = make("transformer", "cuda:0", 25.4e-3);
  compute.device_busy_fraction = 0.99;
  compute.achieved_flops_per_s = 38e12;
  auto launch = make("cnn", "cuda:0", 1.7e-3);
  launch.device_busy_fraction = 0.27;
  launch.launch_bound = true;
  launch.achieved_flops_per_s = 1.6e12;
  auto cpu = make("cnn", "cpu", 0.05);  // no busy figure, low share: no verdict
  cpu.achieved_flops_per_s = 1e12;
  RunResult run;
  for (auto* c : {&graph, &memory, &compute, &launch, &cpu}) {
    apply_ceilings(*c, h200);
    run.cases.push_back(*c);
  }
  const auto a = advise(run);
  std::vector<Advice> u;
  std::copy_if(a.begin(), a.end(), std::back_inserter(u), [](const Advice& x) { return x.rule == "utilisation"; });
  ASSERT_EQ(u.size(), 3u);
  EXPECT_NE(u[0].text.find("small-kernel-bound at 5.2% of the float32 matmul ceiling"), std::string::npos) << u[0].text;
  EXPECT_NE(u[0].text.find("24 kernels a step"), std::string::npos) << u[0].text;
  EXPECT_NE(u[0].text.find("larger batch"), std::string::npos) << u[0].text;
  EXPECT_NE(u[1].text.find("memory-bound at 19.4% of the bfloat16 matmul ceiling"), std::string::npos) << u[1].text;
  EXPECT_NE(u[2].text.find("compute-bound at 76.0% of the float32 matmul ceiling"), std::string::npos) << u[2].text;
  expect_cited(a);
}

// Advice that reads its case: never what the case already uses; one advice per finding.
TEST(AdvisorReadsItsCase, MemoryEdgeNeverRecommendsWhatTheSweepAlreadyUses) {
  const auto run = batch_run();
  auto block = batch_block(run);  // transformer in float32 without checkpointing: both ways
  auto text = find(advise(run, doc(block)), "batch-memory-edge")->text;
  EXPECT_TRUE(contains(text, "bfloat16 (--dtype bfloat16) or gradient checkpointing (--checkpoint)")) << text;
  block["dtype"] = "bfloat16";  // already bfloat16: checkpointing only
  text = find(advise(run, doc(block)), "batch-memory-edge")->text;
  EXPECT_FALSE(contains(text, "--dtype bfloat16")) << text;
  EXPECT_TRUE(contains(text, "gradient checkpointing (--checkpoint)")) << text;
  block["checkpoint"] = true;  // both already: neither
  text = find(advise(run, doc(block)), "batch-memory-edge")->text;
  EXPECT_FALSE(contains(text, "--dtype bfloat16")) << text;
  EXPECT_FALSE(contains(text, "--checkpoint")) << text;
  EXPECT_TRUE(contains(text, "it already runs in bfloat16 with gradient checkpointing")) << text;
}

TEST(AdvisorReadsItsCase, MemoryHeadroomReadsTheCaseAndComesOncePerSubject) {
  RunResult run;
  run.context.devices.push_back({"cuda:0", "cuda", "GPU", 0, 100ull << 30});
  auto a = make("bert-base", "cuda:0", 0.1, "bfloat16");
  a.memory.peak_reserved_bytes = 91ull << 30;
  auto b = a;
  b.spec.batch_size = 128;
  b.memory.peak_reserved_bytes = 98ull << 30;
  run.cases = {a, b};
  auto advice = advise(run);
  ASSERT_EQ(count(advice, "memory-headroom"), 1u) << dump(advice);  // one finding: the strongest evidence
  auto text = find(advice, "memory-headroom")->text;
  EXPECT_TRUE(contains(text, "98.0%")) << text;
  EXPECT_FALSE(contains(text, "bfloat16 (--dtype")) << "a bfloat16 case: " << text;
  EXPECT_TRUE(contains(text, "gradient checkpointing (--checkpoint)")) << text;
  expect_cited(advice);
  // a case that already uses both: neither recommended
  run.cases[0].spec.checkpoint = run.cases[1].spec.checkpoint = true;
  text = find(advise(run), "memory-headroom")->text;
  EXPECT_FALSE(contains(text, "--checkpoint")) << text;
  // an mlp in float32 has no checkpointing to offer: bfloat16 only
  auto m = make("mlp", "cuda:0", 0.01);
  m.memory.peak_reserved_bytes = 95ull << 30;
  run.cases = {m};
  text = find(advise(run), "memory-headroom")->text;
  EXPECT_TRUE(contains(text, "--dtype bfloat16")) << text;
  EXPECT_FALSE(contains(text, "checkpoint")) << text;
}

TEST(AdvisorReadsItsCase, NoHeadroomAdviceBesideTheBatchSweepsMemoryEdge) {
  auto run = batch_run();
  run.context.devices.push_back({"cuda:0", "cuda", "GPU", 0, 16ull << 30});
  for (auto& c : run.cases)
    if (c.ok()) c.memory.peak_reserved_bytes = 15ull << 30;  // 93.8%: each point near the limit
  const auto a = advise(run, doc(batch_block(run)));
  EXPECT_EQ(count(a, "batch-memory-edge"), 1u) << dump(a);
  EXPECT_EQ(count(a, "memory-headroom"), 0u) << dump(a);
}

// A lower precision slower than float32: the cause comes from the case's busy share (launch-bound:
// the casts are more launches), never "this device has no fast path" (the H200's bf16 matmul runs
// at 790 TFLOP/s while its launch-bound cnn was slower in bf16).
TEST(Advisor, SlowerPrecisionNamesTheMeasuredCause) {
  RunResult run;
  auto fp32 = make("cnn", "cuda:0", 0.0017);
  auto bf16 = make("cnn", "cuda:0", 0.0021, "bfloat16");
  bf16.device_busy_fraction = 0.31;
  bf16.launch_bound = true;
  run.cases = {fp32, bf16};
  auto a = advise(run);
  const auto it = std::find_if(a.begin(), a.end(), [](const Advice& x) { return x.rule == "precision-slower"; });
  ASSERT_NE(it, a.end());
  EXPECT_NE(it->text.find("launch-bound (the device is busy 31.0% of it)"), std::string::npos) << it->text;
  EXPECT_EQ(it->text.find("no fast"), std::string::npos) << it->text;
  expect_cited(a);
  run.cases[1].device_busy_fraction = 0.95;
  run.cases[1].launch_bound = false;
  a = advise(run);
  const auto busy = std::find_if(a.begin(), a.end(), [](const Advice& x) { return x.rule == "precision-slower"; });
  ASSERT_NE(busy, a.end());
  EXPECT_NE(busy->text.find("the device is busy 95.0% of the step"), std::string::npos) << busy->text;
}

// A batch sweep's points are one subject: one launch-bound advice, from its last point.
TEST(Advisor, LaunchBoundOncePerSubject) {
  RunResult run;
  for (int i = 0; i < 3; ++i) {
    auto c = make("resnet18", "cuda:0", 0.008);
    c.spec.batch_size = 64 << i;
    c.device_busy_fraction = 0.25 + 0.1 * i;
    c.launch_bound = true;
    run.cases.push_back(c);
  }
  const auto a = advise(run);
  ASSERT_EQ(std::count_if(a.begin(), a.end(), [](const Advice& x) { return x.rule == "launch-bound"; }), 1) << a.size();
  const auto it = std::find_if(a.begin(), a.end(), [](const Advice& x) { return x.rule == "launch-bound"; });
  EXPECT_NE(it->text.find("45.0%"), std::string::npos) << it->text;
}

// --graphs: a graphs case's precision advice compares it with the graphs case in float32, never
// with the eager one; the eager case's launch-bound advice quotes the graphs figure.
TEST(Advisor, GraphsCasesAreComparedWithGraphsCases) {
  auto make = [](const std::string& dtype, bool graphs, double step) {
    CaseResult c;
    c.spec = CaseSpec{"mlp", "cuda:0", dtype, 64, 0, 0, false, graphs};
    for (int i = 0; i < 30; ++i) c.samples.push_back(step * (1 + 0.001 * (i % 3)));
    c.stats = summarize(c.samples);
    c.loss_before = 2.3;
    c.loss_after = 1.0;
    return c;
  };
  RunResult run;
  run.cases = {make("float32", false, 400e-6), make("float32", true, 118e-6), make("bfloat16", false, 700e-6),
               make("bfloat16", true, 104e-6)};
  run.cases[0].device_busy_fraction = 0.3;
  run.cases[0].launch_bound = true;
  run.graph_speedups = compute_graph_speedups(run.cases);
  const auto text = render_advice(advise(run));
  EXPECT_EQ(text.find("3.8"), std::string::npos) << "bf16 graphs against fp32 eager: " << text;  // 400/104
  EXPECT_NE(text.find("mlp[graphs] on cuda:0 (bfloat16): bfloat16 is 1.13x"), std::string::npos) << text;  // 118/104
  EXPECT_NE(text.find("the whole step in a CUDA graph, measured here: 400.4 us -> 118.1 us a step"), std::string::npos) << text;
}

// ---- advice only where it helps ----

// A compute-bound case is sent to a precision with a higher ceiling only where this device measured
// one: on a CPU whose bfloat16 matmul is far slower than its float32 one, the advice says so.
TEST(AdviceThatHelps, NoHigherCeilingPrecisionTheMeasurementsContradict) {
  DeviceCeilings cpu_peak;
  cpu_peak.ceilings = {{CeilingKind::kMatmul, "float32", "2048 x 2048 x 2048", 15, 120e9, 118e9, 121e9, ""},
                       {CeilingKind::kMatmul, "bfloat16", "2048 x 2048 x 2048", 15, 1.3e9, 1.2e9, 1.4e9, ""}};
  auto c = make("mlp", "cpu", 0.01);
  c.device_busy_fraction = 1.0;
  c.achieved_flops_per_s = 100e9;
  apply_ceilings(c, cpu_peak);
  ASSERT_EQ(c.bound, "compute-bound");
  EXPECT_EQ(c.faster_precision, "");
  RunResult run;
  run.cases = {c};
  const auto advice = advise(run);  // the advice outlives the pointer into it
  auto u = find(advice, "utilisation");
  ASSERT_NE(u, nullptr);
  EXPECT_FALSE(contains(u->text, "a precision with a higher ceiling")) << u->text;
  EXPECT_TRUE(contains(u->text, "no precision's measured matmul ceiling on cpu is higher than float32's")) << u->text;
  // where bfloat16's ceiling is the higher one, it is named with its figure
  cpu_peak.ceilings[1].median = cpu_peak.ceilings[1].ci_low = cpu_peak.ceilings[1].ci_high = 400e9;
  apply_ceilings(c, cpu_peak);
  EXPECT_EQ(c.faster_precision, "bfloat16");
  run.cases = {c};
  const auto bf16_advice = advise(run);  // the advice outlives the pointer into it
  u = find(bf16_advice, "utilisation");
  ASSERT_NE(u, nullptr);
  EXPECT_TRUE(contains(u->text, "a precision with a higher ceiling go faster here: bfloat16's measured matmul ceiling is"))
      << u->text;
  // the JSON keeps it, so `advise` on a stored run says the same
  EXPECT_EQ(nlohmann::json(c).get<CaseResult>().faster_precision, "bfloat16");
}

// A knee at the end of the range is no knee: the throughput was still rising.
TEST(AdviceThatHelps, NoKneeAtTheEndOfTheRange) {
  auto run = batch_run();
  run.cases = {run.cases[0], run.cases[1], run.cases[2], run.cases[3]};  // 8..64 all fit
  auto block = batch_block(run);
  block["knee"] = 64;
  block["best_batch"] = 64;
  block["largest_fit"] = 64;
  block["first_oom"] = nullptr;
  block["smallest_oom"] = nullptr;
  block["bisection"] = nullptr;
  const auto a = advise(run, doc(block));
  const auto* k = find(a, "batch-knee");
  ASSERT_NE(k, nullptr) << dump(a);
  EXPECT_FALSE(contains(k->text, "use batch 64")) << k->text;
  EXPECT_TRUE(contains(k->text, "the range holds no knee; --to 128 measures beyond it")) << k->text;
  const auto sweep = block.get<BatchSweep>();
  EXPECT_TRUE(knee_at_range_end(sweep));
  block["first_oom"] = 128;  // the edge of memory ended it: batch 64 is the one to use
  EXPECT_FALSE(knee_at_range_end(block.get<BatchSweep>()));
}

// An interval that more time cannot narrow (the next run's range from the rounds or the fallback
// constant) is not met with "close other programs, or give it more time".
TEST(AdviceThatHelps, NoMoreTimeForARangeMoreTimeCannotNarrow) {
  auto c = make("mlp", "cpu", 0.01);
  c.noisy = true;
  c.relative_ci_half_width = 0.3;
  RunToRun rr;
  rr.widened = true;
  rr.source = "fallback";
  rr.half_width_log = std::log(1.8);
  c.run_to_run = rr;
  RunResult run;
  run.cases = {c};
  const auto advice = advise(run);  // the advice outlives the pointer into it
  auto n = find(advice, "noisy");
  ASSERT_NE(n, nullptr);
  EXPECT_FALSE(contains(n->text, "close other programs")) << n->text;
  EXPECT_FALSE(contains(n->text, "give it more time")) << n->text;
  EXPECT_TRUE(contains(n->text, "more time in this run cannot narrow")) << n->text;
  EXPECT_TRUE(contains(n->text, "next run 95%: within -44/+80% of this run's median")) << n->text;
  // the same words about two cases: one item naming both
  run.cases.push_back(run.cases[0]);
  run.cases[1].spec.workload = "cnn";
  const auto both = advise(run);
  ASSERT_EQ(std::count_if(both.begin(), both.end(), [](const Advice& x) { return x.rule == "noisy"; }), 1) << dump(both);
  EXPECT_EQ(find(both, "noisy")->subject, "mlp on cpu, cnn on cpu") << dump(both);
  run.cases[0].run_to_run.reset();  // this run's own interval: more time does narrow it
  const auto later_advice = advise(run);  // the advice outlives the pointer into it
  n = find(later_advice, "noisy");
  ASSERT_NE(n, nullptr);
  EXPECT_TRUE(contains(n->text, "give it more time")) << n->text;
}

// Advice is ranked, the most useful first: what makes training faster before how far the figures
// can be trusted.
TEST(AdviceThatHelps, RankedMostUsefulFirst) {
  auto noisy = make("transformer", "cpu", 5.0);
  noisy.noisy = true;
  noisy.relative_ci_half_width = 0.145;
  auto in = make("resnet18", "cuda:0", 0.01);
  in.input_bound = true;
  in.data_wait_fraction = 0.35;
  RunResult run;
  run.cases = {noisy, in};
  const auto a = advise(run);
  ASSERT_GE(a.size(), 2u) << dump(a);
  EXPECT_EQ(a.front().rule, "input-bound") << dump(a);
  EXPECT_EQ(a.back().rule, "noisy") << dump(a);
}
