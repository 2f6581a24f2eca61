#include "analysis/op_profile.h"

#include <fmt/format.h>

#include "core/durations.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace accelbench {

std::int64_t ProfileTensor::bytes() const {
  std::int64_t n = 1;
  for (auto s : sizes) n *= s;
  return n * element_size;
}

std::string fallback_op_from_warning(const std::string& message) {
  if (message.find("fall back to run on the CPU") == std::string::npos) return "";
  static const std::string kOpen = "operator '";
  const auto a = message.find(kOpen);
  if (a == std::string::npos) return "(unknown op)";
  const auto b = message.find('\'', a + kOpen.size());
  if (b == std::string::npos) return "(unknown op)";
  return message.substr(a + kOpen.size(), b - a - kOpen.size());
}

std::string memcpy_direction(const std::string& event_name) {
  if (event_name.rfind("Memcpy", 0) != 0) return "";
  auto rest = event_name.substr(6);
  rest.erase(0, rest.find_first_not_of(' '));
  const auto end = rest.find(' ');
  auto dir = rest.substr(0, end);
  return dir.empty() ? "unknown" : dir;
}

namespace {

bool is_aten(const std::string& name) { return name.rfind("aten::", 0) == 0; }

// Copies and conversions: an accelerator run moves data with these; they are not "CPU ops".
bool is_transfer_op(const std::string& name) {
  static const std::set<std::string> names{"aten::to",         "aten::_to_copy", "aten::copy_",     "aten::_to_cpu",
                                           "aten::_local_scalar_dense", "aten::item", "aten::pin_memory",
                                           "aten::_pin_memory", "aten::is_pinned", "aten::detach",   "detach"};
  return names.count(name) > 0;
}

std::string describe_inputs(const std::vector<ProfileTensor>& inputs) {
  std::string s;
  for (const auto& t : inputs) {
    if (!s.empty()) s += ", ";
    std::string dims;
    for (auto d : t.sizes) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    s += fmt::format("{}[{}] {}", t.dtype, dims, t.device);
  }
  return s;
}

}  // namespace

namespace {

// The aggregation of one capture, as named steps: the host tree, self times, the per-op rows, the
// device events credited to the op that launched them, the copies, the CPU ops of an accelerator
// run, and the ranking.
class ProfileAnalysis {
 public:
  explicit ProfileAnalysis(const ProfileCapture& c)
      : c_(c), ev_(c.events), n_(static_cast<int>(c.events.size())), parent_(c.events.size(), -1),
        self_(c.events.size(), 0) {}

  OpProfile run() {
    describe_capture();
    build_host_tree();
    compute_self_times();
    aggregate_host_ops();
    credit_device_events();
    collect_copies();
    if (accelerator_) find_cpu_ops();
    rank_ops();
    return std::move(p_);
  }

 private:
  bool valid(int i) const { return i >= 0 && i < n_; }
  // fn(j) for each proper ancestor of i; stops (and returns true) when fn returns true.
  template <class Fn>
  bool ancestors(int i, Fn&& fn) const {
    int guard = 0;
    for (int j = parent_[i]; j >= 0 && guard < n_; j = parent_[j], ++guard)
      if (fn(j)) return true;
    return false;
  }
  // The innermost aten op enclosing a host event (itself included), -1 when none.
  int aten_owner(int i) const {
    if (is_aten(ev_[i].name)) return i;
    int found = -1;
    ancestors(i, [&](int j) {
      if (!is_aten(ev_[j].name)) return false;
      found = j;
      return true;
    });
    return found;
  }

