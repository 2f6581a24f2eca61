#pragma once
// What `accelbench scale` prints of its result (core/scale_records.h): the table of world sizes,
// then the notes and the advice. No torch here.
#include <string>

#include "core/scale_records.h"

namespace accelbench {

// The table `scale` prints.
std::string format_scale_table(const ScaleResult& result);

}  // namespace accelbench
