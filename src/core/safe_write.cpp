#include "core/safe_write.h"

#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "core/errors.h"
#include "core/test_points.h"

namespace accelbench {

namespace fs = std::filesystem;

namespace {

// The file descriptor a path names directly: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
// /proc/<our pid>/fd/N. Written as it is, never replaced (it may be a pipe, a terminal, or a file
// that the shell opened for us).
std::optional<int> fd_path(const fs::path& p) {
  const std::string s = p.lexically_normal().string();
  if (s == "/dev/stdout") return 1;
  if (s == "/dev/stderr") return 2;
  if (s == "/dev/stdin") return 0;
  for (const std::string& prefix :
       {std::string("/dev/fd/"), std::string("/proc/self/fd/"), fmt::format("/proc/{}/fd/", ::getpid())}) {
    if (s.rfind(prefix, 0) != 0) continue;
    const std::string rest = s.substr(prefix.size());
    if (rest.empty() || rest.size() > 9 || rest.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::atoi(rest.c_str());
  }
  return std::nullopt;
}

// Follows the symlinks of the last component (at most 40, like the kernel). Returns the final path,
// which may not exist; `fd` is set when a step is one of fd_path()'s names.
struct Resolved {
  fs::path path;
  std::optional<int> fd;
  bool exists = false;
  struct stat st {};
};

Resolved resolve_last(const std::string& original) {
  Resolved r;
  fs::path p = original;
  for (int hops = 0;; ++hops) {
    if (auto fd = fd_path(p)) {
      r.path = p;
      r.fd = fd;
      return r;
    }
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) {  // ENOTDIR: a folder on the way is a file
        r.path = p;
        return r;
      }
      throw UsageError(fmt::format("cannot write {}: {}", original, std::strerror(errno)));
    }
    if (!S_ISLNK(st.st_mode)) {
      r.path = p;
      r.exists = true;
      r.st = st;
      return r;
    }
    if (hops >= 40) throw UsageError(fmt::format("cannot write {}: too many levels of symbolic links", original));
    std::error_code ec;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) throw UsageError(fmt::format("cannot write {}: {}", original, ec.message()));
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
}

void write_all(int fd, std::string_view bytes, const std::string& path) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw UsageError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

mode_t current_umask() {
  const mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

// A regular file or a new path: temporary + fsync + rename + fsync of the folder.
void replace_atomically(const std::string& original, const Resolved& r, std::string_view bytes) {
  const fs::path dir = r.path.has_parent_path() ? r.path.parent_path() : fs::path(".");
  const std::string name = r.path.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw UsageError(fmt::format("cannot write {}: not a file name", original));
  const std::string prefix = fmt::format(".{}.tmp.", name);
  remove_stale_temporaries(dir.string(), prefix);  // a killed writer's (SIGKILL leaves it no time to remove it)
  std::string tmpl = (dir / fmt::format("{}{}.XXXXXX", prefix, ::getpid())).string();
  const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    struct stat ds {};
    if (::stat(dir.c_str(), &ds) != 0)
      throw UsageError(fmt::format("cannot write {}: folder {} does not exist", original, dir.string()));
    if (!S_ISDIR(ds.st_mode))
      throw UsageError(fmt::format("cannot write {}: {} is not a folder", original, dir.string()));
    throw UsageError(fmt::format("cannot write {}: cannot create a file in {}: {}", original, dir.string(),
                                 std::strerror(err)));
  }
  const std::string tmp = tmpl;
  auto fail = [&](const std::string& why) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw UsageError(fmt::format("cannot write {}: {}", original, why));
  };
  // Keep an existing file's mode (and owner, where allowed); a new one gets 0666 less the umask.
  const mode_t mode = r.exists ? (r.st.st_mode & 07777) : (0666 & ~current_umask());
  if (::fchmod(fd, mode) != 0) fail(std::strerror(errno));
  if (r.exists && (r.st.st_uid != ::geteuid() || r.st.st_gid != ::getegid())) {
    if (::fchown(fd, r.st.st_uid, r.st.st_gid) != 0) {
      // best effort: only root may give a file away
    }
  }
  try {
    write_all(fd, bytes, original);
  } catch (const UsageError&) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::fsync(fd) != 0) fail(fmt::format("fsync failed: {}", std::strerror(errno)));
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw UsageError(fmt::format("cannot write {}: {}", original, std::strerror(err)));
  }
  // The target may have changed meanwhile: only a regular file or nothing is ever renamed over.
  struct stat now {};
  if (::lstat(r.path.c_str(), &now) == 0 && !S_ISREG(now.st_mode)) {
    ::unlink(tmp.c_str());
    throw UsageError(fmt::format("cannot write {}: {} changed into something other than a regular file while "
                                 "being written; left as it is",
                                 original, r.path.string()));
  }
  test_point("write");
  if (::rename(tmp.c_str(), r.path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw UsageError(fmt::format("cannot write {}: {}", original, std::strerror(err)));
  }
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);  // the rename itself reaches the disk
    ::close(dfd);
  }
  test_point("written");
}

