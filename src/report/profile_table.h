#pragma once
// What `accelbench profile` prints of a step's op profile (analysis/op_profile.h). No torch here.
#include <cstddef>
#include <string>

#include "analysis/op_profile.h"

namespace accelbench {

// The terminal table (op | calls | self CPU ms | device ms | % of step) of the top `top` ops, then
// totals, copies, CPU ops and fallbacks.
std::string render_profile_table(const OpProfile& p, std::size_t top);

}  // namespace accelbench
