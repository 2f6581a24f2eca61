#include "telemetry/sysfs_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace accelbench {

FileReadResult read_small_file(const std::string& path) {
  FileReadResult r;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    r.error = errno;
    r.message = telemetry_detail::describe_errno(r.error);
    return r;
  }
  std::string text;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      r.error = errno;
      r.message = telemetry_detail::describe_errno(r.error);
      ::close(fd);
      return r;
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > (1u << 20)) break;  // sysfs/procfs files are small; never read a huge file
  }
  ::close(fd);
  r.text = std::move(text);
  return r;
}

namespace {
class UnavailableSource final : public TelemetrySource {
 public:
  UnavailableSource(std::string name, std::string role, std::string reason, std::vector<std::string> figures)
      : name_(std::move(name)), role_(std::move(role)), reason_(std::move(reason)), figures_(std::move(figures)) {}
  std::string name() const override { return name_; }
  std::string role() const override { return role_; }
  bool available() const override { return false; }
  std::string unavailable_reason() const override { return reason_; }
  std::vector<TelemetryFigureOrigin> figures() const override {
    std::vector<TelemetryFigureOrigin> out;
    for (const auto& f : figures_) out.push_back({f, false, reason_});
    return out;
  }
  TelemetryReading read() override { return {}; }

 private:
  std::string name_, role_, reason_;
  std::vector<std::string> figures_;
};
}  // namespace

TelemetrySourcePtr make_unavailable_source(std::string name, std::string role, std::string reason,
                                           std::vector<std::string> figures) {
  return std::make_shared<UnavailableSource>(std::move(name), std::move(role), std::move(reason), std::move(figures));
}

namespace telemetry_detail {

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

std::optional<std::string> read_line(const FileReader& reader, const std::string& path, std::string* why) {
  auto r = reader(path);
  if (!r.text) {
    if (why) *why = path + ": " + r.message;
    return std::nullopt;
  }
  auto line = r.text->substr(0, r.text->find('\n'));
  return trim(line);
}

std::optional<long long> read_integer(const FileReader& reader, const std::string& path, std::string* why) {
  auto line = read_line(reader, path, why);
  if (!line) return std::nullopt;
  try {
    std::size_t used = 0;
    const long long v = std::stoll(*line, &used);
    if (used != line->size()) throw std::invalid_argument("trailing text");
    return v;
  } catch (const std::exception&) {
    if (why) *why = path + ": not a number ('" + line->substr(0, 40) + "')";
    return std::nullopt;
  }
}

std::vector<std::filesystem::path> list_entries(const std::filesystem::path& dir, const std::string& prefix) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(it->path());
  }
  // Natural order: compare the digits as numbers so that cpu2 sorts before cpu10.
  auto key = [](const std::string& s) {
    std::vector<std::pair<std::string, long long>> parts;
    std::size_t i = 0;
    while (i < s.size()) {
      std::size_t j = i;
      while (j < s.size() && !std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      std::size_t k = j;
      while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
      parts.emplace_back(s.substr(i, j - i), k > j ? std::stoll(s.substr(j, std::min<std::size_t>(k - j, 18))) : -1);
      i = k;
    }
    return parts;
  };
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    return key(a.filename().string()) < key(b.filename().string());
  });
  return out;
}

std::string describe_errno(int error) {
  switch (error) {
    case EACCES:
    case EPERM: return "permission denied";
    case ENOENT: return "no such file";
    case EISDIR: return "is a directory";
    case ENODATA: return "no data (the driver has no value)";
    case EIO: return "I/O error (the driver could not read the sensor)";
    default: return std::strerror(error);
  }
}

}  // namespace telemetry_detail
}  // namespace accelbench
