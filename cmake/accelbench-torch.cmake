# libtorch, and the record of the torch this build compiles against.
#
# Under pip (scikit-build-core sets SKBUILD), CMake asks the interpreter pip runs for its torch's
# CMake folder (torch.utils.cmake_prefix_path), so the engine is built against the torch of the
# environment it is installed into. An isolated build (plain `pip install .`) has no torch: it is
# refused in one line with the command that builds against the environment's torch.
# Asked on every configure (Torch_DIR forced): a build folder reused under another environment
# builds against that environment's torch, not the one its cache remembers.
if(SKBUILD)
  if(NOT Python_EXECUTABLE)
    find_package(Python COMPONENTS Interpreter REQUIRED)
  endif()
  execute_process(COMMAND "${Python_EXECUTABLE}" -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE _accelbench_torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET RESULT_VARIABLE _accelbench_torch_rc)
  if(NOT _accelbench_torch_rc EQUAL 0)
    message(FATAL_ERROR "accelbench: the build's Python (${Python_EXECUTABLE}) cannot import torch: build with "
                        "`pip install --no-build-isolation .` in the environment that holds torch (an isolated "
                        "build has none)")
  endif()
  set(Torch_DIR "${_accelbench_torch_prefix}/Torch" CACHE PATH "The torch of the interpreter pip runs" FORCE)
endif()
find_package(Torch QUIET)
if(NOT Torch_FOUND)
  message(FATAL_ERROR "accelbench: libtorch not found: install the torch pip package (make build does, "
                      "into .venv) or pass -DCMAKE_PREFIX_PATH=$(python -c 'import torch; "
                      "print(torch.utils.cmake_prefix_path)') or a libtorch folder")
endif()

# The torch it was built for: the pip package's version string (torch/version.py: '2.13.0+cpu')
# and its build (CUDA x.y, ROCm x.y, MPS, CPU). A libtorch without version.py (an official archive)
# gives its CMake version and the CUDA libraries it has.
set(ACCELBENCH_TORCH_VERSION_PY "${TORCH_INSTALL_PREFIX}/version.py")
set(ACCELBENCH_BUILT_TORCH_VERSION "${Torch_VERSION}")
set(ACCELBENCH_BUILT_TORCH_FLAVOUR "")
if(EXISTS "${ACCELBENCH_TORCH_VERSION_PY}")
  file(READ "${ACCELBENCH_TORCH_VERSION_PY}" _accelbench_version_py)
  if(_accelbench_version_py MATCHES "__version__ = '([^']+)'")
    set(ACCELBENCH_BUILT_TORCH_VERSION "${CMAKE_MATCH_1}")
  endif()
  if(_accelbench_version_py MATCHES "\ncuda(: Optional\\[str\\])? = '([^']+)'")
    set(ACCELBENCH_BUILT_TORCH_FLAVOUR "CUDA ${CMAKE_MATCH_2}")
  elseif(_accelbench_version_py MATCHES "\nhip(: Optional\\[str\\])? = '([^']+)'")
    set(ACCELBENCH_BUILT_TORCH_FLAVOUR "ROCm ${CMAKE_MATCH_2}")
  endif()
elseif(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES)
  set(ACCELBENCH_BUILT_TORCH_FLAVOUR "CUDA")
endif()
if(ACCELBENCH_BUILT_TORCH_FLAVOUR STREQUAL "")
  if(APPLE AND CMAKE_SYSTEM_PROCESSOR MATCHES "arm64|aarch64")
    set(ACCELBENCH_BUILT_TORCH_FLAVOUR "MPS")
  else()
    set(ACCELBENCH_BUILT_TORCH_FLAVOUR "CPU")
  endif()
endif()
message(STATUS "accelbench: built against torch ${ACCELBENCH_BUILT_TORCH_VERSION} (${ACCELBENCH_BUILT_TORCH_FLAVOUR}) "
               "from ${TORCH_INSTALL_PREFIX}")
