#include "device/device.h"

#include <ATen/Context.h>
#include <ATen/DeviceAccelerator.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/DeviceType.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/errors.h"

namespace accelbench {

std::vector<DeviceDescription> list_devices() {
  std::vector<DeviceDescription> out;
  out.push_back(make_cpu_device()->description());
  if (auto acc = at::accelerator::getAccelerator(false)) {
    const int n = at::accelerator::deviceCount();
    for (int i = 0; i < n; ++i) out.push_back(make_accelerator_device(*acc, i)->description());
  }
  return out;
}

namespace {
std::string available_list() {
  std::vector<std::string> ids;
  for (const auto& d : list_devices()) ids.push_back(d.id);
  return fmt::format("{}", fmt::join(ids, ", "));
}
}  // namespace

std::unique_ptr<Device> open_device(std::string_view spec_view) {
  std::string spec(spec_view);
  std::transform(spec.begin(), spec.end(), spec.begin(), ::tolower);
  if (spec == "cpu") return make_cpu_device();
  c10::Device parsed(c10::kCPU);
  try {
    parsed = c10::Device(spec);
  } catch (const std::exception&) {
    throw UsageError(fmt::format("unknown device '{}'; available: {}", spec, available_list()));
  }
  const auto acc = at::accelerator::getAccelerator(false);
  if (!acc || *acc != parsed.type()) {
    // Say why: a backend this libtorch was built without needs another libtorch, not another flag.
    const std::string backend = c10::DeviceTypeName(parsed.type(), true);
    for (const auto& status : backend_status())
      if (status.name == backend && !status.available) {
        const bool not_built = status.detail.find("built without") != std::string::npos;
        throw UsageError(fmt::format("device '{}' is not available: {}; available: {}{}", spec, status.detail, available_list(),
                                     not_built ? fmt::format(". To measure on {}, build against a libtorch with it: make build "
                                                             "TORCH_PREFIX=/path/to/libtorch (README.md, Start)", backend)
                                               : ""));
      }
    throw UsageError(fmt::format("device '{}' is not available on this machine; available: {}", spec, available_list()));
  }
  const int index = parsed.has_index() ? parsed.index() : 0;
  if (index < 0 || index >= at::accelerator::deviceCount()) {
    throw UsageError(fmt::format("device '{}' is not available ({} has {} device(s)); available: {}", spec,
                                 c10::DeviceTypeName(parsed.type(), true), int(at::accelerator::deviceCount()),
                                 available_list()));
  }
  return make_accelerator_device(parsed.type(), index);
}

std::vector<std::string> resolve_device_list(std::string_view list) {
  std::vector<std::string> out;
  auto add = [&](const std::string& id) {
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  };
  std::string s(list);
  if (s.empty() || s == "all") {
    for (const auto& d : list_devices()) add(d.id);
    return out;
  }
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto comma = s.find(',', start);
    std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) throw UsageError(fmt::format("empty device name in '{}'", s));
    add(open_device(item)->id());  // validates and canonicalises ("cuda" -> "cuda:0")
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<BackendStatus> backend_status() {
  std::vector<BackendStatus> out;
  auto& ctx = at::globalContext();
  {
    BackendStatus b{"cuda", false, ""};
    if (!ctx.hasCUDA()) b.detail = "this libtorch was built without CUDA (a CPU-only wheel?)";
    else if (at::accelerator::deviceCount() == 0 ||
             at::accelerator::getAccelerator(false) != std::optional<c10::DeviceType>(c10::kCUDA))
      b.detail = "CUDA is compiled in but no device is visible (driver missing, CUDA_VISIBLE_DEVICES empty?)";
    else {
      b.available = true;
      b.detail = fmt::format("{} device(s)", int(at::accelerator::deviceCount()));
      try {
        const auto& hooks = at::detail::getCUDAHooks();
        const long rt = hooks.versionCUDART(), dnn = hooks.versionCuDNN();
        b.detail += fmt::format(", CUDA runtime {}.{}", rt / 1000, (rt % 1000) / 10);
        if (dnn > 0) b.detail += fmt::format(", cuDNN {}", dnn);
      } catch (const std::exception&) {
      }
    }
    out.push_back(b);
  }
  {
    BackendStatus b{"mps", false, ""};
#if defined(__APPLE__)
    if (!ctx.hasMPS()) b.detail = "MPS is not available (needs macOS 13+ on Apple silicon, and a libtorch built with MPS)";
    else { b.available = true; b.detail = "Apple GPU via Metal Performance Shaders"; }
#else
    b.detail = "MPS exists only on macOS";
#endif
    out.push_back(b);
  }
  {
    BackendStatus b{"xpu", ctx.hasXPU(), ctx.hasXPU() ? "Intel GPU" : "this libtorch was built without XPU"};
    out.push_back(b);
  }
  return out;
}

}  // namespace accelbench