  void describe_capture() {
    p_.workload = c_.workload;
    p_.device = c_.device;
    p_.device_type = c_.device_type;
    p_.batch_size = c_.batch_size;
    p_.steps = c_.steps;
    p_.warmup_steps = c_.warmup_steps;
    p_.wall_ns = c_.wall_ns;
    p_.device_activity = c_.device_activity;
    p_.fallback_warnings = c_.fallback_warnings;
    p_.other_warnings = c_.other_warnings;
    p_.trace_path = c_.trace_path;
    accelerator_ = c_.device_type != "cpu";
    device_basis_ = accelerator_ && c_.device_activity;
    p_.share_basis = device_basis_ ? "device" : "self CPU";
    p_.other_host.name = "[other host events]";
  }

  // Host tree: parents that are host events; anything else is a root.
  void build_host_tree() {
    for (int i = 0; i < n_; ++i)
      if (!ev_[i].device_side && valid(ev_[i].parent) && ev_[i].parent != i && !ev_[ev_[i].parent].device_side)
        parent_[i] = ev_[i].parent;
  }

  // Self time: duration minus the host children's durations.
  void compute_self_times() {
    std::vector<double> child_sum(ev_.size(), 0);
    for (int i = 0; i < n_; ++i)
      if (!ev_[i].device_side && parent_[i] >= 0) child_sum[parent_[i]] += static_cast<double>(ev_[i].duration_ns);
    for (int i = 0; i < n_; ++i) {
      if (ev_[i].device_side) continue;
      self_[i] = std::max(0.0, static_cast<double>(ev_[i].duration_ns) - child_sum[i]);
      p_.host_self_ns += self_[i];
      if (parent_[i] < 0) p_.host_busy_ns += static_cast<double>(ev_[i].duration_ns);
    }
  }

  void aggregate_host_ops() {
    for (int i = 0; i < n_; ++i) {
      if (ev_[i].device_side) continue;
      OpRow& r = is_aten(ev_[i].name) ? rows_[ev_[i].name] : p_.other_host;
      if (is_aten(ev_[i].name)) r.name = ev_[i].name;
      r.calls += 1;
      r.self_cpu_ns += self_[i];
      const bool nested_same = ancestors(i, [&](int j) { return ev_[j].name == ev_[i].name; });
      if (!nested_same) r.total_cpu_ns += static_cast<double>(ev_[i].duration_ns);
    }
  }

  // The host event that launched device event i: its parent, or the one with its correlation id.
  int launcher_of(int i, const std::unordered_map<std::uint64_t, int>& by_correlation) const {
    if (valid(ev_[i].parent) && !ev_[ev_[i].parent].device_side) return ev_[i].parent;
    if (ev_[i].correlation_id == 0) return -1;
    const auto it = by_correlation.find(ev_[i].correlation_id);
    return it == by_correlation.end() ? -1 : it->second;
  }

  // Device events: credited to the innermost aten op around their launch.
  void credit_device_events() {
    std::unordered_map<std::uint64_t, int> by_correlation;
    for (int i = 0; i < n_; ++i)
      if (!ev_[i].device_side && ev_[i].correlation_id != 0) by_correlation.emplace(ev_[i].correlation_id, i);
    std::map<std::string, DeviceCopyRow> dcopies;
    double device_busy = 0;
    for (int i = 0; i < n_; ++i) {
      if (!ev_[i].device_side) continue;
      const double d = static_cast<double>(ev_[i].duration_ns);
      device_busy += d;
      const int launcher = launcher_of(i, by_correlation);
      const int owner = launcher >= 0 ? aten_owner(launcher) : -1;
      OpRow& r = owner >= 0 ? rows_[ev_[owner].name] : p_.other_host;
      if (owner >= 0) r.name = ev_[owner].name;
      r.device_ns += d;
      r.device_events += 1;
      const auto dir = memcpy_direction(ev_[i].name);
      if (dir.empty()) continue;
      auto& dc = dcopies[dir];
      dc.direction = dir;
      dc.count += 1;
      dc.device_ns += d;
      if (ev_[i].bytes >= 0) dc.bytes = (dc.bytes < 0 ? 0 : dc.bytes) + ev_[i].bytes;
    }
    if (c_.device_activity) p_.device_busy_ns = device_busy;
    for (auto& [_, dc] : dcopies) p_.device_copies.push_back(dc);
  }

