// The suite driver (drivers/suite.h) and the run driver around it (drivers/run_driver.h) without
// torch or the binary: a scripted measurer and parity trainer, a recording printer.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <sqlite3.h>
#include <unistd.h>

#include "core/peak_records.h"
#include "drivers/interleaved_rounds.h"
#include "drivers/run_driver.h"
#include "drivers/suite.h"
#include "report/printer.h"
#include "store/history_store.h"

using namespace accelbench;

namespace {

// Returns a result per device: the CPU 4x slower than the accelerator; "fail" workloads run out of memory.
class ScriptedMeasurer : public CaseMeasurer {
 public:
  std::vector<double> allowances;  // the max_time_s each case was given
  CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) override {
    allowances.push_back(options.settings.stopping.max_time_s);
    if (progress) progress(ProgressEvent{&spec, "measure", 3, 0.01, 0.5, options.settings.stopping.max_time_s});
    CaseResult r;
    r.spec = spec;
    r.wall_s = 2.0;
    if (spec.workload == "fail") {
      r.fail(FailureKind::out_of_memory, "out of memory: scripted");
      return r;
    }
    const double step = spec.device == "cpu" ? 0.004 : 0.001;
    for (int i = 0; i < 20; ++i) r.samples.push_back(step * (1 + 0.001 * (i % 5)));
    r.stats = summarize(r.samples);
    return r;
  }
};

class ScriptedParity : public ParityTrainer {
 public:
  std::vector<std::string> devices;
  ParityTrace train(const CaseSpec& spec, const MeasureOptions&, int steps) override {
    devices.push_back(spec.device);
    ParityTrace t;
    for (int k = 0; k < steps; ++k) t.losses.push_back(1.0 - 0.1 * k + (spec.device == "cpu" ? 0 : 0.001));
    t.grad_norm = 2.0;
    return t;
  }
};

struct RecordingPrinter : Printer {
  std::vector<std::string> events;
  std::size_t documents = 0, last_case_count = 0;
  void case_started(const CasePosition& at, const CaseSpec& spec, const std::string&) override {
    events.push_back("start " + std::to_string(at.index) + "/" + std::to_string(at.total) + " " + spec.device);
  }
  void progress(const CasePosition&, const ProgressEvent& e, double, double eta_s) override {
    events.push_back("progress " + e.stage);
    EXPECT_GE(eta_s, 0);
  }
  void case_finished(const CasePosition&, const CaseResult& r, const std::string&) override {
    events.push_back(std::string("end ") + to_string(r.status));
  }
  void note(const std::string& line) override { events.push_back("note " + line.substr(0, 9)); }
  void document(const nlohmann::json& doc) override {
    ++documents;
    last_case_count = doc.at("cases").size();
  }
};

SuiteRequest request(std::vector<std::string> workloads, double budget_s, int parity_steps) {
  SuiteRequest req;
  for (const auto& w : workloads)
    for (const auto* d : {"cuda:0", "cpu"}) req.plan.cases.push_back(CaseSpec{w, d, "float32", 64, 0});
  req.budget_s = budget_s;
  req.max_per_case_s = 30;
  req.parity_steps = parity_steps;
  return req;
}

}  // namespace

TEST(Suite, MeasuresEveryCaseSharesTheBudgetAndEmitsEvents) {
  ScriptedMeasurer m;
  ScriptedParity parity;
  RecordingPrinter printer;
  RunResult run;
  const int failures = run_suite(request({"mlp", "cnn"}, 40, 0), run, m, parity, printer);
  EXPECT_EQ(failures, 0);
  ASSERT_EQ(run.cases.size(), 4u);
  // 40 s among 4 cases: 10 s the first; each used 2 s, so the next get (40 - 2k) / (4 - k).
  ASSERT_EQ(m.allowances.size(), 4u);
  EXPECT_DOUBLE_EQ(m.allowances[0], 10);
  EXPECT_DOUBLE_EQ(m.allowances[1], 38.0 / 3);
  EXPECT_DOUBLE_EQ(m.allowances[3], 30);  // 34 s left for one case, capped by the per-case maximum
  EXPECT_EQ(printer.events.front(), "start 0/4 cuda:0");
  EXPECT_EQ(printer.events[1], "progress measure");
  EXPECT_EQ(printer.events[2], "end ok");
  // The document after each case, and once more at the end with the speed-ups.
  EXPECT_EQ(printer.documents, 5u);
  EXPECT_EQ(printer.last_case_count, 4u);
  ASSERT_EQ(run.speedups.size(), 2u);
  EXPECT_NEAR(run.speedups[0].ratio, 4.0, 0.05);
  EXPECT_TRUE(parity.devices.empty());
}

