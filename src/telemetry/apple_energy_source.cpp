// Apple silicon energy through IOReport's "Energy Model" channels (CPU Energy, GPU Energy, ...),
// readable without root. IOReport (/usr/lib/libIOReport.dylib) has no public header: it is loaded
// with dlopen and declared here as the open-source tools that use it declare it (macmon, asitop's
// socpowerbud). When it cannot be loaded, `sudo powermetrics --samplers cpu_power,gpu_power` is the
// documented alternative; accelbench does not run it (it needs root) and says so.
//
// THIS FILE IS COMPILED ONLY ON macOS AND HAS NEVER BEEN COMPILED OR RUN BY ITS AUTHOR (no Mac was
// available): treat its figures as unverified until someone runs `accelbench doctor` on a Mac.
#include "telemetry/telemetry_source.h"

#ifdef __APPLE__
#include <CoreFoundation/CoreFoundation.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <mutex>
#endif

namespace accelbench {

#ifdef __APPLE__
namespace {

struct IOReportSubscription;
using IOReportSubscriptionRef = IOReportSubscription*;
using CopyChannelsInGroupFn = CFMutableDictionaryRef (*)(CFStringRef, CFStringRef, uint64_t, uint64_t, uint64_t);
using CreateSubscriptionFn = IOReportSubscriptionRef (*)(void*, CFMutableDictionaryRef, CFMutableDictionaryRef*, uint64_t,
                                                         CFTypeRef);
using CreateSamplesFn = CFDictionaryRef (*)(IOReportSubscriptionRef, CFMutableDictionaryRef, CFTypeRef);
using CreateSamplesDeltaFn = CFDictionaryRef (*)(CFDictionaryRef, CFDictionaryRef, CFTypeRef);
using SimpleGetIntegerValueFn = int64_t (*)(CFDictionaryRef, int32_t);
using ChannelGetStringFn = CFStringRef (*)(CFDictionaryRef);

std::string to_string(CFStringRef s) {
  if (!s) return {};
  char buf[256];
  if (CFStringGetCString(s, buf, sizeof buf, kCFStringEncodingUTF8)) return buf;
  return {};
}

// One IOReport subscription shared by the CPU and GPU sources: cumulative joules per category.
class IOReportSession {
 public:
  static std::shared_ptr<IOReportSession> open(std::string* why) {
    auto s = std::shared_ptr<IOReportSession>(new IOReportSession);
    if (!s->init(why)) return nullptr;
    return s;
  }
  ~IOReportSession() {
    if (prev_) CFRelease(prev_);
    if (subscribed_) CFRelease(subscribed_);
    if (channels_) CFRelease(channels_);
    if (subscription_) CFRelease(reinterpret_cast<CFTypeRef>(subscription_));  // a CF object too
    if (lib_) dlclose(lib_);
  }

  // Cumulative energy (J) of a category ("cpu", "gpu", "ane", "dram") since the session opened.
  std::optional<double> energy_j(const std::string& category) {
    std::lock_guard lock(mutex_);
    update();
    auto it = totals_.find(category);
    if (it == totals_.end()) return std::nullopt;
    return it->second;
  }
  bool has(const std::string& category) {
    std::lock_guard lock(mutex_);
    update();
    return totals_.count(category) > 0;
  }

 private:
  bool init(std::string* why) {
    lib_ = dlopen("/usr/lib/libIOReport.dylib", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      if (why) *why = "cannot load /usr/lib/libIOReport.dylib (use `sudo powermetrics --samplers cpu_power,gpu_power` instead)";
      return false;
    }
    copy_channels_ = reinterpret_cast<CopyChannelsInGroupFn>(dlsym(lib_, "IOReportCopyChannelsInGroup"));
    create_subscription_ = reinterpret_cast<CreateSubscriptionFn>(dlsym(lib_, "IOReportCreateSubscription"));
    create_samples_ = reinterpret_cast<CreateSamplesFn>(dlsym(lib_, "IOReportCreateSamples"));
    create_delta_ = reinterpret_cast<CreateSamplesDeltaFn>(dlsym(lib_, "IOReportCreateSamplesDelta"));
    get_integer_ = reinterpret_cast<SimpleGetIntegerValueFn>(dlsym(lib_, "IOReportSimpleGetIntegerValue"));
    get_name_ = reinterpret_cast<ChannelGetStringFn>(dlsym(lib_, "IOReportChannelGetChannelName"));
    get_unit_ = reinterpret_cast<ChannelGetStringFn>(dlsym(lib_, "IOReportChannelGetUnitLabel"));
    if (!copy_channels_ || !create_subscription_ || !create_samples_ || !create_delta_ || !get_integer_ || !get_name_) {
      if (why) *why = "libIOReport.dylib lacks the functions used here (IOReportCopyChannelsInGroup, ...)";
      return false;
    }
    channels_ = copy_channels_(CFSTR("Energy Model"), nullptr, 0, 0, 0);
    if (!channels_) {
      if (why) *why = "IOReport has no \"Energy Model\" channel group (not Apple silicon?)";
      return false;
    }
    subscription_ = create_subscription_(nullptr, channels_, &subscribed_, 0, nullptr);
    if (!subscription_ || !subscribed_) {
      if (why) *why = "IOReportCreateSubscription failed for \"Energy Model\"";
      return false;
    }
    prev_ = create_samples_(subscription_, subscribed_, nullptr);
    last_ = std::chrono::steady_clock::now();
    if (!prev_) {
      if (why) *why = "IOReportCreateSamples failed";
      return false;
    }
    // A first delta, so that the categories are known.
    update(true);
    return true;
  }

