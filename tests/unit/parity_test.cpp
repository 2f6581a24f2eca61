// Numerical parity figures (core/parity.h) on known traces.
#include <gtest/gtest.h>

#include "core/parity.h"

namespace accelbench {
namespace {

TEST(Parity, RelativeDifferencesAtTheLastStepAndTheLargest) {
  const ParityTrace ref{{2.0, 1.0, 0.5}, 4.0, ""};
  const ParityTrace run{{2.0, 1.1, 0.505}, 4.4, ""};
  const auto p = make_parity(run, ref, "cpu float32");
  EXPECT_TRUE(p.error.empty());
  EXPECT_EQ(p.steps, 3);
  EXPECT_NEAR(p.loss_rel_diff, 0.01, 1e-12);
  EXPECT_NEAR(p.max_loss_rel_diff, 0.1, 1e-12);
  ASSERT_TRUE(p.grad_norm_rel_diff);
  EXPECT_NEAR(*p.grad_norm_rel_diff, 0.1, 1e-12);
  EXPECT_EQ(p.reference, "cpu float32");
  const auto text = describe_parity(p);
  EXPECT_NE(text.find("loss +1%"), std::string::npos) << text;
  EXPECT_NE(text.find("grad norm +10%"), std::string::npos) << text;
  EXPECT_NE(text.find("after 3 steps vs cpu float32"), std::string::npos) << text;
}

TEST(Parity, IdenticalRunsHaveZeroDifference) {
  const ParityTrace t{{0.7, 0.6}, 1.5, ""};
  const auto p = make_parity(t, t, "ref");
  EXPECT_EQ(p.loss_rel_diff, 0);
  EXPECT_EQ(p.max_loss_rel_diff, 0);
  EXPECT_EQ(*p.grad_norm_rel_diff, 0);
}

TEST(Parity, NonFiniteLossIsAnInfiniteDifference) {
  const auto p = make_parity({{0.7, NAN}, std::nullopt, ""}, {{0.7, 0.6}, 1.0, ""}, "ref");
  EXPECT_TRUE(std::isinf(p.loss_rel_diff));
  EXPECT_FALSE(p.grad_norm_rel_diff);  // the run has no gradient norm (a GAN)
}

TEST(Parity, AFailedRunOrReferenceCarriesTheError) {
  const auto a = make_parity({{}, std::nullopt, "out of memory: boom"}, {{1.0}, 1.0, ""}, "ref");
  EXPECT_EQ(a.error, "out of memory: boom");
  const auto b = make_parity({{1.0}, 1.0, ""}, {{}, std::nullopt, "NaN"}, "ref");
  EXPECT_EQ(b.error, "the reference run failed: NaN");
  EXPECT_EQ(describe_parity(b), "parity: the reference run failed: NaN");
  const auto c = make_parity({{}, std::nullopt, ""}, {{}, std::nullopt, ""}, "ref");
  EXPECT_EQ(c.error, "no training step to compare");
}

}  // namespace
}  // namespace accelbench

namespace accelbench {
namespace {
TEST(Parity, SkippedStepsAreCarriedAndSaid) {
  ParityTrace run{{1.0, 0.9}, 1.0, ""};
  run.skipped_steps = 1;
  const auto p = make_parity(run, {{1.0, 0.8}, 1.0, ""}, "cuda:0 float32");
  EXPECT_EQ(p.skipped_steps, 1);
  EXPECT_NE(describe_parity(p).find("loss scaling skipped 1 of the 2 optimizer steps"), std::string::npos) << describe_parity(p);
  Parity none = make_parity({{1.0}, 1.0, ""}, {{1.0}, 1.0, ""}, "x");
  EXPECT_EQ(describe_parity(none).find("skipped"), std::string::npos);
}
}  // namespace
}  // namespace accelbench
