#include <gtest/gtest.h>

#include "core/case_figures.h"
#include "core/errors.h"
#include "core/plan.h"
#include "core/results.h"
#include "report/json_report.h"
#include "report/terminal_table.h"
#include "telemetry/sampler.h"
#include "test_files.h"

using namespace accelbench;

namespace {
CaseResult make_case(const std::string& model, const std::string& device, double step) {
  CaseResult c;
  c.spec = {model, device, "float32", 64, 2};
  for (int i = 0; i < 20; ++i) c.samples.push_back(step * (1 + 0.001 * (i % 5)));
  c.stats = summarize(c.samples);
  c.samples_per_epoch = 60000;
  c.epoch_s_estimate = c.stats.median * 938;
  c.memory.peak_allocated_bytes = 1234;
  c.memory.source = "test";
  c.loss_before = 2.3;
  c.loss_after = 1.1;
  return c;
}
}  // namespace

TEST(ResultsJson, RoundTrip) {
  RunResult run;
  run.context.torch_version = "2.13.0";
  run.context.devices.push_back({"cpu", "cpu", "Test CPU", -1, 8ull << 30});
  run.cases = {make_case("mlp", "cpu", 0.010), make_case("mlp", "cuda:0", 0.001)};
  run.cases[1].phases = PhaseSamples{{0.1}, {0.2}, {0.3}};
  run.speedups = compute_speedups(run.cases);
  ASSERT_EQ(run.speedups.size(), 1u);
  EXPECT_NEAR(run.speedups[0].ratio, 10.0, 1e-9);

  const nlohmann::json j = run;
  EXPECT_EQ(j["schema"], "accelbench.run/1");
  EXPECT_EQ(j["cases"][0]["samples"].size(), 20u);
  EXPECT_TRUE(j["cases"][0]["memory"]["peak_reserved_bytes"].is_null());
  const auto back = j.get<RunResult>();
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_EQ(back.cases[1].spec.device, "cuda:0");
  EXPECT_EQ(back.cases[0].samples, run.cases[0].samples);
  EXPECT_EQ(back.cases[0].memory.peak_allocated_bytes, std::optional<std::uint64_t>(1234));
  EXPECT_FALSE(back.cases[0].memory.peak_reserved_bytes.has_value());
  ASSERT_TRUE(back.cases[1].phases.has_value());
  EXPECT_EQ(back.cases[1].phases->optimizer, std::vector<double>{0.3});
  EXPECT_EQ(back.context.devices.at(0).name, "Test CPU");
}

// A case's choice of numerics (bert-base's 16-bit residual stream) goes through the JSON and is
// said in the case's notes; a case without one says nothing.
TEST(ResultsJson, NumericsTravelAndAreSaid) {
  RunResult run;
  run.cases = {make_case("bert-base", "cuda:0", 0.34), make_case("mlp", "cuda:0", 0.001)};
  run.cases[0].spec.dtype = "bfloat16";
  run.cases[0].numerics = "residual stream in bfloat16";
  const nlohmann::json j = run;
  EXPECT_EQ(j["cases"][0]["numerics"], "residual stream in bfloat16");
  EXPECT_EQ(j["cases"][1]["numerics"], "");
  EXPECT_EQ(j.get<RunResult>().cases[0].numerics, "residual stream in bfloat16");
  const auto text = render_terminal_report(run);
  EXPECT_EQ(text.find("residual stream"), text.rfind("residual stream")) << text;  // once: bert-base's row
  EXPECT_NE(text.find("residual stream in bfloat16"), std::string::npos) << text;
}

// A Python case (run --impl python) is its own case: its label, its JSON, and its speed-up pairs it
// with the Python case on the CPU, never with the C++ loop's.
TEST(ResultsJson, PythonCasesTravelAndPairWithPythonCases) {
  auto py_cpu = make_case("mlp", "cpu", 0.010);
  py_cpu.spec.impl = kPythonImpl;
  auto py_gpu = make_case("mlp", "cuda:0", 0.002);
  py_gpu.spec.impl = kPythonImpl;
  py_gpu.spec.compile = "reduce-overhead";
  EXPECT_EQ(model_label(py_cpu.spec), "mlp[python]");
  EXPECT_EQ(model_label(py_gpu.spec), "mlp[python,compile=reduce-overhead]");
  const auto back = nlohmann::json(py_gpu).get<CaseResult>();
  EXPECT_EQ(back.spec.impl, "python");
  EXPECT_EQ(back.spec.compile, "reduce-overhead");
  EXPECT_FALSE(nlohmann::json(make_case("mlp", "cpu", 0.01)).contains("impl"));  // a C++ case's JSON is unchanged
  auto py_gpu_eager = py_gpu;
  py_gpu_eager.spec.compile.clear();
  const auto s = compute_speedups({make_case("mlp", "cpu", 0.004), py_cpu, py_gpu_eager, make_case("mlp", "cuda:0", 0.001)});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s[0].ratio, 0.010 / 0.002, 0.1);  // python cuda over python cpu
  EXPECT_EQ(s[0].model, "mlp[python]");
  EXPECT_NEAR(s[1].ratio, 4.0, 0.1);            // C++ cuda over C++ cpu
}