TEST(Suite, AFailedCaseIsCountedAndTheOthersGoOn) {
  ScriptedMeasurer m;
  ScriptedParity parity;
  RecordingPrinter printer;
  RunResult run;
  const int failures = run_suite(request({"fail", "mlp"}, 0, 0), run, m, parity, printer);
  EXPECT_EQ(failures, 2);
  ASSERT_EQ(run.cases.size(), 4u);
  EXPECT_TRUE(run.cases[0].out_of_memory());
  EXPECT_TRUE(run.cases[3].ok());
  // No budget: every case gets the per-case maximum.
  for (double a : m.allowances) EXPECT_DOUBLE_EQ(a, 30);
  ASSERT_EQ(run.speedups.size(), 1u);  // only mlp has both devices
}

TEST(Suite, ParityRunsBesideEachSpeedupOnTheDeviceAndTheCpu) {
  ScriptedMeasurer m;
  ScriptedParity parity;
  RecordingPrinter printer;
  RunResult run;
  run_suite(request({"mlp"}, 0, 3), run, m, parity, printer);
  ASSERT_EQ(run.speedups.size(), 1u);
  ASSERT_TRUE(run.speedups[0].parity.has_value());
  EXPECT_EQ(run.speedups[0].parity->steps, 3);
  EXPECT_EQ(parity.devices, (std::vector<std::string>{"cuda:0", "cpu"}));
  EXPECT_NE(std::find(printer.events.begin(), printer.events.end(), "note parity of"), printer.events.end());
}

namespace {
// Records the order of the rounds; "jumpy" rounds alternate between two levels 20% apart (each
// round precise), so that its rounds disagree; "fail" fails its first round.
class RoundRecorder : public CaseMeasurer {
 public:
  std::vector<std::string> calls;
  std::vector<double> allowances;
  CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn&) override {
    calls.push_back(spec.workload + "/" + spec.device);
    allowances.push_back(options.settings.stopping.max_time_s);
    CaseResult r;
    r.spec = spec;
    r.wall_s = 1.0;
    if (spec.workload == "fail") {
      r.fail(FailureKind::backend_error, "scripted");
      return r;
    }
    const auto k = std::count(calls.begin(), calls.end(), calls.back());
    const double level = spec.workload == "jumpy" ? (k % 2 ? 1.0 : 1.2) : 1.0;
    for (int i = 0; i < 30; ++i) r.samples.push_back(0.001 * level * (1 + 0.0001 * (i % 3)));
    r.stats = summarize(r.samples);
    return r;
  }
};
}  // namespace

