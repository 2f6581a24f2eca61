#include "report/article_reference.h"

namespace accelbench {

const std::vector<ArticleFigure>& article_figures() {
  static const std::vector<ArticleFigure> figures{
      {"mlp", "simple fully connected (1 hidden layer, 1024)", "s", 42.3, 38.7, 1.09, 3},
      {"cnn", "medium CNN (3 conv, 2 FC)", "s", 183.5, 97.2, 1.89, 3},
      {"transformer", "Transformer (6-layer encoder)", "s", 654.8, 289.3, 2.26, 3},
      {"resnet18", "ResNet-18 on CIFAR-10", "s/epoch", 78, 42, 1.85, 6},
      {"bert-base", "BERT-base text classification", "s/epoch", 326, 148, 2.2, 6},
      {"dcgan", "DCGAN", "s/iteration", 0.45, 0.22, 2.04, 6},
  };
  return figures;
}

RunResult article_reference_run() {
  RunResult run;
  run.command = "reference";
  auto& c = run.context;
  c.accelbench_version = "-";
  c.git_commit = "-";
  c.timestamp_utc = "";
  c.host = "MacBook Pro M2 (10-core GPU, 16 GB unified memory)";
  c.os = "macOS";
  c.arch = "arm64";
  c.cpu_model = "Apple M2";
  c.memory_bytes = 16ull << 30;
  c.torch_version = "2.5.1";
  c.devices = {DeviceDescription{"cpu", "cpu", "Apple M2 CPU", -1, std::nullopt},
               DeviceDescription{"mps:0", "mps", "Apple M2 10-core GPU", 0, 16ull << 30}};
  c.settings = {{"published", true},
                {"name", kArticleRunName},
                {"source", "the article 'The performance truth of PyTorch on the Mac M2', sections 3 and 6"},
                {"method", "mean of 5 runs"},
                {"note", "no samples, no confidence intervals; dataset, epochs and batch size not stated"}};
  for (const auto& f : article_figures()) {
    for (const auto& [device, value] : {std::pair<std::string, double>{"cpu", f.cpu}, {"mps:0", f.mps}}) {
      CaseResult r;
      r.spec.workload = f.workload;
      r.spec.device = device;
      r.spec.batch_size = 0;  // not stated
      r.stats.median = r.stats.mean = r.stats.ci_low = r.stats.ci_high = value;
      r.stats.min = r.stats.max = r.stats.q1 = r.stats.q3 = value;
      r.epoch_s_estimate = value;
      r.epoch_unit = f.unit;
      r.data_source = "published in the article (not measured)";
      r.memory.source = "not published";
      run.cases.push_back(r);
    }
    run.speedups.push_back(Speedup{f.workload, "mps:0", "cpu", 0, "float32", f.speedup, f.speedup, f.speedup});
  }
  return run;
}

bool is_published_run(const RunResult& run) {
  const auto& s = run.context.settings;
  return s.is_object() && s.contains("published") && s["published"].is_boolean() && s["published"].get<bool>();
}

double article_speedup(const std::string& workload) {
  for (const auto& f : article_figures())
    if (f.workload == workload) return f.speedup;
  return 0;
}

}  // namespace accelbench