TEST(ResultsJson, RejectsOtherSchemas) {
  nlohmann::json j{{"schema", "something/2"}};
  EXPECT_THROW(j.get<RunResult>(), std::runtime_error);
  EXPECT_THROW(nlohmann::json::array().get<RunResult>(), std::runtime_error);
}

TEST(JsonReport, AtomicWriteAndClearErrors) {
  accelbench::testing::TempDir dir;
  RunResult run;
  run.cases = {make_case("cnn", "cpu", 0.02)};
  write_json_report(run, dir.file("r.json"));
  EXPECT_EQ(read_json_report(dir.file("r.json")).cases.size(), 1u);
  EXPECT_THROW(write_json_report(run, dir.file("no/such/dir/r.json")), UsageError);
  EXPECT_FALSE(std::filesystem::exists(dir.file("no/such/dir/r.json")));
  accelbench::testing::write_plain(dir.file("bad.json"), {'{', 'x'});
  EXPECT_THROW(read_json_report(dir.file("bad.json")), UsageError);
  EXPECT_THROW(read_json_report(dir.file("missing.json")), UsageError);
}

TEST(TerminalReport, ArticleTableWithSpeedup) {
  RunResult run;
  run.cases = {make_case("mlp", "cpu", 0.010), make_case("mlp", "cuda:0", 0.001)};
  run.speedups = compute_speedups(run.cases);
  const auto text = render_terminal_report(run);
  EXPECT_NE(text.find("CPU s/epoch"), std::string::npos) << text;
  EXPECT_NE(text.find("cuda:0 s/epoch"), std::string::npos) << text;
  EXPECT_NE(text.find("10.00x ["), std::string::npos) << text;
}

TEST(ResultsJson, TelemetryBlockRoundTripsAndShowsInTheTable) {
  RunResult run;
  run.context.settings = {{"epochs_given", true}};
  run.cases = {make_case("mlp", "cpu", 0.010), make_case("mlp", "cuda:0", 0.001)};
  TelemetrySummary cpu;
  cpu.device_role = "cpu";
  cpu.energy_j = TelemetryFigure::none("rapl: no /sys/class/powercap");
  cpu.max_temperature_c = TelemetryFigure::none("linux-thermal: no sensor");
  cpu.prediction = predict_training(3, 938, 0.01, 0.02, cpu.energy_j, 0);
  TelemetrySummary gpu;
  gpu.device_role = "accelerator";
  gpu.samples = 40;
  gpu.energy_j = TelemetryFigure::of(500, "nvml:0 (counter)");
  gpu.energy_per_step_j = TelemetryFigure::of(0.5, "nvml:0 (counter)");
  gpu.max_temperature_c = TelemetryFigure::of(61, "nvml:0");
  gpu.throttled = true;
  gpu.throttled_samples = 12;
  run.cases[0].telemetry = cpu;
  run.cases[1].telemetry = gpu;
  const nlohmann::json j = run;
  EXPECT_EQ(j["cases"][1]["telemetry"]["energy_j"]["value"], 500);
  EXPECT_TRUE(j["cases"][0]["telemetry"]["energy_j"]["value"].is_null());
  const auto back = j.get<RunResult>();
  ASSERT_TRUE(back.cases[1].telemetry);
  EXPECT_EQ(*back.cases[1].telemetry->energy_per_step_j.value, 0.5);
  EXPECT_EQ(nlohmann::json(back), j);
  const auto text = render_terminal_report(run);
  EXPECT_NE(text.find("energy/step"), std::string::npos) << text;
  EXPECT_NE(text.find("500.00 mJ"), std::string::npos) << text;
  EXPECT_NE(text.find("61 C"), std::string::npos) << text;
  EXPECT_NE(text.find("THROTTLED in 12/40 readings"), std::string::npos) << text;
  EXPECT_NE(text.find("energy on cpu: unavailable: rapl: no /sys/class/powercap"), std::string::npos) << text;
  EXPECT_NE(text.find("Predicted training run"), std::string::npos) << text;
  // Without telemetry the report has no telemetry section.
  run.cases[0].telemetry.reset();
  run.cases[1].telemetry.reset();
  EXPECT_EQ(render_terminal_report(run).find("energy/step"), std::string::npos);
}

