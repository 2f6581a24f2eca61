# The installed CMake package (docs/own-model.md): `cmake --install` puts
#   lib/libaccelbench_{telemetry,core,torch,main}.a   (accelbench_main: the command line and its main)
#   include/accelbench/accelbench.h                    (the public header) and the headers it reaches
#   lib/cmake/accelbench/                              (find_package(accelbench): accelbench::main)
# so that a program of the user's registers a workload written with the C++ frontend and links
# accelbench::main to get every accelbench command. Example: examples/custom_workload/.
# Included at the end of CMakeLists.txt, after the targets it reads. Component `dev`
# (cmake --install build --component dev: the package alone; the tool is cmake/accelbench-install.cmake's).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The command line as a library: the engine executable's own objects (compiled once), main()
# included; a program that defines no main gets accelbench's.
add_library(accelbench_main STATIC $<TARGET_OBJECTS:accelbench_engine>)
get_target_property(_accelbench_links accelbench_engine LINK_LIBRARIES)
list(REMOVE_ITEM _accelbench_links CLI11::CLI11)  # header-only, compiled into the objects already
target_link_libraries(accelbench_main INTERFACE ${_accelbench_links})
set_target_properties(accelbench_main PROPERTIES EXPORT_NAME main)  # accelbench::main when installed
add_library(accelbench::main ALIAS accelbench_main)

set(_accelbench_libraries accelbench_telemetry accelbench_core accelbench_torch accelbench_main)
# The headers: the build tree's src/ for the build, include/accelbench for the installed package.
foreach(_lib accelbench_telemetry accelbench_core)
  set_target_properties(${_lib} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
    "$<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/src>;$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/accelbench;${CMAKE_INSTALL_INCLUDEDIR}>")
endforeach()
target_compile_features(accelbench_core INTERFACE cxx_std_20)

install(TARGETS ${_accelbench_libraries} EXPORT accelbenchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES ${CMAKE_SOURCE_DIR}/include/accelbench/accelbench.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/accelbench COMPONENT dev)
# Every project header (the public one reaches workloads/, optim/, data/, core/): include/accelbench/<dir>/.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/src/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/accelbench
        COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(EXPORT accelbenchTargets NAMESPACE accelbench:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/accelbench COMPONENT dev)

set(ACCELBENCH_PACKAGE_TORCH_DIR "${Torch_DIR}")
set(ACCELBENCH_PACKAGE_WITH_CUDA "${ACCELBENCH_WITH_CUDA}")
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/accelbench-config.cmake.in
  ${CMAKE_BINARY_DIR}/accelbench-config.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/accelbench)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/accelbench-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/accelbench-config.cmake ${CMAKE_BINARY_DIR}/accelbench-config-version.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/accelbench COMPONENT dev)
