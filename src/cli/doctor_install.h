#pragma once
// doctor's lines on where accelbench is installed: the engine's path, the torch it was built
// against beside the torch it loaded, and the interpreter the Python cases use by default.
#include <string>

namespace accelbench {

// `torch_library_dir`: the folder of the libtorch this process loaded (a wheel's torch/lib).
std::string installation_lines(const std::string& torch_library_dir);

}  // namespace accelbench