  static double unit_to_joules(const std::string& unit) {
    if (unit == "mJ") return 1e-3;
    if (unit == "uJ" || unit == "\xc2\xb5J") return 1e-6;
    if (unit == "nJ") return 1e-9;
    return 1e-3;  // the Energy Model group reports mJ on the chips documented by those tools
  }
  static std::string category(const std::string& name) {
    if (name == "GPU Energy" || name.rfind("GPU", 0) == 0) return "gpu";
    if (name.size() >= 10 && name.compare(name.size() - 10, 10, "CPU Energy") == 0) return "cpu";
    if (name.rfind("ANE", 0) == 0) return "ane";
    if (name.rfind("DRAM", 0) == 0) return "dram";
    return {};
  }

  void update(bool force = false) {
    const auto now = std::chrono::steady_clock::now();
    // The CPU and GPU sources read one after the other: one sample serves both.
    if (!force && now - last_ < std::chrono::milliseconds(2)) return;
    CFDictionaryRef cur = create_samples_(subscription_, subscribed_, nullptr);
    if (!cur) return;
    CFDictionaryRef delta = create_delta_(prev_, cur, nullptr);
    CFRelease(prev_);
    prev_ = cur;
    last_ = now;
    if (!delta) return;
    auto chans = static_cast<CFArrayRef>(CFDictionaryGetValue(delta, CFSTR("IOReportChannels")));
    if (chans) {
      for (CFIndex i = 0, n = CFArrayGetCount(chans); i < n; ++i) {
        auto ch = static_cast<CFDictionaryRef>(CFArrayGetValueAtIndex(chans, i));
        const auto cat = category(to_string(get_name_(ch)));
        if (cat.empty()) continue;
        const double scale = get_unit_ ? unit_to_joules(to_string(get_unit_(ch))) : 1e-3;
        totals_[cat] += static_cast<double>(get_integer_(ch, 0)) * scale;
      }
    }
    CFRelease(delta);
  }

  std::mutex mutex_;
  void* lib_ = nullptr;
  CopyChannelsInGroupFn copy_channels_ = nullptr;
  CreateSubscriptionFn create_subscription_ = nullptr;
  CreateSamplesFn create_samples_ = nullptr;
  CreateSamplesDeltaFn create_delta_ = nullptr;
  SimpleGetIntegerValueFn get_integer_ = nullptr;
  ChannelGetStringFn get_name_ = nullptr, get_unit_ = nullptr;
  CFMutableDictionaryRef channels_ = nullptr, subscribed_ = nullptr;
  IOReportSubscriptionRef subscription_ = nullptr;
  CFDictionaryRef prev_ = nullptr;
  std::chrono::steady_clock::time_point last_;
  std::map<std::string, double> totals_;
};

class AppleEnergySource final : public TelemetrySource {
 public:
  AppleEnergySource(std::shared_ptr<IOReportSession> s, std::string category, std::string role)
      : session_(std::move(s)), category_(std::move(category)), role_(std::move(role)) {}
  std::string name() const override { return "ioreport:" + category_; }
  std::string role() const override { return role_; }
  std::string description() const override { return "IOReport Energy Model (" + category_ + "), unverified: never run by its author"; }
  bool available() const override { return true; }
  std::vector<TelemetryFigureOrigin> figures() const override {
    return {{"energy", true, "IOReport \"Energy Model\" channel deltas (" + category_ + ")"},
            {"power", true, "derived: energy difference between readings / time"},
            {"temperature", false, "Apple silicon temperatures need private IOHIDEventSystem APIs: not implemented"},
            {"clock", false, "not implemented on macOS"}};
  }
  TelemetryReading read() override {
    TelemetryReading r;
    r.energy_j = session_->energy_j(category_);
    return r;
  }

 private:
  std::shared_ptr<IOReportSession> session_;
  std::string category_, role_;
};
}  // namespace

std::vector<TelemetrySourcePtr> open_apple_energy_sources() {
  std::string why;
  auto session = IOReportSession::open(&why);
  if (!session) return {make_unavailable_source("ioreport", "accelerator", why)};
  std::vector<TelemetrySourcePtr> out;
  if (session->has("gpu")) out.push_back(std::make_shared<AppleEnergySource>(session, "gpu", "accelerator"));
  else out.push_back(make_unavailable_source("ioreport:gpu", "accelerator", "IOReport Energy Model has no GPU Energy channel"));
  if (session->has("cpu")) out.push_back(std::make_shared<AppleEnergySource>(session, "cpu", "cpu"));
  else out.push_back(make_unavailable_source("ioreport:cpu", "cpu", "IOReport Energy Model has no CPU Energy channel"));
  return out;
}
#else
std::vector<TelemetrySourcePtr> open_apple_energy_sources() { return {}; }
#endif

}  // namespace accelbench