// Rounds interleaved: round 1 of every case, round 2 in the reverse order; the case whose rounds
// disagree gets more (up to the policy's maximum); a failed round ends its case; the document
// after every round; one case_finished per case.
TEST(Suite, RoundsAreInterleavedAcrossCases) {
  RoundRecorder m;
  ScriptedParity parity;
  RecordingPrinter printer;
  RunResult run;
  SuiteRequest req;
  for (const auto* w : {"mlp", "jumpy", "fail"}) req.plan.cases.push_back(CaseSpec{w, "cpu", "float32", 64, 0});
  req.max_per_case_s = 30;
  req.rounds = RoundsPolicy{2, 4};
  const int failures = run_suite(req, run, m, parity, printer);
  EXPECT_EQ(failures, 1);
  // "mlp"'s two rounds agree: it gets two more for a range of its own (4 rounds); "jumpy"'s
  // disagree: it gets two more, up to the policy's 4.
  EXPECT_EQ(m.calls, (std::vector<std::string>{"mlp/cpu", "jumpy/cpu", "fail/cpu", "jumpy/cpu", "mlp/cpu", "mlp/cpu",
                                               "jumpy/cpu", "jumpy/cpu", "mlp/cpu"}));
  EXPECT_DOUBLE_EQ(m.allowances[0], 15);  // the case's 30 s shared by its 2 rounds
  ASSERT_EQ(run.cases.size(), 3u);
  EXPECT_EQ(run.cases[0].rounds.size(), 4u);
  EXPECT_EQ(run.cases[1].rounds.size(), 4u);
  EXPECT_EQ(run.cases[2].status, CaseStatus::failed);
  EXPECT_EQ(std::count(printer.events.begin(), printer.events.end(), "end ok"), 2);
  EXPECT_EQ(std::count(printer.events.begin(), printer.events.end(), "end failed"), 1);
  EXPECT_EQ(printer.documents, 9u + 1u);  // after each of the 9 rounds, and the final one
  // The progress counts rounds over the run, never backwards although every other pass is reversed:
  // the total falls to 5 once "fail" has failed its first round, and grows as "mlp" and "jumpy" are
  // given their extra rounds, to the 9 rounds run.
  std::vector<std::string> starts;
  for (const auto& e : printer.events)
    if (e.rfind("start ", 0) == 0) starts.push_back(e.substr(6, e.find(' ', 6) - 6));
  EXPECT_EQ(starts, (std::vector<std::string>{"0/6", "1/6", "2/6", "3/5", "4/5", "5/6", "6/7", "7/8", "8/9"}));
  // In order, back to back: the same rounds, each case's together.
  RoundRecorder seq;
  RunResult run2;
  req.interleave_rounds = false;
  run_suite(req, run2, seq, parity, printer);
  EXPECT_EQ(seq.calls, (std::vector<std::string>{"mlp/cpu", "mlp/cpu", "mlp/cpu", "mlp/cpu", "jumpy/cpu", "jumpy/cpu",
                                                 "jumpy/cpu", "jumpy/cpu", "fail/cpu"}));
}

namespace {
// The times between one measurement's end and the next one's start, with --cooldown 0.05 s.
std::vector<double> gaps_between_measurements(bool rounds) {
  struct ClockMeasurer : RoundRecorder {
    std::vector<std::chrono::steady_clock::time_point> starts, ends;
    CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& p) override {
      starts.push_back(std::chrono::steady_clock::now());
      auto r = RoundRecorder::measure(spec, options, p);
      ends.push_back(std::chrono::steady_clock::now());
      return r;
    }
  } m;
  ScriptedParity parity;
  RecordingPrinter printer;
  RunResult run;
  SuiteRequest req;
  for (const auto* w : {"mlp", "cnn", "transformer"}) req.plan.cases.push_back(CaseSpec{w, "cpu", "float32", 64, 0});
  req.max_per_case_s = 30;
  req.cooldown_s = 0.05;
  if (rounds) req.rounds = RoundsPolicy{2, 2};
  run_suite(req, run, m, parity, printer);
  std::vector<double> gaps;
  for (std::size_t i = 1; i < m.starts.size(); ++i)
    gaps.push_back(std::chrono::duration<double>(m.starts[i] - m.ends[i - 1]).count());
  return gaps;
}
}  // namespace

// --cooldown pauses between every two measurements, cases measured whole or in rounds (a sleep
// never ends early: the lower bound holds on a loaded machine).
TEST(Suite, CooldownPausesBetweenEveryTwoMeasurements) {
  const auto whole = gaps_between_measurements(false);
  ASSERT_EQ(whole.size(), 2u);
  for (double g : whole) EXPECT_GE(g, 0.05);
  const auto in_rounds = gaps_between_measurements(true);
  ASSERT_EQ(in_rounds.size(), 5u);
  for (double g : in_rounds) EXPECT_GE(g, 0.05);
}