// The device's clock (events' span: tracks the host) and its busy time (the held queue) are two
// figures; launch-bound comes from the busy share only. A file written before the busy time
// existed had the span in "busy_fraction": read as the clock ratio, with no verdict.
TEST(ResultsJson, DeviceClockAndBusyShareAreSeparateFigures) {
  auto c = make_case("mlp", "cuda:0", 0.001);
  c.device_samples.assign(c.samples.size(), 0.00099);
  c.device_busy_samples = {0.0002, 0.00021, 0.00019};
  derive_case_figures(c);
  ASSERT_TRUE(c.device_clock_ratio && c.device_busy_fraction);
  EXPECT_NEAR(*c.device_clock_ratio, 0.99, 0.01);
  EXPECT_NEAR(*c.device_busy_fraction, 0.2, 0.01);
  EXPECT_TRUE(c.launch_bound);
  const auto back = nlohmann::json(c).get<CaseResult>();
  EXPECT_EQ(back.device_busy_samples, c.device_busy_samples);
  EXPECT_DOUBLE_EQ(*back.device_busy_fraction, *c.device_busy_fraction);
  EXPECT_TRUE(back.launch_bound);
  RunResult run;
  run.cases = {c};
  const auto table = render_terminal_report(run);
  EXPECT_NE(table.find("device busy 20% of the step: LAUNCH-BOUND"), std::string::npos) << table;

  auto old = nlohmann::json(c);
  old["device_time"] = {{"samples", c.device_samples}, {"busy_fraction", 0.99}, {"launch_bound", false}};
  const auto read = old.get<CaseResult>();
  EXPECT_FALSE(read.device_busy_fraction.has_value());
  ASSERT_TRUE(read.device_clock_ratio.has_value());
  EXPECT_DOUBLE_EQ(*read.device_clock_ratio, 0.99);
  EXPECT_FALSE(read.launch_bound);

  c.device_busy_samples = {0.0009};  // a busy device: no verdict of launch-bound
  derive_case_figures(c);
  EXPECT_FALSE(c.launch_bound);
}

// --graphs: a graphs case is its own row ("mlp[graphs]"), right after the eager case of
// each device that can capture; its speed-up over the CPU is over the CPU's eager step, and
// graph_speedups compare it with the eager case on its device.
TEST(Graphs, PlanAddsAGraphsCaseAfterTheEagerCaseOfEachCapableDevice) {
  PlanRequest req;
  req.models = {"mlp", "cnn"};
  req.devices = {"cpu", "cuda:0"};
  req.graph_devices = {"cuda:0"};
  const auto plan = make_plan(req);
  std::vector<std::string> order;
  for (const auto& c : plan.cases) order.push_back(model_label(c) + "@" + c.device);
  EXPECT_EQ(order, (std::vector<std::string>{"mlp@cuda:0", "mlp[graphs]@cuda:0", "mlp@cpu", "cnn@cuda:0",
                                             "cnn[graphs]@cuda:0", "cnn@cpu"}));
  req.graph_devices.clear();
  EXPECT_EQ(make_plan(req).cases.size(), 4u);
}

TEST(Graphs, LabelJsonAndSpeedups) {
  CaseSpec spec{"mlp", "cuda:0", "float32", 64, 2, 512, false, true};
  EXPECT_EQ(model_label(spec), "mlp[width=512,graphs]");
  const nlohmann::json j = spec;
  EXPECT_EQ(j.get<CaseSpec>().graphs, true);
  spec.graphs = false;
  EXPECT_FALSE(nlohmann::json(spec).contains("graphs")) << "an eager spec reads as before";

  RunResult run;
  auto graphs = make_case("mlp", "cuda:0", 0.0005);
  graphs.spec.graphs = true;
  run.cases = {make_case("mlp", "cuda:0", 0.002), graphs, make_case("mlp", "cpu", 0.010)};
  run.speedups = compute_speedups(run.cases);
  ASSERT_EQ(run.speedups.size(), 2u);
  EXPECT_EQ(run.speedups[1].model, "mlp[graphs]");
  EXPECT_EQ(run.speedups[1].baseline_device, "cpu");
  EXPECT_NEAR(run.speedups[1].ratio, 20.0, 1e-9) << "over the CPU's eager step";
  run.graph_speedups = compute_graph_speedups(run.cases);
  ASSERT_EQ(run.graph_speedups.size(), 1u);
  EXPECT_EQ(run.graph_speedups[0].baseline_device, "cuda:0");
  EXPECT_NEAR(run.graph_speedups[0].ratio, 4.0, 1e-9);
  EXPECT_LT(run.graph_speedups[0].ci_low, 4.0);
  EXPECT_GT(run.graph_speedups[0].ci_high, 4.0);

  const auto back = nlohmann::json(run).get<RunResult>();
  EXPECT_TRUE(back.cases[1].spec.graphs);
  ASSERT_EQ(back.graph_speedups.size(), 1u);
  EXPECT_DOUBLE_EQ(back.graph_speedups[0].ratio, run.graph_speedups[0].ratio);

  // The terminal: its own row in the first table, and the graphs section with the speed-up.
  const auto text = render_terminal_report(run);
  EXPECT_NE(text.find("mlp[graphs]"), std::string::npos) << text;
  EXPECT_NE(text.find("CUDA graphs against the eager step on the same device"), std::string::npos) << text;
  EXPECT_NE(text.find("eager 2.004 ms -> graphs 501.0 us a step"), std::string::npos) << text;
}

