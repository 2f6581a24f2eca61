#pragma once
namespace accelbench {
const char* accelbench_version();
const char* accelbench_git_commit();
}  // namespace accelbench