namespace {
// "slow": a 6 s step; each round takes 20 s (start-up, build, a warm-up step, one sample) and keeps
// one sample, fewer than the floor (3); "mid": 8 s rounds of two 1 s samples (another round needs
// 7 s); "mlp": 1 s rounds of 20 samples; "jumpy": 1 s rounds whose levels alternate (1.0, 1.2 ms:
// they disagree); "slow3": 3 s rounds that agree.
class SlowStepMeasurer : public CaseMeasurer {
 public:
  std::vector<std::string> calls;
  CaseResult measure(const CaseSpec& spec, const MeasureOptions&, const ProgressFn&) override {
    calls.push_back(spec.workload);
    CaseResult r;
    r.spec = spec;
    const auto& w = spec.workload;
    const bool slow = w == "slow", mid = w == "mid", startup = w == "startup";
    if (w == "jumpy" || w == "slow3") {
      const double level = w == "slow3" ? 1.0 : (std::count(calls.begin(), calls.end(), "jumpy") % 2 ? 1.0 : 1.2);
      for (int i = 0; i < 30; ++i) r.samples.push_back(0.001 * level * (1 + 0.0001 * (i % 3)));
    } else {
      r.samples = slow      ? std::vector<double>{6.0}
                  : mid     ? std::vector<double>{1.0, 1.0}
                  : startup ? std::vector<double>{0.002}  // a 2 ms step whose round went on start-up
                            : std::vector<double>(20, 0.001);
    }
    r.stats = summarize(r.samples);
    r.wall_s = slow ? 20.0 : mid ? 8.0 : w == "slow3" ? 3.0 : startup ? 4.0 : 1.0;
    r.measure_s = slow ? 6.0 : mid ? 2.0 : w == "mlp" ? 0.5 : startup ? 0.002 : 0.0;
    return r;
  }
};

struct NotePrinter : Printer {
  std::vector<std::string> notes;
  void note(const std::string& line) override { notes.push_back(line); }
  bool has(const std::string& text) const {
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
  }
};

// `workloads` on the CPU through run_suite with this budget, per-case limit and rounds policy.
RunResult run_on_cpu(CaseMeasurer& m, NotePrinter& printer, const std::vector<const char*>& workloads, double budget_s,
                     double max_per_case_s, RoundsPolicy rounds) {
  ScriptedParity parity;
  RunResult run;
  SuiteRequest req;
  for (const auto* w : workloads) req.plan.cases.push_back(CaseSpec{w, "cpu", "float32", 64, 0});
  req.budget_s = budget_s;
  req.max_per_case_s = max_per_case_s;
  req.rounds = rounds;
  run_suite(req, run, m, parity, printer);
  return run;
}
}  // namespace

// Time promises: a round that cannot fit what the budget leaves it (its last round's start-up, build
// and warm-up, and one sample) is not started; the case keeps the rounds it has, and the output says
// so, and says when a round took fewer samples than the floor because its step was too long.
TEST(Suite, ACaseWhoseNextRoundCannotFitStopsShortAndSaysSo) {
  SlowStepMeasurer m;
  NotePrinter printer;
  const auto run = run_on_cpu(m, printer, {"mlp", "slow"}, 40, 30, RoundsPolicy{2, 5});
  // Pass 2 starts with "slow": the budget leaves 19 s for 2 rounds (9.5 s), less than its 20 s round;
  // "mlp"'s rounds agree, and the time "slow" cannot use gives it two more (a range of its own).
  EXPECT_EQ(m.calls, (std::vector<std::string>{"mlp", "slow", "mlp", "mlp", "mlp"}));
  ASSERT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.cases[1].rounds.size(), 1u);
  EXPECT_TRUE(printer.has("slow on cpu: 1 of 2 rounds: another needs ~20")) << ::testing::PrintToString(printer.notes);
  // The case's own limit is what is short (30 s less its 20 s round), and the note names it.
  EXPECT_TRUE(printer.has("the case's 30.00 s (--max-time-per-case) leaves it 10.00 s; a larger --max-time-per-case"))
      << ::testing::PrintToString(printer.notes);
  EXPECT_TRUE(printer.has("slow on cpu: a step takes 6.000 s, too long")) << ::testing::PrintToString(printer.notes);
  EXPECT_TRUE(printer.has("1 sample in a round instead of 3")) << ::testing::PrintToString(printer.notes);
  EXPECT_FALSE(printer.has("mlp on cpu")) << ::testing::PrintToString(printer.notes);
}

