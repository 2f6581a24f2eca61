// End-to-end tests of the Python measurer (--impl python, --py-model): rounds measured by
// python/accelbench_worker under the Python of the libtorch this build uses (PYTHON_FOR_TESTS;
// the tests skip and say why without one), on the CPU. Every bad input a one-line error and exit
// code 2 before anything is timed; a worker that dies is a crashed case, a NaN loss a diverged one.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "cli_runner.h"

namespace {
using accelbench::testing::expect_usage_error;
using accelbench::testing::run_cli;
using accelbench::testing::slurp;

const std::string kPython = PYTHON_FOR_TESTS;
const std::string kModels = std::string(PYTHON_MODELS_DIR) + "/models.py";
const std::string kQuick =
    " --devices cpu --quick --rounds 1 --parity-steps 0 --no-telemetry --no-save --no-progress --batch-size 16"
    " --max-time-per-case 4s";

#define REQUIRE_PYTHON() \
  if (kPython.empty()) GTEST_SKIP() << "no Python with torch at configure time"

std::string python_flag() { return " --python " + kPython; }

// Runs `args`; returns the run's JSON (after checking the exit code).
nlohmann::json run_json(const std::string& args, int expected_code = 0) {
  accelbench::testing::TempDir dir;
  const auto json = dir.file("run.json");
  const auto r = run_cli(args + " --json " + json);
  EXPECT_EQ(r.code, expected_code) << args << "\n" << r.out << r.err;
  return nlohmann::json::parse(slurp(json));
}
}  // namespace

