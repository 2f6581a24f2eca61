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
