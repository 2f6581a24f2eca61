#pragma once
#include <stdexcept>
#include <string>

namespace accelbench {

// A mistake in what the user asked for (bad flag value, unknown model or device, unreadable input
// file). The command line prints it as one line and exits with code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The training itself went wrong. Recorded in the case's result.
struct CaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The loss became NaN or Inf (FailureKind::diverged).
struct DivergedError : CaseError {
  using CaseError::CaseError;
};

}  // namespace accelbench