// A speed-up is also stated over the CPU's fastest measured precision where that is another
// one (a CPU that emulates bfloat16 is slower in it than in float32), and the table says which.
TEST(Speedups, OverTheCpusFastestPrecision) {
  RunResult run;
  auto cpu_bf16 = make_case("mlp", "cpu", 0.040);
  cpu_bf16.spec.dtype = "bfloat16";
  auto cuda_bf16 = make_case("mlp", "cuda:0", 0.001);
  cuda_bf16.spec.dtype = "bfloat16";
  run.cases = {make_case("mlp", "cuda:0", 0.002), cuda_bf16, make_case("mlp", "cpu", 0.010), cpu_bf16};
  run.speedups = compute_speedups(run.cases);
  ASSERT_EQ(run.speedups.size(), 2u);
  EXPECT_NEAR(run.speedups[1].ratio, 40.0, 1e-9) << "the same precision: CPU bfloat16";
  run.speedups_over_fastest_cpu = compute_speedups_over_fastest_cpu(run.cases);
  ASSERT_EQ(run.speedups_over_fastest_cpu.size(), 1u) << "float32 on cuda already has the CPU's fastest as its baseline";
  const auto& s = run.speedups_over_fastest_cpu[0];
  EXPECT_EQ(s.dtype, "bfloat16");
  EXPECT_EQ(s.baseline_dtype, "float32");
  EXPECT_NEAR(s.ratio, 10.0, 1e-9);
  const auto back = nlohmann::json(run).get<RunResult>();
  ASSERT_EQ(back.speedups_over_fastest_cpu.size(), 1u);
  EXPECT_EQ(back.speedups_over_fastest_cpu[0].baseline_dtype, "float32");
  const auto text = render_terminal_report(run);
  EXPECT_NE(text.find("cuda:0 over the CPU's"), std::string::npos) << text;  // "fastest" wrapped at 100 columns
  EXPECT_NE(text.find("10.00x [9.99, 10.01]"), std::string::npos) << text;  // then "(cpu float32)", wrapped at 100 columns
}

// -------------------------------------------------------------------------------------------------
// The batch description of a model file (core/model_spec.h, --input / --target) and the model
// file's inputs through JSON (core/options.h: the child processes of rounds and sweeps get them so).
#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/lists.h"
#include "core/model_spec.h"
#include "core/options.h"

namespace accelbench {
namespace {

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ModelSpec, ParsesInputs) {
  const auto specs = parse_input_specs("3x224x224:float32,128:int64:0..30522,scalar:float16:-1..1");
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].dims, (std::vector<std::int64_t>{3, 224, 224}));
  EXPECT_EQ(specs[0].dtype, "float32");
  EXPECT_FALSE(specs[0].has_range);
  EXPECT_TRUE(specs[1].is_integer());
  EXPECT_EQ(specs[1].low, 0);
  EXPECT_EQ(specs[1].high, 30522);
  EXPECT_TRUE(specs[2].dims.empty());
  EXPECT_EQ(specs[2].low, -1);
  EXPECT_EQ(to_string(specs[1]), "128:int64:0..30522");
  EXPECT_EQ(to_string(specs[2]), "scalar:float16:-1..1");
}

