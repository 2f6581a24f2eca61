// The op-profile aggregation on synthetic events with known answers (no torch, no profiler).
#include <gtest/gtest.h>

#include "analysis/op_profile.h"
#include "report/profile_table.h"

using namespace accelbench;

namespace {

ProfileEvent host(const std::string& name, std::int64_t dur, int parent = -1, std::vector<ProfileTensor> inputs = {},
                  std::uint64_t corr = 0) {
  ProfileEvent e;
  e.name = name;
  e.duration_ns = dur;
  e.parent = parent;
  e.inputs = std::move(inputs);
  e.correlation_id = corr;
  return e;
}

ProfileEvent dev(const std::string& name, std::int64_t dur, int parent = -1, std::uint64_t corr = 0, std::int64_t bytes = -1) {
  auto e = host(name, dur, parent, {}, corr);
  e.device_side = true;
  e.bytes = bytes;
  return e;
}

ProfileTensor tensor(const std::string& device, std::vector<std::int64_t> sizes, std::int64_t element_size = 4,
                     const std::string& dtype = "Float") {
  return ProfileTensor{device, dtype, std::move(sizes), element_size};
}

const OpRow* find(const OpProfile& p, const std::string& name) {
  for (const auto& r : p.ops)
    if (r.name == name) return &r;
  return nullptr;
}

// A CPU run of two steps: linear (addmm, t), relu (clamp_min), an autograd node (two mm), linear again.
ProfileCapture cpu_capture() {
  ProfileCapture c;
  c.workload = "mlp";
  c.device = "cpu";
  c.device_type = "cpu";
  c.batch_size = 64;
  c.steps = 2;
  c.warmup_steps = 1;
  c.wall_ns = 250;
  c.events = {
      host("aten::linear", 100),                                  // 0
      host("aten::addmm", 70, 0),                                 // 1
      host("aten::t", 10, 0),                                     // 2
      host("aten::relu", 20),                                     // 3
      host("aten::clamp_min", 15, 3),                             // 4
      host("autograd::engine::evaluate_function: AddmmBackward0", 50),  // 5
      host("aten::mm", 30, 5),                                    // 6
      host("aten::mm", 10, 5),                                    // 7
      host("aten::linear", 40),                                   // 8
      host("aten::addmm", 30, 8),                                 // 9
  };
  return c;
}

}  // namespace

TEST(OpProfile, SelfTimeIsDurationMinusHostChildren) {
  const auto p = analyze_profile(cpu_capture());
  ASSERT_EQ(p.ops.size(), 6u);
  // Sorted by self CPU time, descending.
  EXPECT_EQ(p.ops[0].name, "aten::addmm");
  EXPECT_DOUBLE_EQ(p.ops[0].self_cpu_ns, 100);
  EXPECT_EQ(p.ops[0].calls, 2);
  EXPECT_DOUBLE_EQ(p.ops[0].share, 0.4);  // 100 of 250 ns wall
  EXPECT_EQ(p.ops[1].name, "aten::mm");
  EXPECT_DOUBLE_EQ(p.ops[1].self_cpu_ns, 40);
  EXPECT_EQ(p.ops[2].name, "aten::linear");
  EXPECT_DOUBLE_EQ(p.ops[2].self_cpu_ns, 30);  // (100 - 80) + (40 - 30)
  EXPECT_DOUBLE_EQ(p.ops[2].total_cpu_ns, 140);
  EXPECT_EQ(p.ops[3].name, "aten::clamp_min");
  EXPECT_EQ(p.ops[4].name, "aten::t");
  EXPECT_EQ(p.ops[5].name, "aten::relu");
  EXPECT_DOUBLE_EQ(p.ops[5].self_cpu_ns, 5);
  // The autograd node is not an aten op: its self time goes to the "other" row.
  EXPECT_EQ(p.other_host.calls, 1);
  EXPECT_DOUBLE_EQ(p.other_host.self_cpu_ns, 10);
  // Totals: busy = sum of roots; the self times add up to it.
  EXPECT_DOUBLE_EQ(p.host_busy_ns, 210);
  EXPECT_DOUBLE_EQ(p.host_self_ns, 210);
  EXPECT_FALSE(p.device_busy_ns.has_value());
  EXPECT_EQ(p.share_basis, "self CPU");
  EXPECT_TRUE(p.copies.empty());
  EXPECT_TRUE(p.cpu_ops.empty());  // a CPU run has no "ops on the CPU" section
}