TEST(PythonCli, MlpRoundTripThroughTheWorkerBesideTheCppEngine) {
  REQUIRE_PYTHON();
  accelbench::testing::TempDir dir;
  const auto json = dir.file("run.json");
  const auto r = run_cli("run --models mlp --impl cpp,python" + kQuick + python_flag() + " --json " + json);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j["cases"].size(), 2u);
  const auto& cpp = j["cases"][0];
  const auto& py = j["cases"][1];
  EXPECT_FALSE(cpp.contains("impl"));
  EXPECT_EQ(py["impl"], "python");
  EXPECT_EQ(py["status"], "ok") << py["error"];
  EXPECT_EQ(py["parameter_count"], 814090);  // the C++ mlp's
  EXPECT_EQ(py["parameter_count"], cpp["parameter_count"]);
  EXPECT_GT(py["samples"].size(), 0u);
  EXPECT_GT(py["stats"]["median"].get<double>(), 0);         // derived by the harness from the worker's samples
  EXPECT_GT(py["samples_per_s"].get<double>(), 0);
  EXPECT_NE(py["optimizer"].get<std::string>().find("torch.optim.Adam"), std::string::npos) << py["optimizer"];
  EXPECT_LT(py["loss_after"].get<double>(), py["loss_before"].get<double>());  // it trained
  EXPECT_EQ(j["context"]["settings"]["python_measurer"]["interpreter"], kPython);
  EXPECT_NE(r.out.find("mlp[python]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("python cases: " + kPython), std::string::npos) << r.out;
}

// resnet18, bert-base and dcgan (small: batch 2, sequence 16) through the worker beside the C++
// engine: the Python twin has the C++ model's parameters, and its loss before training is the C++
// case's (the same initial weights and the same first batch: libstdc++'s random engines in Python).
TEST(PythonCli, ResnetBertAndDcganTwinsStartWhereTheCppWorkloadsStart) {
  REQUIRE_PYTHON();
  const auto j = run_json("run --models resnet18,bert-base,dcgan --impl cpp,python --seq-len 16 --batch-size 2 --devices cpu"
                          " --quick --rounds 1 --parity-steps 0 --no-telemetry --no-save --no-progress --max-time-per-case 3s" +
                          python_flag());
  ASSERT_EQ(j["cases"].size(), 6u);
  for (std::size_t i = 0; i < 6; i += 2) {
    const auto& cpp = j["cases"][i];
    const auto& py = j["cases"][i + 1];
    const auto name = cpp["workload"].get<std::string>();
    EXPECT_EQ(py["workload"], name);
    EXPECT_EQ(py["impl"], "python");
    EXPECT_EQ(py["status"], "ok") << name << ": " << py["error"];
    EXPECT_GT(py["samples"].size(), 0u) << name;
    EXPECT_EQ(py["parameter_count"], cpp["parameter_count"]) << name;
    EXPECT_DOUBLE_EQ(py["train_flops_per_sample"].get<double>(), cpp["train_flops_per_sample"].get<double>()) << name;
    EXPECT_NEAR(py["loss_before"].get<double>(), cpp["loss_before"].get<double>(), 1e-5 * cpp["loss_before"].get<double>())
        << name;
  }
  EXPECT_NE(j["cases"][3]["optimizer"].get<std::string>().find("AdamW"), std::string::npos) << j["cases"][3]["optimizer"];
  EXPECT_NE(j["cases"][5]["optimizer"].get<std::string>().find("beta1 0.5"), std::string::npos) << j["cases"][5]["optimizer"];
}

TEST(PythonCli, UserModelsTrain) {
  REQUIRE_PYTHON();
  // A Hugging Face style module that returns a dict with "logits".
  auto j = run_json("run --py-model " + kModels + ":dict_model --input 12:int64:0..50 --target classes:3" + kQuick + python_flag());
  ASSERT_EQ(j["cases"].size(), 1u);
  EXPECT_EQ(j["cases"][0]["workload"], "models.py");
  EXPECT_EQ(j["cases"][0]["status"], "ok") << j["cases"][0]["error"];
  // A factory that returns (model, optimizer, batch function); the model returns its own loss.
  j = run_json("run --py-model " + kModels + ":with_optimizer_and_batches" + kQuick + python_flag());
  ASSERT_EQ(j["cases"].size(), 1u);
  EXPECT_EQ(j["cases"][0]["status"], "ok") << j["cases"][0]["error"];
  EXPECT_NE(j["cases"][0]["optimizer"].get<std::string>().find("AdamW"), std::string::npos);
  EXPECT_LT(j["cases"][0]["loss_after"].get<double>(), j["cases"][0]["loss_before"].get<double>());
}

// The worker times what runs: a model whose training forward sleeps 20 ms reports a median step of
// at least 20 ms, and well under twice that, in the case and in each of its rounds.
TEST(PythonCli, AStepThatSleeps20msMeasuresAtLeast20msAndUnder40ms) {
  REQUIRE_PYTHON();
  auto two_rounds = kQuick;
  two_rounds.replace(two_rounds.find("--rounds 1"), 10, "--rounds 2");
  const auto j = run_json("run --py-model " + kModels + ":sleeps_20ms --input 4:float32 --target classes:2" + two_rounds +
                          python_flag());
  ASSERT_EQ(j["cases"].size(), 1u);
  const auto& c = j["cases"][0];
  ASSERT_EQ(c["status"], "ok") << c["error"];
  EXPECT_GE(c["stats"]["median"].get<double>(), 0.020);
  EXPECT_LT(c["stats"]["median"].get<double>(), 0.040);
  ASSERT_GE(c["rounds"].size(), 2u);
  for (const auto& round : c["rounds"]) {
    EXPECT_GE(round["median_s"].get<double>(), 0.020) << round.dump();
    EXPECT_LT(round["median_s"].get<double>(), 0.040) << round.dump();
  }
}

// A CPU case's memory is what its model holds: one nn.Linear of 256 MiB of weights trained with SGD
// (no momentum) holds the weights and their gradients, 512 MiB, above what the process held before
// the model was built (the interpreter and torch, several hundred MiB, not counted).
TEST(PythonCli, ACpuCasesMemoryIsWhatItsModelHolds) {
  REQUIRE_PYTHON();
  const auto j = run_json("run --py-model " + kModels + ":linear_256mib --input 8192:float32 --target classes:8192" +
                          " --py-optimizer sgd" + kQuick + python_flag());
  ASSERT_EQ(j["cases"].size(), 1u);
  const auto& m = j["cases"][0]["memory"];
  ASSERT_TRUE(m.contains("baseline_rss_bytes")) << m.dump();
  const double mib = 1024.0 * 1024.0;
  const double held = (m["peak_rss_bytes"].get<double>() - m["baseline_rss_bytes"].get<double>()) / mib;
  EXPECT_GE(held, 512.0) << m.dump();
  EXPECT_LT(held, 512.0 + 320.0) << m.dump();
  EXPECT_GT(m["baseline_rss_bytes"].get<double>() / mib, 100.0) << m.dump();  // torch was loaded before the build
}

// The round server of another build (another protocol) is refused in one line that says so.
TEST(PythonCli, AWorkerOfAnotherBuildIsRefusedInOneLine) {
  REQUIRE_PYTHON();
  accelbench::testing::TempDir dir;
  const auto copy = std::filesystem::path(dir.file("python")) / "accelbench_worker";
  std::filesystem::create_directories(copy.parent_path());
  std::filesystem::copy(std::string(PYTHON_WORKER_SOURCE) + "/accelbench_worker", copy, std::filesystem::copy_options::recursive);
  auto protocol = slurp((copy / "protocol.py").string());
  const auto at = protocol.find("PROTOCOL = ");
  ASSERT_NE(at, std::string::npos);
  protocol.replace(at, protocol.find('\n', at) - at, "PROTOCOL = 99");
  std::ofstream((copy / "protocol.py").string()) << protocol;
  expect_usage_error("run --models mlp --impl python --devices cpu --no-save" + python_flag(),
                     "speaks protocol 99 and this accelbench 2", "ACCELBENCH_PYTHON_WORKER=" + copy.parent_path().string());
}

TEST(PythonCli, AWorkerThatDiesIsACrashedCaseAndANanLossADivergedOne) {
  REQUIRE_PYTHON();
  auto j = run_json("run --py-model " + kModels + ":dies --input 8:float32 --target classes:2" + kQuick + python_flag(), 1);
  ASSERT_EQ(j["cases"].size(), 1u);
  EXPECT_EQ(j["cases"][0]["failure"], "crashed") << j["cases"][0]["error"];
  j = run_json("run --py-model " + kModels + ":goes_nan --input 8:float32 --target classes:2" + kQuick + python_flag(), 1);
  ASSERT_EQ(j["cases"].size(), 1u);
  EXPECT_EQ(j["cases"][0]["failure"], "diverged") << j["cases"][0]["error"];
  EXPECT_NE(j["cases"][0]["error"].get<std::string>().find("NaN"), std::string::npos);
}

TEST(PythonCli, BadInputIsOneLineAndExitCodeTwoBeforeAnythingIsTimed) {
  REQUIRE_PYTHON();
  const std::string run = "run --devices cpu --no-save" + python_flag() + " --py-model ";
  const std::string io = " --input 8:float32 --target classes:2";
  accelbench::testing::TempDir models;
  // A module that imports a package no Python has.
  const auto import_fails = models.file("import_fails.py");
  std::ofstream(import_fails) << "import torch  # noqa: F401\nimport a_package_that_is_not_installed  # noqa: F401\n\n\n"
                                 "def make():\n    return None\n";
  expect_usage_error(run + import_fails + ":make" + io, "the module failed to import: ModuleNotFoundError");
  expect_usage_error(run + kModels + ":raises" + io, "the factory raised RuntimeError: no weights");
  expect_usage_error(run + kModels + ":not_a_module" + io, "not a torch.nn.Module");
  expect_usage_error(run + kModels + ":wrong_shape --input 64:float32 --target classes:4",
                     "the forward pass at batch 2 failed");
  expect_usage_error(run + kModels + ":no_such_factory" + io, "no function 'no_such_factory'");
  expect_usage_error(run + "/nonexistent/model.py:make" + io, "no such file");
  expect_usage_error(run + kModels + io, "expected FILE.py:FACTORY");
  // An interpreter without torch: the same Python with its site-packages off.
  accelbench::testing::TempDir dir;
  const auto no_torch = dir.file("python-without-torch");
  std::ofstream(no_torch) << "#!/bin/sh\nexec " << kPython << " -S \"$@\"\n";
  std::filesystem::permissions(no_torch, std::filesystem::perms::owner_all);
  expect_usage_error("run --models mlp --impl python --devices cpu --no-save --python " + no_torch, "cannot import torch");
}

// Without --impl, run measures the Python loop (the one a training script runs) where a python3 with
// torch is found, and the C++ loop where the run asks for what only the C++ engine measures, saying
// why; $ACCELBENCH_IMPL names another default.
TEST(PythonCli, TheDefaultLoopIsThePythonOneUnlessTheRunNeedsTheCppEngine) {
  REQUIRE_PYTHON();
  const std::string quick = " --models mlp" + kQuick;
  auto r = run_cli("run" + quick, "ACCELBENCH_IMPL=");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("(mlp on cpu; Python loop)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("mlp (Python loop): "), std::string::npos) << r.out;
  r = run_cli("run --phases" + quick, "ACCELBENCH_IMPL=");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("(mlp on cpu; C++ loop)"), std::string::npos) << r.err;
  EXPECT_NE((r.out + r.err).find("the C++ loop measured: --phases is the C++ engine's"), std::string::npos) << r.out << r.err;
  r = run_cli("run" + quick, "ACCELBENCH_IMPL=cpp,python");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("C++ and Python loops ($ACCELBENCH_IMPL)"), std::string::npos) << r.err;
}

