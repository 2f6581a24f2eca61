# The C++ build dependencies, found from the system (Debian packages, Homebrew) before anything
# compiles. Each missing one is named in one line with the package that provides it on Debian and
# the Homebrew formula, and the configuration stops (FATAL_ERROR after all four are checked).
# tests/package/dependency_check/ configures this file alone against a bogus prefix.

# name|find_package arguments|Debian package|Homebrew formula
set(_accelbench_dependencies
  "CLI11|CLI11 CONFIG QUIET|libcli11-dev|cli11"
  "nlohmann-json|nlohmann_json 3.10 QUIET|nlohmann-json3-dev|nlohmann-json"
  "fmt|fmt QUIET|libfmt-dev|fmt"
  "SQLite|SQLite3 QUIET|libsqlite3-dev|sqlite")

function(accelbench_find_build_dependencies)
  set(missing 0)
  foreach(entry IN LISTS _accelbench_dependencies)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 name)
    list(GET fields 1 arguments)
    list(GET fields 2 debian)
    list(GET fields 3 homebrew)
    separate_arguments(arguments)
    find_package(${arguments})
    list(GET arguments 0 package)
    if(NOT ${package}_FOUND)
      message(NOTICE "accelbench: missing build dependency ${name}: Debian/Ubuntu: apt install ${debian}; "
                     "macOS: brew install ${homebrew}")
      math(EXPR missing "${missing} + 1")
    endif()
  endforeach()
  if(missing GREATER 0)
    message(FATAL_ERROR "accelbench: build dependencies missing: ${missing} (above); install them and configure again")
  endif()
endfunction()
