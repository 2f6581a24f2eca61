#pragma once
// Numbers that hold from one run to the next: statistics of samples grouped in rounds, each round a
// separate process run (its own allocator state, clocks, placement...), whose level differs from
// the other rounds' by more than the samples within a round vary. What a fresh run would be centred
// on is the population level of rounds, so its uncertainty is driven by the number of rounds R, not
// the number of samples: "add rounds, not samples".
//
// Two levels of resampling (the hierarchical bootstrap): rounds with replacement, then samples
// within each chosen round, the statistic being the median of the pooled resample. Its percentile
// interval is reported (bootstrap_low/high) but is NOT the headline interval: with few rounds it
// undercovers badly (simulated R = 3: 73% for a 95% interval, R = 5: 87%; rounds' level sd 5%,
// within 2%), because resampling R values cannot show the spread of a population it barely saw.
//
// Two small-sample intervals on the rounds' medians, in log space, with s = sd(log round medians)
// and Student's t with R - 1 degrees of freedom:
// - the level's (level_low/high): pooled median +- t s / sqrt(R), the confidence interval of the
//   level a fresh run is centred on (simulated coverage 93.7% to 95.6% for R = 3..12, whether the
//   between-round or the within-round variation dominates);
// - the headline (low/high): pooled median +- t s sqrt(1/R + 1/R), a prediction interval for the
//   median that the NEXT run of R rounds will report. That is what a user checks ("run it again"):
//   the next run's median carries its own rounds' variation as well as this run's, so an interval
//   for the level alone holds the next run's median in only 87-89% of simulated runs (R = 3, 5).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace accelbench {

// Sample sd of log(x), x positive (0 for fewer than two values).
double sd_log(const std::vector<double>& x);

// samples[r]: the per-step samples of round r (seconds, or any positive figure).
struct Rounds {
  std::vector<std::vector<double>> samples;
};

struct HierarchicalEstimate {
  double median = 0;           // median of all samples pooled
  double low = 0, high = 0;    // the headline: where the next run's median falls (see the file's comment)
  double level_low = 0, level_high = 0;  // the confidence interval of the level (see the file's comment)
  double confidence = 0;
  std::size_t rounds = 0;      // non-empty rounds used
  std::vector<double> round_medians;
  // Between-round dispersion: sample sd of the log round medians (~ the relative sd of the rounds'
  // level), and the rounds' relative range (max - min) / median of the round medians.
  double between_round_sd_log = 0;
  double between_round_range_relative = 0;
  // The two-level bootstrap: percentile interval and the sd of log(replicate), for reference.
  double bootstrap_low = 0, bootstrap_high = 0, bootstrap_sd_log = 0;
  std::string method;          // how low/high were computed, in words

  double ci_half_width_relative() const;  // (high - low) / 2 / median
};

// The pooled median of `rounds` with a `confidence` interval for the level a fresh run would be
// centred on. Empty rounds are ignored; throws std::invalid_argument when no sample is left or a
// sample is not positive (the interval is built in log space). With one round there is no
// between-round information: low/high are the within-round bootstrap percentile interval, and
// `method` says that it ignores how runs differ.
HierarchicalEstimate median_ci_hierarchical(const Rounds& rounds, double confidence = 0.95, int resamples = 1000,
                                            std::uint64_t seed = 12345);

struct HierarchicalRatio {
  double ratio = 0, low = 0, high = 0;  // pooled median(numerator) / pooled median(denominator); low/high:
                                        // where the next run's ratio falls (prediction interval)
  double level_low = 0, level_high = 0; // the confidence interval of the ratio of the levels
  double confidence = 0;
  double dof = 0;                       // Welch-Satterthwaite degrees of freedom of the interval
  double bootstrap_low = 0, bootstrap_high = 0;
  std::string method;
};

// A speed-up from rounds on both sides (e.g. CPU rounds over accelerator rounds), both resampled
// the same two-level way for the bootstrap figures. The level's interval is Welch's on the log
// round medians: log ratio +- t_{dof} * sqrt(s_n^2 / R_n + s_d^2 / R_d); the headline, for the next
// run's ratio, doubles each variance (the next run's rounds vary as much as these). Each side needs
// >= 2 rounds for them; with fewer, both are the bootstrap percentile interval (method says so).
HierarchicalRatio ratio_of_medians_hierarchical(const Rounds& numerator, const Rounds& denominator,
                                                double confidence = 0.95, int resamples = 1000,
                                                std::uint64_t seed = 12345);

// For the adaptive stopping: do the rounds disagree by more than the precision asked for?
struct RoundsAgreement {
  double between_half_width_relative = 0;  // the hierarchical interval's half-width / median
  double within_half_width_relative = 0;   // the widest round's own median CI half-width / its median
  bool rounds_disagree = false;  // between-round interval wider than the target
  bool add_rounds = false;       // ... while the rounds themselves are precise: more samples won't help
  std::string advice;            // one line for people
};
// `ci_target`: the wanted half-width of the interval relative to the median (e.g. 0.02).
// `hierarchical`: median_ci_hierarchical(rounds) for the same rounds (reused, not recomputed).
RoundsAgreement rounds_agreement(const Rounds& rounds, const HierarchicalEstimate& hierarchical, double ci_target);

}  // namespace accelbench