TEST(OpProfile, NestedCallsOfTheSameOpCountOnceInTotal) {
  ProfileCapture c = cpu_capture();
  c.events = {host("aten::copy_", 50), host("aten::copy_", 30, 0)};
  const auto p = analyze_profile(c);
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops[0].calls, 2);
  EXPECT_DOUBLE_EQ(p.ops[0].self_cpu_ns, 50);  // 20 + 30
  EXPECT_DOUBLE_EQ(p.ops[0].total_cpu_ns, 50);
}

TEST(OpProfile, AcceleratorRunCreditsKernelsCopiesAndCpuOps) {
  ProfileCapture c;
  c.workload = "mlp";
  c.device = "cuda:0";
  c.device_type = "cuda";
  c.steps = 1;
  c.wall_ns = 200;
  c.device_activity = true;
  c.events = {
      host("aten::to", 50, -1, {tensor("cpu", {64, 10})}),                                      // 0
      host("aten::_to_copy", 48, 0, {tensor("cpu", {64, 10})}),                                 // 1
      host("aten::copy_", 40, 1, {tensor("cuda:0", {64, 10}), tensor("cpu", {64, 10})}),        // 2: H2D, 2560 B
      host("cudaMemcpyAsync", 30, 2, {}, 7),                                                    // 3
      dev("Memcpy HtoD (Pageable -> Device)", 5, -1, 7, 2560),                                  // 4: via correlation 7
      host("aten::mm", 20, -1, {tensor("cuda:0", {64, 10}), tensor("cuda:0", {10, 10})}),       // 5
      host("cudaLaunchKernel", 8, 5, {}, 9),                                                    // 6
      dev("ampere_sgemm_32x32", 100, 6, 9),                                                     // 7: launched by 6
      host("aten::add", 10, -1, {tensor("cpu", {1}), tensor("cpu", {1})}),                      // 8: a CPU op
      host("aten::_local_scalar_dense", 12, -1, {tensor("cuda:0", {})}),                        // 9: .item(), D2H 4 B
      dev("orphan_kernel", 3),                                                                  // 10: launcher unknown
      host("aten::foo", 30, -1, {tensor("cuda:0", {8})}),                                       // 11
      host("aten::_to_cpu", 10, 11, {tensor("cuda:0", {8})}),                                   // 12: fallback pattern
  };
  const auto p = analyze_profile(c);
  EXPECT_EQ(p.share_basis, "device");
  ASSERT_TRUE(p.device_busy_ns.has_value());
  EXPECT_DOUBLE_EQ(*p.device_busy_ns, 108);
  ASSERT_GE(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[0].name, "aten::mm");
  EXPECT_DOUBLE_EQ(p.ops[0].device_ns, 100);
  EXPECT_EQ(p.ops[0].device_events, 1);
  EXPECT_DOUBLE_EQ(p.ops[0].share, 0.5);
  EXPECT_DOUBLE_EQ(p.ops[0].self_cpu_ns, 12);  // 20 - 8 (the launch is a host child)
  EXPECT_EQ(p.ops[1].name, "aten::copy_");
  EXPECT_DOUBLE_EQ(p.ops[1].device_ns, 5);
  EXPECT_DOUBLE_EQ(find(p, "aten::add")->device_ns, 0);
  EXPECT_DOUBLE_EQ(p.other_host.device_ns, 3);  // the orphan kernel
  // Host time: roots 0, 5, 8, 9, 11.
  EXPECT_DOUBLE_EQ(p.host_busy_ns, 50 + 20 + 10 + 12 + 30);
  EXPECT_DOUBLE_EQ(p.host_self_ns, p.host_busy_ns);
  // Copies from the ops' inputs.
  ASSERT_EQ(p.copies.size(), 2u);
  EXPECT_EQ(p.copies[0].direction, "host-to-device");
  EXPECT_EQ(p.copies[0].count, 1);
  EXPECT_EQ(p.copies[0].bytes, 64 * 10 * 4);
  EXPECT_EQ(p.copies[1].direction, "device-to-host");
  EXPECT_EQ(p.copies[1].count, 1);
  EXPECT_EQ(p.copies[1].bytes, 4);
  // Copies seen on the device.
  ASSERT_EQ(p.device_copies.size(), 1u);
  EXPECT_EQ(p.device_copies[0].direction, "HtoD");
  EXPECT_EQ(p.device_copies[0].bytes, 2560);
  EXPECT_DOUBLE_EQ(p.device_copies[0].device_ns, 5);
  // The only op with all inputs on the CPU (aten::to / _to_copy are transfers, not CPU ops).
  ASSERT_EQ(p.cpu_ops.size(), 1u);
  EXPECT_EQ(p.cpu_ops[0].name, "aten::add");
  EXPECT_EQ(p.cpu_ops[0].example_inputs, "Float[1] cpu, Float[1] cpu");
  ASSERT_EQ(p.fallback_suspects.size(), 1u);
  EXPECT_EQ(p.fallback_suspects.at("aten::foo"), 1);
}

