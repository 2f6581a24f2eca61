// A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL) leaves a backtrace on stderr, with the faulting
// address and thread, then the process dies of the same signal, so that a crash names where it
// happened instead of only "Segmentation fault" (found the isolated sweep's SIGSEGV on the H200).
#include "cli/commands.h"

#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>

namespace accelbench {

namespace {
// Async-signal-safe calls only: write, backtrace.
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

void install_crash_handler() {
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::sigaction(sig, &sa, nullptr);
}

}  // namespace accelbench