  // Host<->device copies, from the copy ops' inputs.
  void collect_copies() {
    std::map<std::string, CopyRow> copies;
    auto add_copy = [&](const std::string& dir, std::int64_t bytes, double ns) {
      auto& r = copies[dir];
      r.direction = dir;
      r.count += 1;
      r.bytes += bytes;
      r.host_ns += ns;
    };
    for (int i = 0; i < n_; ++i) {
      if (ev_[i].device_side) continue;
      const auto& in = ev_[i].inputs;
      const double d = static_cast<double>(ev_[i].duration_ns);
      if (ev_[i].name == "aten::copy_" && in.size() >= 2) {
        const auto& dst = in[0];
        const auto& src = in[1];
        if (dst.device == src.device) continue;
        if (ancestors(i, [&](int j) { return ev_[j].name == "aten::copy_"; })) continue;  // counted at the outer copy
        const std::string dir = src.on_cpu() && !dst.on_cpu()   ? "host-to-device"
                                : !src.on_cpu() && dst.on_cpu() ? "device-to-host"
                                : !src.on_cpu() && !dst.on_cpu() ? "device-to-device"
                                                                : "host-to-host";
        add_copy(dir, src.bytes(), d);
      } else if (ev_[i].name == "aten::_local_scalar_dense" && !in.empty() && !in[0].on_cpu()) {
        add_copy("device-to-host", in[0].element_size, d);  // .item(): one element, and a device sync
      }
    }
    for (const std::string dir : {"host-to-device", "device-to-host", "device-to-device", "host-to-host"})
      if (copies.count(dir)) p_.copies.push_back(copies[dir]);
  }

  // Ops that ran on the CPU during an accelerator run: all tensor inputs on the CPU (outermost only).
  void find_cpu_ops() {
    std::vector<char> cpu_op(ev_.size(), 0);
    for (int i = 0; i < n_; ++i) {
      if (ev_[i].device_side || !is_aten(ev_[i].name) || is_transfer_op(ev_[i].name) || ev_[i].inputs.empty()) continue;
      cpu_op[i] = std::all_of(ev_[i].inputs.begin(), ev_[i].inputs.end(), [](const ProfileTensor& t) { return t.on_cpu(); });
    }
    std::map<std::string, CpuOpRow> cpu_rows;
    for (int i = 0; i < n_; ++i) {
      if (!cpu_op[i] || ancestors(i, [&](int j) { return cpu_op[j] != 0; })) continue;
      auto& r = cpu_rows[ev_[i].name];
      if (r.calls == 0) r.example_inputs = describe_inputs(ev_[i].inputs);
      r.name = ev_[i].name;
      r.calls += 1;
      r.host_ns += static_cast<double>(ev_[i].duration_ns);
    }
    for (auto& [_, r] : cpu_rows) p_.cpu_ops.push_back(r);
    std::sort(p_.cpu_ops.begin(), p_.cpu_ops.end(), [](const CpuOpRow& a, const CpuOpRow& b) {
      return a.host_ns != b.host_ns ? a.host_ns > b.host_ns : a.name < b.name;
    });
    // The MPS fallback moves the inputs with aten::_to_cpu inside the op that falls back.
    for (int i = 0; i < n_; ++i)
      if (!ev_[i].device_side && ev_[i].name == "aten::_to_cpu" && parent_[i] >= 0) {
        const int owner = aten_owner(parent_[i]);
        if (owner >= 0) p_.fallback_suspects[ev_[owner].name] += 1;
      }
  }

