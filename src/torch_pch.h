// Precompiled header for the translation units that use torch (lives in the build folder only).
#pragma once
#include <torch/torch.h>