TEST(ModelSpec, ParsesTargets) {
  const auto c = parse_target_spec("classes:1000");
  EXPECT_EQ(c.kind, TargetSpec::Kind::classes);
  EXPECT_EQ(c.classes, 1000);
  const auto m = parse_target_spec("mse:3x32x32");
  EXPECT_EQ(m.kind, TargetSpec::Kind::mse);
  EXPECT_EQ(m.dims, (std::vector<std::int64_t>{3, 32, 32}));
  EXPECT_EQ(parse_target_spec("loss").kind, TargetSpec::Kind::model_loss);
  EXPECT_EQ(describe(c), "cross-entropy on 1000 classes");
}

TEST(ModelSpec, RefusesWhatDoesNotParse) {
  for (const char* bad : {"", "3x224x224", "3x0:float32", "3x-2:float32", "3xx2:float32", "x:float32", "3:float8",
                          "3:int64:5..1", "3:int64:1-5", "3:int64:a..b", "3:float32:1..2:3", "3x224x224:float32,"}) {
    const auto msg = usage_error([&] { parse_input_specs(bad); });
    EXPECT_NE(msg.find("--input"), std::string::npos) << "'" << bad << "': " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  for (const char* bad : {"", "classes", "classes:0", "classes:x", "classes:-3", "mse:", "mse:3xx", "hinge", "loss:1"}) {
    const auto msg = usage_error([&] { parse_target_spec(bad); });
    EXPECT_NE(msg.find("--target"), std::string::npos) << "'" << bad << "': " << msg;
  }
}

TEST(ModelSpec, CaseNameIsTheFileName) {
  EXPECT_EQ(model_file_case_name("runs/models/resnet18.pt"), "resnet18.pt");
  EXPECT_EQ(model_file_case_name("mine.pt"), "mine.pt");
}

TEST(ModelSpec, ModelFileInputsRoundTripThroughJson) {
  WorkloadInputs in;
  in.model_file = "/tmp/m.pt";
  in.model_input = "128:int64:0..30522";
  in.model_target = "classes:2";
  in.model_flops_per_sample = 6.5e9;
  const nlohmann::json j = in;
  const auto back = j.get<WorkloadInputs>();
  EXPECT_EQ(back.model_file, in.model_file);
  EXPECT_EQ(back.model_input, in.model_input);
  EXPECT_EQ(back.model_target, in.model_target);
  EXPECT_EQ(back.model_flops_per_sample, in.model_flops_per_sample);
  // Without a model file, the context block of a built-in run keeps its keys.
  EXPECT_FALSE(nlohmann::json(WorkloadInputs{}).contains("model_file"));
}

}  // namespace
}  // namespace accelbench

// The one list parser (core/lists.h): fields as written, and people's comma lists trimmed.
TEST(Lists, FieldsKeepEmptyItemsAndListsAreTrimmed) {
  EXPECT_EQ(accelbench::split_fields("3x224x224", 'x'), (std::vector<std::string>{"3", "224", "224"}));
  EXPECT_EQ(accelbench::split_fields("a::b", ':'), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(accelbench::split_list("mlp, cnn ,, resnet18"), (std::vector<std::string>{"mlp", "cnn", "resnet18"}));
  EXPECT_EQ(accelbench::split_list("0,,1", true), (std::vector<std::string>{"0", "", "1"}));
}

// -------------------------------------------------------------------------------------------------
// Reading the environment one way (core/environment.h).
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/environment.h"

namespace accelbench {
namespace {

constexpr const char* kName = "ACCELBENCH_ENVIRONMENT_TEST";

TEST(Environment, SwitchesStringsAndIntegers) {
  ::unsetenv(kName);
  EXPECT_EQ(env_string(kName), "");
  EXPECT_TRUE(env_switch(kName, true));
  EXPECT_FALSE(env_switch(kName, false));
  EXPECT_FALSE(env_integer(kName).value);
  EXPECT_TRUE(env_integer(kName).valid);
  ::setenv(kName, "", 1);
  EXPECT_TRUE(env_switch(kName, true));  // empty: the default
  EXPECT_FALSE(env_integer(kName).value);
  ::setenv(kName, "0", 1);
  EXPECT_FALSE(env_switch(kName, true));
  EXPECT_EQ(env_integer(kName).value, 0);
  ::setenv(kName, "1", 1);
  EXPECT_TRUE(env_switch(kName, false));
  ::setenv(kName, "-42", 1);
  EXPECT_EQ(env_integer(kName).value, -42);
  EXPECT_EQ(env_string(kName), "-42");
  for (const char* bad : {"4x", "x", "1.5", "99999999999999999999999"}) {
    ::setenv(kName, bad, 1);
    EXPECT_FALSE(env_integer(kName).valid) << bad;
    EXPECT_FALSE(env_integer(kName).value) << bad;
  }
  ::unsetenv(kName);
}

}  // namespace
}  // namespace accelbench