// A round that took one sample of a 2 ms step: not the step's length but the round's start-up (a
// Python worker's import of torch, a device's start) took its time, and the note says so.
TEST(Suite, ARoundLeftNoTimeBySetUpSaysSoNotThatTheStepIsTooLong) {
  SlowStepMeasurer m;
  NotePrinter printer;
  run_on_cpu(m, printer, {"startup"}, 0, 4, RoundsPolicy{1, 1});
  EXPECT_TRUE(printer.has("startup on cpu: a step takes 2.000 ms, but its round's start-up, build and warm-up took 3.998 s "
                          "of the round's 4.000 s: 1 sample in a round instead of 3"))
      << ::testing::PrintToString(printer.notes);
  EXPECT_FALSE(printer.has("too long")) << ::testing::PrintToString(printer.notes);
}

// The budget's share a round cannot hold in one pass is not the end of the case: the round waits
// for a later pass, when the cases that finished early have left it their time.
TEST(Suite, ARoundTheBudgetCannotHoldYetWaitsForTheTimeOthersLeave) {
  SlowStepMeasurer m;
  NotePrinter printer;
  const auto run = run_on_cpu(m, printer, {"mlp", "slow"}, 60, 40, RoundsPolicy{2, 2});
  // Pass 2 starts with "slow": 39 s left for 2 rounds (19.5 s each) is short of its 20 s round, so
  // "mlp" goes first; pass 3 gives "slow" the 38 s left.
  EXPECT_EQ(m.calls, (std::vector<std::string>{"mlp", "slow", "mlp", "slow"}));
  ASSERT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.cases[1].rounds.size(), 2u);
  EXPECT_FALSE(printer.has("of 2 rounds")) << ::testing::PrintToString(printer.notes);
}

// When no case's next round fits its share, the costliest one ends with the rounds it has and the
// others share what is left, rather than every case ending at once.
TEST(Suite, WhenNoRoundFitsItsShareTheCostliestEndsAndTheOthersShareTheRest) {
  SlowStepMeasurer m;
  NotePrinter printer;
  const auto run = run_on_cpu(m, printer, {"mid", "slow"}, 40, 40, RoundsPolicy{2, 2});
  // Pass 2: 12 s left for 2 rounds (6 s each): neither "slow" (20 s) nor "mid" (7 s) fits; "slow"
  // ends, and pass 3 gives "mid" the 12 s.
  EXPECT_EQ(m.calls, (std::vector<std::string>{"mid", "slow", "mid"}));
  ASSERT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.cases[0].rounds.size(), 2u);
  EXPECT_EQ(run.cases[1].rounds.size(), 1u);
  EXPECT_TRUE(printer.has("slow on cpu: 1 of 2 rounds")) << ::testing::PrintToString(printer.notes);
  EXPECT_TRUE(printer.has("the budget leaves it 6.000 s; a larger --budget")) << ::testing::PrintToString(printer.notes);
  EXPECT_FALSE(printer.has("mid on cpu: 1 of 2 rounds")) << ::testing::PrintToString(printer.notes);
}