TEST(OpProfile, OnlyTheOutermostCpuOpIsListed) {
  ProfileCapture c;
  c.device = "mps:0";
  c.device_type = "mps";
  c.steps = 1;
  c.wall_ns = 100;
  c.events = {host("aten::linear", 40, -1, {tensor("cpu", {2, 2})}), host("aten::addmm", 30, 0, {tensor("cpu", {2, 2})})};
  const auto p = analyze_profile(c);
  EXPECT_EQ(p.share_basis, "self CPU");  // MPS: no device activity recorded
  EXPECT_FALSE(p.device_busy_ns.has_value());
  ASSERT_EQ(p.cpu_ops.size(), 1u);
  EXPECT_EQ(p.cpu_ops[0].name, "aten::linear");
  EXPECT_DOUBLE_EQ(p.cpu_ops[0].host_ns, 40);
}

TEST(OpProfile, FallbackWarningsAndMemcpyNames) {
  EXPECT_EQ(fallback_op_from_warning("The operator 'aten::_linalg_svd.U' is not currently supported on the MPS backend and "
                                     "will fall back to run on the CPU. This may have performance implications."),
            "aten::_linalg_svd.U");
  EXPECT_EQ(fallback_op_from_warning("some other warning"), "");
  EXPECT_EQ(fallback_op_from_warning("will fall back to run on the CPU"), "(unknown op)");
  EXPECT_EQ(memcpy_direction("Memcpy HtoD (Pageable -> Device)"), "HtoD");
  EXPECT_EQ(memcpy_direction("Memcpy DtoH (Device -> Pinned)"), "DtoH");
  EXPECT_EQ(memcpy_direction("Memset (Device)"), "");
  EXPECT_EQ(memcpy_direction("volta_sgemm"), "");
}

TEST(OpProfile, TableAndJson) {
  auto c = cpu_capture();
  c.fallback_warnings = {};
  const auto p = analyze_profile(c);
  const auto table = render_profile_table(p, 2);
  EXPECT_NE(table.find("aten::addmm"), std::string::npos) << table;
  EXPECT_NE(table.find("aten::mm"), std::string::npos);
  EXPECT_EQ(table.find("aten::linear "), std::string::npos) << "only the top 2 ops";
  EXPECT_NE(table.find("[4 more aten ops]"), std::string::npos) << table;
  EXPECT_NE(table.find("n/a"), std::string::npos) << "a CPU run has no device time";
  EXPECT_NE(table.find("% of step"), std::string::npos);
  const auto j = profile_to_json(p, 2);
  EXPECT_EQ(j["kind"], "accelbench.profile");
  EXPECT_EQ(j["ops"].size(), 2u);
  EXPECT_EQ(j["ops_total"], 6);
  EXPECT_EQ(j["ops"][0]["name"], "aten::addmm");
  EXPECT_DOUBLE_EQ(j["ops"][0]["self_cpu_ms"].get<double>(), 100e-6);
  EXPECT_TRUE(j["ops"][0]["device_ms"].is_null());
  EXPECT_TRUE(j["device_busy_ms"].is_null());
  EXPECT_EQ(profile_to_json(p, 0)["ops"].size(), 6u);
}
