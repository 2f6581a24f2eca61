#include "drivers/interleaved_rounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>

#include "core/plan.h"
#include "core/rounds.h"

namespace accelbench {

namespace {

// One case's rounds as they accumulate.
struct CaseRounds {
  std::vector<CaseResult> rounds;
  int planned = 1;
  double spent_s = 0;   // its rounds' wall time
  bool final = false;   // all planned rounds done (or failed, or out of time)

  int left() const { return final ? 0 : std::max(0, planned - static_cast<int>(rounds.size())); }
};

class InterleavedRounds {
 public:
  InterleavedRounds(const InterleavedRoundsPlan& plan, CaseMeasurer& each_round, const InterleavedRoundsEvents& events)
      : plan_(plan), each_round_(each_round), events_(events), cases_(plan.cases.size()) {
    for (auto& c : cases_) c.planned = std::max(1, plan.policy.rounds);
  }

  // Passes over the cases until no round is left. A round the budget's share cannot hold yet waits
  // for a later pass (the cases that finish early leave it theirs); after a pass in which no case
  // could measure, the case whose next round costs the most ends with the rounds it has, and the
  // others share what is left.
  std::vector<CaseResult> run() {
    for (int pass = 0; rounds_left() > 0; ++pass) {
      const std::size_t n = cases_.size();
      bool measured = false;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = pass % 2 == 0 ? k : n - 1 - k;  // every other pass in reverse
        if (cases_[i].left() > 0) measured = measure_round(i) || measured;
      }
      if (!measured) cut_costliest();
    }
    std::vector<CaseResult> out;
    for (const auto& c : cases_) out.push_back(merged(c));
    return out;
  }

 private:
  int rounds_left() const {
    int n = 0;
    for (const auto& c : cases_) n += c.left();
    return n;
  }

  CaseResult merged(const CaseRounds& c) const { return merge_rounds(c.rounds, plan_.options.settings.stopping.ci_target); }

  // The case's time left shared by its rounds left.
  double case_share(const CaseRounds& c) const {
    return std::max(0.0, plan_.max_per_case_s - c.spent_s) / static_cast<double>(std::max(1, c.left()));
  }

  // This round's time: the case's share, and no more than the run's budget left shared by every
  // round left.
  double allowance(const CaseRounds& c) const {
    return budget_share(plan_.budget_s, case_share(c), spent_s_, static_cast<std::size_t>(rounds_left()));
  }

  // The run's time left while case `current`'s round has run `elapsed_s` of its `allowed_s`
  // (InterleavedRoundsEvents::progress says how it is estimated).
  double time_left_s(std::size_t current, double elapsed_s, double allowed_s) const {
    double left = 0;
    for (std::size_t k = 0; k < cases_.size(); ++k) {
      const auto& c = cases_[k];
      int rounds = c.left();
      if (rounds <= 0) continue;
      const bool measured = !c.rounds.empty();
      const double per_round = measured ? c.spent_s / static_cast<double>(c.rounds.size()) : allowance(c);
      if (k == current) {
        left += std::max(0.0, (measured ? std::min(per_round, allowed_s) : allowed_s) - elapsed_s);
        --rounds;
      }
      left += std::max(0, rounds) * per_round;
    }
    if (plan_.budget_s > 0) left = std::min(left, std::max(0.0, plan_.budget_s - spent_s_ - elapsed_s));
    return left;
  }

  // What another round of the case costs at the least: its last round's start-up, build and warm-up
  // (all but the sampling) and one sample.
  static double least_round_s(const CaseResult& last) {
    const double sample_s = last.stats.median * std::max(1, last.steps_per_sample);
    return std::max(0.0, last.wall_s - last.measure_s) + sample_s;
  }

  // The case ends with the rounds it has: another would overrun its time or the budget.
  void cut(std::size_t i, double allowed) {
    auto& c = cases_[i];
    if (events_.rounds_cut && c.left() > 0 && !c.rounds.empty()) {
      const double least = least_round_s(c.rounds.back());
      const bool case_limit = case_share(c) < least;
      events_.rounds_cut(i, static_cast<int>(c.rounds.size()), c.planned, least, case_limit ? case_share(c) : allowed, case_limit);
    }
    finish(i);
  }