// An extra round for a case whose rounds disagree comes out of what the budget has left once the
// other cases' planned rounds are paid for, never out of their time.
TEST(Suite, ExtraRoundsNeverTakeTheTimeOfAnotherCasesPlannedRound) {
  SlowStepMeasurer m;
  NotePrinter printer;
  const auto run = run_on_cpu(m, printer, {"jumpy", "slow3"}, 9.5, 30, RoundsPolicy{2, 5});
  // Pass 2 (backwards): "slow3" waits (5.5 s left for two rounds), "jumpy" ends its planned rounds
  // and gets one extra round (1.5 s free beyond slow3's 3 s); pass 3: that round, then "slow3" with
  // the 3.5 s left. Extra rounds taken from slow3's time would leave it one round.
  EXPECT_EQ(m.calls, (std::vector<std::string>{"jumpy", "slow3", "jumpy", "jumpy", "slow3"}));
  ASSERT_EQ(run.cases.size(), 2u);
  EXPECT_EQ(run.cases[1].rounds.size(), 2u) << ::testing::PrintToString(printer.notes);
}

// Two rounds that agree give a next-run range only through t(1) = 12.7 or the fallback constant: a
// case whose time allows whole rounds gets up to four (3 degrees of freedom of its own), and not
// one it has no time for.
TEST(Suite, RoundsThatAgreeGoOnToFourWhereTheCaseHasTimeForThem) {
  SlowStepMeasurer roomy;
  NotePrinter printer;
  auto run = run_on_cpu(roomy, printer, {"slow3"}, 0, 30, RoundsPolicy{2, 5});
  ASSERT_EQ(run.cases.size(), 1u);
  EXPECT_EQ(run.cases[0].rounds.size(), 4u);  // not 5: they agree
  SlowStepMeasurer tight;
  run = run_on_cpu(tight, printer, {"slow3"}, 0, 8, RoundsPolicy{2, 5});  // 2 s left after two 3 s rounds
  EXPECT_EQ(run.cases[0].rounds.size(), 2u);
  SlowStepMeasurer fixed;
  run = run_on_cpu(fixed, printer, {"slow3"}, 0, 30, RoundsPolicy{2, 2});  // no more than the policy's most
  EXPECT_EQ(run.cases[0].rounds.size(), 2u);
}

TEST(Printers, JsonFilePrinterRewritesTheFileAndFanOutReachesEveryPrinter) {
  const auto path = std::filesystem::temp_directory_path() / "accelbench-printer-test.json";
  std::filesystem::remove(path);
  FanOutPrinter fan;
  fan.add(std::make_unique<JsonFilePrinter>(path.string()));
  auto recorder = std::make_unique<RecordingPrinter>();
  auto* rec = recorder.get();
  fan.add(std::move(recorder));
  fan.document(nlohmann::json{{"cases", nlohmann::json::array({1, 2})}});
  fan.document(nlohmann::json{{"cases", nlohmann::json::array({1, 2, 3})}});
  EXPECT_EQ(rec->documents, 2u);
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("cases").size(), 3u);
  std::filesystem::remove(path);
}

namespace {
// Rounds of a fixed length per case ("short" 1 s, "long" 3 s), each reporting progress once, half a
// second in.
class FixedRoundMeasurer : public CaseMeasurer {
 public:
  CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) override {
    if (progress) progress(ProgressEvent{&spec, "measure", 10, 0.01, 0.5, options.settings.stopping.max_time_s});
    CaseResult r;
    r.spec = spec;
    r.samples = std::vector<double>(20, 0.001);
    r.stats = summarize(r.samples);
    r.wall_s = spec.workload == "long" ? 3.0 : 1.0;
    r.measure_s = r.wall_s / 2;
    return r;
  }
};
}  // namespace

