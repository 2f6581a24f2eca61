#pragma once
// The article's own figures (MacBook Pro M2, 10-core GPU, 16 GB, PyTorch 2.5.1, mean of 5 runs) as a
// built-in reference run named "article-m2". They are published figures, not measurements: no
// samples, no confidence intervals; reports mark them so and put the user's speed-ups beside them.
#include <string>
#include <vector>

#include "core/results.h"

namespace accelbench {

inline constexpr const char* kArticleRunName = "article-m2";

struct ArticleFigure {
  std::string workload;  // accelbench's name where it has the workload (mlp, cnn, transformer)
  std::string label;     // the article's words
  std::string unit;      // "s" (training time), "s/epoch", "s/iteration"
  double cpu = 0, mps = 0, speedup = 0;
  int section = 0;       // of the article (3: measurements, 6: real cases)
};

const std::vector<ArticleFigure>& article_figures();

// The figures as a run: one case per (workload, device) with the published time as its median and
// epoch estimate, no samples; speed-ups as published; context.settings.published = true.
RunResult article_reference_run();

// True for a run of published figures (the built-in reference), not measurements.
bool is_published_run(const RunResult& run);

// The article's speed-up for a workload, or 0 when the article has none.
double article_speedup(const std::string& workload);

}  // namespace accelbench
