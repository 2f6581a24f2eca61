// accelbench: how much faster does training really run on the accelerator than on the CPU?
#include <CLI/CLI.hpp>
#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <execinfo.h>
#include <signal.h>
#include <ucontext.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <vector>

#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "core/build_info.h"
#include "core/errors.h"

namespace {
std::string one_line(std::string s) {
  for (auto& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}
// A fatal signal leaves a backtrace on stderr (async-signal-safe calls only: write, backtrace),
// with the faulting address and thread, then dies of the same signal, so that a crash names where
// it happened instead of only "Segmentation fault".
void write_str(const char* s) { (void)!::write(2, s, std::strlen(s)); }
void write_hex(std::uintptr_t v) {
  char buf[19] = "0x";
  for (int i = 0; i < 16; ++i) buf[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
  buf[18] = 0;
  write_str(buf);
}
void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  write_str("accelbench: fatal ");
  write_str(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : sig == SIGILL ? "SIGILL" : "signal");
  write_str(" at address ");
  write_hex(reinterpret_cast<std::uintptr_t>(info ? info->si_addr : nullptr));
  write_str(" in thread ");
  write_hex(static_cast<std::uintptr_t>(::syscall(SYS_gettid)));
  write_str(" (process ");
  write_hex(static_cast<std::uintptr_t>(::getpid()));
  write_str("); backtrace:\n");
  void* frames[64];
  const int n = ::backtrace(frames, 64);
  ::backtrace_symbols_fd(frames, n, 2);
#if defined(__linux__) && defined(__x86_64__)
  // A jump to an unmapped address (a null function pointer) cannot be unwound: show the words on
  // top of the stack instead; the return addresses among them name the caller.
  if (context) {
    const auto* uc = static_cast<const ucontext_t*>(context);
    write_str("accelbench: pc ");
    write_hex(static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]));
    write_str(", top of the stack:\n");
    auto* const* sp = reinterpret_cast<void* const*>(uc->uc_mcontext.gregs[REG_RSP]);
    ::backtrace_symbols_fd(const_cast<void* const*>(sp), 24, 2);
  }
#else
  (void)context;
#endif
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace accelbench;
  {
    struct sigaction sa {};
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::sigaction(sig, &sa, nullptr);
  }
  CLI::App app{"accelbench: measures how much faster PyTorch training runs on each accelerator than on the CPU,\n"
               "with medians, confidence intervals, speed-ups and memory. Exit codes: 0 ok, 1 a case failed or a\n"
               "check found a problem, 2 bad input."};
  app.set_version_flag("--version", fmt::format("accelbench {} ({})", accelbench_version(), accelbench_git_commit()));
  app.require_subcommand(1);
  Action action;
  add_run_command(app, action);
  add_profile_command(app, action);
  add_devices_command(app, action);
  add_doctor_command(app, action);
  add_history_command(app, action);
  add_compare_command(app, action);
  add_report_command(app, action);
  add_advise_command(app, action);
  add_sweep_command(app, action);
  add_measure_case_command(app, action);
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names, known;
    for (const auto* sub : app.get_subcommands({})) {
      known.push_back(sub->get_name());
      if (sub->get_name().rfind('_', 0) != 0) names.push_back(sub->get_name());  // hidden ones start with '_'
    }
    if (std::find(known.begin(), known.end(), argv[1]) == known.end()) {
      std::fprintf(stderr, "accelbench: error: unknown command '%s'; commands: %s\n", argv[1],
                   fmt::format("{}", fmt::join(names, ", ")).c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "accelbench: error: %s (see --help)\n", one_line(e.what()).c_str());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "accelbench: error: %s\n", one_line(e.what()).c_str());
    return 2;
  }
  try {
    return action();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "accelbench: error: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const c10::Error& e) {
    std::fprintf(stderr, "accelbench: torch error: %s\n", one_line(e.what_without_backtrace()).c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accelbench: error: %s\n", one_line(e.what()).c_str());
    return 1;
  }
}