// The time left on the progress line comes from the rounds measured: once each case has a round,
// every round to come counts at its case's round time, the current one less its time so far.
TEST(Suite, TimeLeftComesFromTheRoundsMeasured) {
  FixedRoundMeasurer m;
  InterleavedRoundsPlan plan;
  plan.cases = {CaseSpec{"short", "cpu", "float32", 64, 0}, CaseSpec{"long", "cpu", "float32", 64, 0}};
  plan.policy = RoundsPolicy{3, 3};
  plan.max_per_case_s = 90;  // 30 s a round before anything is measured
  std::vector<std::pair<std::string, double>> seen;  // (stage, time left)
  InterleavedRoundsEvents events;
  events.progress = [&](std::size_t, const ProgressEvent& e, double left) { seen.emplace_back(e.stage, left); };
  measure_interleaved_rounds(plan, m, events);
  // Passes: short, long | long, short | short, long; two events a round (its start, then 0.5 s in).
  ASSERT_EQ(seen.size(), 12u);
  EXPECT_EQ(seen[0].first, "round 1/3");
  EXPECT_DOUBLE_EQ(seen[0].second, 30 + 2 * 30 + 3 * 30);  // nothing measured: each round its 30 s
  const std::vector<double> measured{3 + 1 + 3 + 1 - 0, 2.5 + 1 + 3 + 1,  // long round 2: at its start, 0.5 s in
                                     1 + 1 + 3, 0.5 + 1 + 3,              // short round 2
                                     1 + 3, 0.5 + 3,                      // short round 3
                                     3, 2.5};                             // long round 3
  for (std::size_t k = 0; k < measured.size(); ++k)
    EXPECT_NEAR(seen[4 + k].second, measured[k], 1e-9) << "event " << 4 + k << " (" << seen[4 + k].first << ")";
  // A budget caps it: never more than what is left of it.
  plan.budget_s = 6;
  seen.clear();
  measure_interleaved_rounds(plan, m, events);
  for (const auto& [stage, left] : seen) EXPECT_LE(left, 6.0) << stage;
}

// ---- the run driver (drivers/run_driver.h): the stages around the suite ------------------------

namespace {

// Every note in full (NotePrinter), and the report the run ends with.
struct RunNotesPrinter : NotePrinter {
  std::string report;
  void finished(const RunResult&, const std::string& text) override { report = text; }
};

// The scripted cases, each at `flops_per_s` (the share of a ceiling needs a FLOP rate).
struct FlopsMeasurer : ScriptedMeasurer {
  double flops_per_s = 0;
  CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) override {
    auto r = ScriptedMeasurer::measure(spec, options, progress);
    r.achieved_flops_per_s = flops_per_s;
    return r;
  }
};

struct DriverFixture {
  FlopsMeasurer measurer;
  ScriptedParity parity;
  RunNotesPrinter printer;
  TerminalPrinter terminal{false, false, "", Verbosity::kQuiet};
  std::vector<std::string> probed;  // the cases whose step was timed before measuring

  int drive(HistoryStore* store, const std::vector<std::string>& workloads, RunResult& run, const std::string& json = "") {
    run.context.timestamp_utc = "2025-06-01T10:00:00Z";
    run.context.host = "testhost";
    run.context.torch_version = "2.13.0";
    run.context.devices = {{"cuda:0", "cuda", "Scripted GPU", 0, std::nullopt}, {"cpu", "cpu", "Scripted CPU", -1, std::nullopt}};
    RunDriverRequest request{request_for(workloads), 1, Verbosity::kQuiet, json};
    const RunServices services{&measurer, &parity,
                               [&](const CaseSpec& c, const WorkloadInputs&) {
                                 probed.push_back(c.workload + " on " + c.device);
                                 return 0.001;
                               },
                               &printer, &terminal, store};
    return drive_run(request, run, services);
  }
  static SuiteRequest request_for(const std::vector<std::string>& workloads) { return request(workloads, 0, 0); }
};

std::string fresh_db(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("accelbench-run-driver-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return (dir / "h.db").string();
}

}  // namespace