  // Shares of the wall time, on the device's time where it was recorded, and the order of the table.
  void rank_ops() {
    for (auto& [_, r] : rows_) p_.ops.push_back(r);
    auto basis = [&](const OpRow& r) { return device_basis_ ? r.device_ns : r.self_cpu_ns; };
    for (auto& r : p_.ops) r.share = p_.wall_ns > 0 ? basis(r) / p_.wall_ns : 0;
    p_.other_host.share = p_.wall_ns > 0 ? basis(p_.other_host) / p_.wall_ns : 0;
    std::sort(p_.ops.begin(), p_.ops.end(), [&](const OpRow& a, const OpRow& b) {
      if (basis(a) != basis(b)) return basis(a) > basis(b);
      if (a.self_cpu_ns != b.self_cpu_ns) return a.self_cpu_ns > b.self_cpu_ns;
      return a.name < b.name;
    });
  }

  const ProfileCapture& c_;
  const std::vector<ProfileEvent>& ev_;
  const int n_;
  std::vector<int> parent_;
  std::vector<double> self_;
  std::map<std::string, OpRow> rows_;
  OpProfile p_;
  bool accelerator_ = false;
  bool device_basis_ = false;
};

}  // namespace

OpProfile analyze_profile(const ProfileCapture& c) { return ProfileAnalysis(c).run(); }

nlohmann::json profile_to_json(const OpProfile& p, std::size_t top) {
  auto ms = [](double ns) { return ns * 1e-6; };
  auto row = [&](const OpRow& r) {
    nlohmann::json j{{"name", r.name},           {"calls", r.calls},
                     {"self_cpu_ms", ms(r.self_cpu_ns)}, {"total_cpu_ms", ms(r.total_cpu_ns)},
                     {"device_events", r.device_events}, {"share", r.share}};
    j["device_ms"] = p.device_activity ? nlohmann::json(ms(r.device_ns)) : nlohmann::json(nullptr);
    return j;
  };
  nlohmann::json ops = nlohmann::json::array();
  for (std::size_t i = 0; i < p.ops.size() && (top == 0 || i < top); ++i) ops.push_back(row(p.ops[i]));
  nlohmann::json copies = nlohmann::json::array();
  for (const auto& c : p.copies)
    copies.push_back({{"direction", c.direction}, {"count", c.count}, {"bytes", c.bytes}, {"host_ms", ms(c.host_ns)}});
  nlohmann::json dcopies = nlohmann::json::array();
  for (const auto& c : p.device_copies)
    dcopies.push_back({{"direction", c.direction},
                       {"count", c.count},
                       {"bytes", c.bytes >= 0 ? nlohmann::json(c.bytes) : nlohmann::json(nullptr)},
                       {"device_ms", ms(c.device_ns)}});
  nlohmann::json cpu_ops = nlohmann::json::array();
  for (const auto& r : p.cpu_ops)
    cpu_ops.push_back({{"name", r.name}, {"calls", r.calls}, {"host_ms", ms(r.host_ns)}, {"example_inputs", r.example_inputs}});
  nlohmann::json j{
      {"kind", "accelbench.profile"},
      {"version", 1},
      {"workload", p.workload},
      {"device", p.device},
      {"device_type", p.device_type},
      {"batch_size", p.batch_size},
      {"steps", p.steps},
      {"warmup_steps", p.warmup_steps},
      {"times", "milliseconds summed over the profiled steps (divide by steps for per step)"},
      {"wall_ms", ms(p.wall_ns)},
      {"host_busy_ms", ms(p.host_busy_ns)},
      {"device_busy_ms", p.device_busy_ns ? nlohmann::json(ms(*p.device_busy_ns)) : nlohmann::json(nullptr)},
      {"device_activity", p.device_activity},
      {"share_basis", p.share_basis},
      {"ops_total", p.ops.size()},
      {"ops", ops},
      {"other_host", row(p.other_host)},
      {"copies", copies},
      {"device_copies", dcopies},
      {"cpu_ops", cpu_ops},
      {"fallback_warnings", p.fallback_warnings},
      {"fallback_suspects", p.fallback_suspects},
      {"other_warnings", p.other_warnings},
      {"trace", p.trace_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.trace_path)}};
  return j;
}

}  // namespace accelbench