TEST(PythonCli, PythonFlagsAreCheckedWithoutAnInterpreter) {
  expect_usage_error("run --models mlp --devices cpu --no-save --impl rust", "unknown --impl 'rust'");
  expect_usage_error("run --models mlp --devices cpu --no-save --compile", "--compile needs --impl python");
  expect_usage_error("run --models mlp --devices cpu --no-save --impl python --py-optimizer lion", "unknown --py-optimizer 'lion'");
  expect_usage_error("run --models test-oom --devices cpu --no-save --impl python", "test-oom has no Python twin",
                     "ACCELBENCH_TEST_WORKLOADS=1");
  expect_usage_error("run --models mlp --devices cpu --no-save --impl python --compile fastest", "unknown --compile mode 'fastest'");
  expect_usage_error("run --models mlp --devices cpu --no-save --impl cpp,python --phases", "are the C++ engine's");
}

// A sweep of the Python twin: every point measured by the worker, keyed as mlp[python] in the sweep's
// JSON and the history; the precision sweep without parity (the C++ engine's).
TEST(PythonCli, SweepsMeasureThePythonTwinAtEveryPoint) {
  REQUIRE_PYTHON();
  const std::string timing = " --quick --rounds 1 --no-telemetry --max-time-per-point 3s" + python_flag();
  accelbench::testing::TempDir dir;
  const auto db = dir.file("history.db");
  auto j = run_json("sweep batch --model mlp --device cpu --from 8 --to 16 --impl python --db " + db + timing);
  ASSERT_EQ(j["cases"].size(), 2u) << j.dump().substr(0, 2000);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(c["impl"], "python");
    EXPECT_EQ(c["status"], "ok") << c["error"];
    EXPECT_GT(c["samples"].size(), 0u);
  }
  EXPECT_EQ(j["cases"][1]["batch_size"], 16);
  EXPECT_EQ(j["sweep"]["impl"], "python");  // and the table's title: "batch sweep: mlp[python] on cpu"
  EXPECT_EQ(j["context"]["settings"]["python_measurer"]["interpreter"], kPython);
  const auto history = run_cli("history --db " + db);
  EXPECT_NE(history.out.find("mlp[python]"), std::string::npos) << history.out << history.err;
  j = run_json("sweep precision --model mlp --device cpu --dtypes float32,bfloat16 --batch-size 8 --impl python --no-save" + timing);
  ASSERT_EQ(j["cases"].size(), 2u);
  EXPECT_EQ(j["cases"][1]["impl"], "python");
  EXPECT_EQ(j["cases"][1]["dtype"], "bfloat16");
  EXPECT_EQ(j["context"]["settings"]["parity_steps"], 0);
}

TEST(PythonCli, SweepPythonFlagsAreCheckedBeforeAnythingRuns) {
  expect_usage_error("sweep batch --model mlp --device cpu --no-save --impl cpp,python", "one implementation per sweep");
  expect_usage_error("sweep threads --model mlp --no-save --impl rust", "unknown --impl 'rust'");
  expect_usage_error("sweep batch --model mlp --device cpu --no-save --compile", "--compile needs --impl python");
  expect_usage_error("sweep precision --model mlp --device cpu --no-save --impl python --parity-steps 3",
                     "parity is the C++ engine's");
  expect_usage_error("sweep workers --model mlp --device cpu --no-save --impl python", "--impl");
}