TEST(RunDriver, ProbesTheCasesNewToTheHistoryMeasuresStoresAndSaysWhere) {
  const auto db = fresh_db("stores");
  HistoryStore store(db);
  DriverFixture f;
  RunResult run;
  EXPECT_EQ(f.drive(&store, {"mlp"}, run), 0);
  EXPECT_EQ(f.probed, (std::vector<std::string>{"mlp on cuda:0", "mlp on cpu"}));
  EXPECT_TRUE(f.printer.has("one step of each case new to the history timed first (2 of 2")) << f.printer.notes.size();
  EXPECT_TRUE(f.printer.has("stored as run 1 (uid ")) << f.printer.notes.size();
  EXPECT_EQ(store.list_runs().size(), 1u);
  EXPECT_EQ(run.cases.size(), 2u);
  EXPECT_FALSE(f.printer.report.empty());
  // A second run of the same cases: the history has their step times, so nothing is probed.
  DriverFixture again;
  RunResult second;
  EXPECT_EQ(again.drive(&store, {"mlp"}, second), 0);
  EXPECT_TRUE(again.probed.empty());
  EXPECT_TRUE(again.printer.has("stored as run 2 (uid "));
  std::filesystem::remove_all(std::filesystem::path(db).parent_path());
}

TEST(RunDriver, ARunTheHistoryDoesNotStoreEndsWithStatusOneAndSaysWhatHoldsIt) {
  const auto db = fresh_db("refused");
  ::setenv("ACCELBENCH_DB_WAIT", "0", 1);  // the store waits 0 s for a database another connection holds
  HistoryStore store(db);
  // Another connection holds the write lock: readers go on, the run cannot be written.
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  DriverFixture f;
  RunResult run;
  const int status = f.drive(&store, {"mlp"}, run, "run.json");
  ::unsetenv("ACCELBENCH_DB_WAIT");
  sqlite3_close(writer);
  EXPECT_EQ(status, 1);
  EXPECT_TRUE(f.printer.has("was not stored")) << f.printer.notes.back();
  EXPECT_TRUE(f.printer.has("; the tables and run.json still hold the run")) << f.printer.notes.back();
  EXPECT_EQ(run.cases.size(), 2u);  // measured, reported
  EXPECT_FALSE(f.printer.report.empty());
  std::filesystem::remove_all(std::filesystem::path(db).parent_path());
}

TEST(RunDriver, WithoutAHistoryNothingIsStoredAndAFailedCaseEndsWithStatusOne) {
  DriverFixture f;
  RunResult run;
  EXPECT_EQ(f.drive(nullptr, {"mlp"}, run), 0);
  EXPECT_FALSE(f.printer.has("stored as run"));
  EXPECT_FALSE(f.printer.has("no ceilings"));  // no history: no utilisation to look up
  EXPECT_EQ(f.probed.size(), 2u);                // no history: every case is new
  DriverFixture failing;
  RunResult failed;
  EXPECT_EQ(failing.drive(nullptr, {"fail", "mlp"}, failed), 1);
}

TEST(RunDriver, TheCeilingsOfEachDeviceGiveItsCasesTheirShareOrTheNoteSaysHowToMeasureThem) {
  const auto db = fresh_db("ceilings");
  HistoryStore store(db);
  DeviceCeilings gpu;  // the scripted GPU's float32 matmul ceiling, 100 TFLOP/s, for this torch
  gpu.device = "cuda:0";
  gpu.device_name = "Scripted GPU";
  gpu.torch_version = "2.13.0";
  gpu.ceilings = {Ceiling{CeilingKind::kMatmul, "float32", "4096 x 4096 x 4096", 3, 100e12, 100e12, 100e12, ""}};
  store.save_ceilings(gpu);
  DriverFixture f;
  f.measurer.flops_per_s = 25e12;
  RunResult run;
  EXPECT_EQ(f.drive(&store, {"mlp"}, run), 0);
  ASSERT_EQ(run.cases.size(), 2u);
  ASSERT_TRUE(run.cases[0].ceiling_share.has_value());  // cuda:0, against its stored float32 matmul
  EXPECT_NEAR(*run.cases[0].ceiling_share, 0.25, 1e-9);
  EXPECT_FALSE(run.cases[1].ceiling_share.has_value());
  EXPECT_TRUE(f.printer.has("no ceilings of cpu for torch 2.13.0 in the history, so no utilisation: `accelbench peak --device cpu`"));
  EXPECT_FALSE(f.printer.has("no ceilings of cuda:0"));
  std::filesystem::remove_all(std::filesystem::path(db).parent_path());
}
