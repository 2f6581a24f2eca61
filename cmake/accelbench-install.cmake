# Installed like a tool: `cmake --install build --prefix PREFIX` (or `make install
# PREFIX=...`) puts
#   bin/accelbench                                        (the command: answers --version, execs the engine)
#   libexec/accelbench/accelbench-engine                  (every command; finds libtorch through its RPATH)
#   share/man/man1/accelbench.1                           (man accelbench)
#   share/accelbench/python/accelbench_worker/            (the Python measurer package, its round server:
#                                                         --impl python, --py-model)
#   share/bash-completion/completions/accelbench          (bash)
#   share/zsh/site-functions/_accelbench                  (zsh)
#   share/fish/vendor_completions.d/accelbench.fish       (fish)
# The man page and completions are generated from the built binary's own command tree by its hidden
# `_docs` command (src/cli/docs_command.cpp) at build time, into build/share/. The CMake package of
# the C++ API is cmake/accelbench-package.cmake's. These rules are the component `tool`
# (cmake --install build --component tool: the tool alone).
include(GNUInstallDirs)
include(cmake/accelbench-docs.cmake)

# The installed binary keeps the path to the libtorch it was linked against (a pip wheel's lib/:
# TORCH_LIBRARY's folder, which holds libc10 and libtorch_cpu too) and to other linked folders.
get_filename_component(ACCELBENCH_TORCH_LIB_DIR "${TORCH_LIBRARY}" DIRECTORY)
set_target_properties(accelbench_engine PROPERTIES INSTALL_RPATH "${ACCELBENCH_TORCH_LIB_DIR}" INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS accelbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tool)
install(TARGETS accelbench_engine RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/accelbench COMPONENT tool)
# The Python measurer (python/accelbench_worker): share/accelbench/python, found from the engine's
# folder (--impl python).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/accelbench_worker DESTINATION ${CMAKE_INSTALL_DATADIR}/accelbench/python
        COMPONENT tool PATTERN __pycache__ EXCLUDE)
install(FILES ${ACCELBENCH_SHARE_OUT}/man/man1/accelbench.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tool)
install(FILES ${ACCELBENCH_SHARE_OUT}/bash-completion/completions/accelbench
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT tool)
install(FILES ${ACCELBENCH_SHARE_OUT}/zsh/site-functions/_accelbench DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions COMPONENT tool)
install(FILES ${ACCELBENCH_SHARE_OUT}/fish/vendor_completions.d/accelbench.fish
        DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d COMPONENT tool)