  // The budget left once every other case's planned rounds are paid for (each at its mean round
  // time so far, or what its round is allowed): what an extra round of case `i` may use, so that a
  // case whose rounds disagree never takes the time of another case's planned round. Without a
  // budget, unlimited.
  double budget_free_s(std::size_t i) const {
    if (plan_.budget_s <= 0) return std::numeric_limits<double>::infinity();
    double reserved = 0;
    for (std::size_t k = 0; k < cases_.size(); ++k) {
      const auto& c = cases_[k];
      if (k == i || c.left() == 0) continue;
      const double per_round = c.rounds.empty() ? allowance(c) : c.spent_s / static_cast<double>(c.rounds.size());
      reserved += c.left() * per_round;
    }
    return plan_.budget_s - spent_s_ - reserved;
  }

  void cut_costliest() {
    std::size_t costliest = cases_.size();
    double most = -1;
    for (std::size_t i = 0; i < cases_.size(); ++i) {
      const auto& c = cases_[i];
      if (c.left() == 0 || c.rounds.empty()) continue;
      if (const double cost = least_round_s(c.rounds.back()); cost > most) {
        most = cost;
        costliest = i;
      }
    }
    if (costliest < cases_.size()) return cut(costliest, allowance(cases_[costliest]));
    for (std::size_t i = 0; i < cases_.size(); ++i)  // none measured yet has rounds left: a guard
      if (cases_[i].left() > 0) cut(i, allowance(cases_[i]));
  }

  // Measures the case's next round; false when it waits for a later pass (the budget's share is
  // short now) or is cut (its own time is short).
  bool measure_round(std::size_t i) {
    auto& c = cases_[i];
    const double allowed = allowance(c);
    if (!c.rounds.empty() && (allowed <= 0 || allowed < least_round_s(c.rounds.back()))) {
      if (case_share(c) < least_round_s(c.rounds.back())) cut(i, allowed);
      return false;
    }
    if (measured_any_ && plan_.cooldown_s > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(plan_.cooldown_s));
    measured_any_ = true;
    auto options = plan_.options;
    options.settings.stopping.max_time_s = allowed;
    if (events_.round_started) events_.round_started(i, static_cast<int>(c.rounds.size()) + 1, c.planned, allowed);
    if (events_.progress) {  // a line at each round's start, whatever the measurer reports inside it
      const ProgressEvent start{&plan_.cases[i], fmt::format("round {}/{}", c.rounds.size() + 1, c.planned), 0, 0, 0, allowed};
      events_.progress(i, start, time_left_s(i, 0, allowed));
    }
    c.rounds.push_back(each_round_.measure(plan_.cases[i], options, [&](const ProgressEvent& e) {
      if (events_.progress) events_.progress(i, e, time_left_s(i, e.case_elapsed_s, allowed));
    }));
    c.spent_s += c.rounds.back().wall_s;
    spent_s_ += c.rounds.back().wall_s;
    if (!c.rounds.back().ok()) {
      finish(i);
    } else if (c.left() == 0) {
      if (wants_another_round(c.rounds, c.planned, plan_.policy, plan_.options.settings.stopping.ci_target, c.spent_s,
                              std::min(plan_.max_per_case_s - c.spent_s, budget_free_s(i))))
        ++c.planned;
      else
        finish(i);
    }
    if (events_.round_finished) {
      std::vector<CaseResult> so_far;
      for (const auto& x : cases_)
        if (!x.rounds.empty()) so_far.push_back(merged(x));
      events_.round_finished(so_far);
    }
    return true;
  }

  void finish(std::size_t i) {
    cases_[i].final = true;
    if (events_.case_finished) events_.case_finished(i, merged(cases_[i]));
  }

  const InterleavedRoundsPlan& plan_;
  CaseMeasurer& each_round_;
  const InterleavedRoundsEvents& events_;
  std::vector<CaseRounds> cases_;
  double spent_s_ = 0;
  bool measured_any_ = false;
};

}  // namespace

std::vector<CaseResult> measure_interleaved_rounds(const InterleavedRoundsPlan& plan, CaseMeasurer& each_round,
                                                   const InterleavedRoundsEvents& events) {
  return InterleavedRounds(plan, each_round, events).run();
}

}  // namespace accelbench