std::string parent_of(const fs::path& p) {
  return p.has_parent_path() ? p.parent_path().string() : std::string(".");
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes) {
  if (path.empty()) throw UsageError("cannot write a file with an empty name");
  const Resolved r = resolve_last(path);
  if (r.fd) {
    write_all(*r.fd, bytes, path);
    return;
  }
  if (r.exists && S_ISDIR(r.st.st_mode)) throw UsageError(fmt::format("cannot write {}: it is a directory", path));
  if (r.exists && !S_ISREG(r.st.st_mode)) {
    // A device node, FIFO or socket: written in place, never replaced by a regular file.
    const int fd = ::open(r.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw UsageError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    try {
      write_all(fd, bytes, path);
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    return;
  }
  replace_atomically(path, r, bytes);
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  const bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;
  auto norm = [](const std::string& p) {
    fs::path resolved = p;
    try {
      resolved = resolve_last(p).path;  // a dangling link names its target
    } catch (const UsageError&) {
    }
    std::error_code ec;
    auto abs = fs::absolute(resolved, ec);
    if (ec) abs = resolved;
    auto canon = fs::weakly_canonical(abs, ec);
    return (ec ? abs : canon).lexically_normal();
  };
  return norm(a) == norm(b);
}

void check_output_path(const std::string& path, const char* option) {
  if (path.empty()) throw UsageError(fmt::format("{} needs a file name", option));
  const Resolved r = resolve_last(path);
  if (r.fd) return;
  if (r.exists) {
    if (S_ISDIR(r.st.st_mode)) throw UsageError(fmt::format("cannot write {} {}: it is a directory", option, path));
    if (::access(r.path.c_str(), W_OK) != 0)
      throw UsageError(fmt::format("cannot write {} {}: {}", option, path, std::strerror(errno)));
    if (!S_ISREG(r.st.st_mode)) return;  // device, FIFO: written in place
  }
  const std::string dir = parent_of(r.path);
  struct stat ds {};
  if (::stat(dir.c_str(), &ds) != 0)
    throw UsageError(fmt::format("cannot write {} {}: folder {} does not exist", option, path, dir));
  if (!S_ISDIR(ds.st_mode)) throw UsageError(fmt::format("cannot write {} {}: {} is not a folder", option, path, dir));
  if (::access(dir.c_str(), W_OK) != 0)
    throw UsageError(
        fmt::format("cannot write {} {}: folder {} is not writable ({})", option, path, dir, std::strerror(errno)));
}

void check_regular_input_file(const std::string& path, const char* what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw UsageError(fmt::format("{} not found: {}", what, path));
    throw UsageError(fmt::format("cannot read {} {}: {}", what, path, std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) throw UsageError(fmt::format("{} {} is a directory, not a file", what, path));
  if (!S_ISREG(st.st_mode))
    throw UsageError(fmt::format("{} {} is not a regular file (a device, FIFO or socket)", what, path));
  if (::access(path.c_str(), R_OK) != 0)
    throw UsageError(fmt::format("cannot read {} {}: {}", what, path, std::strerror(errno)));
}

namespace {
int remove_tree_entry(const char* path, const struct stat*, int kind, struct FTW*) {
  const int rc = kind == FTW_DP ? ::rmdir(path) : ::unlink(path);
  return rc == 0 || errno == ENOENT ? 0 : -1;
}
}  // namespace

std::size_t remove_stale_temporaries(const std::string& dir, const std::string& prefix, StaleKind kind) {
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const char* digits = name.c_str() + prefix.size();
    char* after = nullptr;
    const long pid = std::strtol(digits, &after, 10);
    if (after == digits || pid <= 0 || (*after != '\0' && *after != '.')) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to ask
    std::error_code rm;
    const auto status = it->symlink_status(rm);
    if (kind == StaleKind::files && fs::is_regular_file(status) && fs::remove(it->path(), rm)) ++removed;
    if (kind == StaleKind::folders && fs::is_directory(status) && remove_tree(it->path().string())) ++removed;
  }
  return removed;
}

bool remove_tree(const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  if (!S_ISDIR(st.st_mode)) return ::unlink(path.c_str()) == 0;
  return ::nftw(path.c_str(), remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS) == 0;
}

}  // namespace accelbench
