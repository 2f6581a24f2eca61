// telemetry_probe: the telemetry sources of this machine, and one sampled window, without torch.
//   telemetry_probe [--device cuda:0] [--seconds 10] [--hz 20] [--json out.json]
// Lists every source with its availability (or the reason), then samples `seconds` and prints the
// window's figures per source: for NVML both the energy counter's difference and the integral of
// the sampled power, so the two can be compared (run a GPU load beside it).
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "telemetry/sampler.h"
#include "telemetry/telemetry_source.h"

using namespace accelbench;

int main(int argc, char** argv) {
  std::string device = "cpu", json_path;
  double seconds = 10, hz = kDefaultTelemetryHz;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "telemetry_probe: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--device") device = next();
    else if (a == "--seconds") seconds = std::stod(next());
    else if (a == "--hz") hz = std::stod(next());
    else if (a == "--json") json_path = next();
    else {
      std::fprintf(stderr, "usage: telemetry_probe [--device cpu|cuda:N|mps] [--seconds S] [--hz H] [--json FILE]\n");
      return 2;
    }
  }
  std::cout << "sources for " << device << ":\n";
  auto sources = telemetry_sources_for(device);
  for (const auto& s : sources) {
    std::cout << fmt::format("  {:<22} {}\n", s->name(), s->available() ? "available: " + s->description()
                                                                         : "unavailable: " + s->unavailable_reason());
    if (s->available())
      for (const auto& f : s->figures())
        std::cout << fmt::format("      {:<12} {}{}\n", f.figure, f.available ? "" : "unavailable: ", f.origin);
  }
  Sampler sampler(sources, {.hz = hz});
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  sampler.mark_window_begin();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  sampler.mark_window_end(0);
  sampler.stop();
  const bool accel = device != "cpu";
  const auto sum = sampler.summarize({.device_role = accel ? "accelerator" : "cpu", .epochs = 0});
  std::cout << fmt::format("window {:.3f} s, {} readings at {:g} Hz\n", sum.window_s, sum.samples, sum.sample_hz);
  auto opt = [](const std::optional<double>& v, const char* unit) {
    return v ? fmt::format("{:.3f} {}", *v, unit) : std::string("-");
  };
  for (const auto& c : sum.channels) {
    std::cout << fmt::format("  {:<22} energy counter {} | power integral {} | mean {} | peak {} | max temp {} | clock {} | "
                             "memory {} | throttled {}/{}\n",
                             c.source, opt(c.energy_counter_j, "J"), opt(c.power_integral_j, "J"), opt(c.mean_power_w, "W"),
                             opt(c.peak_power_w, "W"), opt(c.max_temperature_c, "C"), opt(c.mean_clock_mhz, "MHz"),
                             opt(c.peak_memory_bytes, "B"), c.throttled_samples, c.samples);
    if (c.energy_counter_j && c.power_integral_j && *c.energy_counter_j > 0)
      std::cout << fmt::format("  {:<22} power integral / energy counter = {:.4f}\n", "", *c.power_integral_j / *c.energy_counter_j);
  }
  if (!json_path.empty()) std::ofstream(json_path) << nlohmann::json(sum).dump(1) << "\n";
  return 0;
}
