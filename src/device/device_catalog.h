#pragma once
// What devices and backends this libtorch has, without torch in the header (the CLI asks through
// it): the device list, "all" or a comma list resolved to canonical ids, and per backend whether it
// is usable and why not. Implemented in device/device.cpp.
#include <string>
#include <string_view>
#include <vector>

#include "core/results.h"

namespace accelbench {

// The CPU first, then every accelerator device libtorch can see.
std::vector<DeviceDescription> list_devices();

// Parses a comma-separated device list; "all" (or empty) means the CPU and every accelerator.
std::vector<std::string> resolve_device_list(std::string_view list);

// Per backend: whether it is compiled in and usable, and if not, why.
struct BackendStatus {
  std::string name;      // "cuda", "mps", ...
  bool available = false;
  std::string detail;    // version or reason
};
std::vector<BackendStatus> backend_status();

}  // namespace accelbench
