# Installed by pip (`pip install --no-build-isolation .`, scikit-build-core: pyproject.toml), into
# the environment whose torch the engine was built against (cmake/accelbench-torch.cmake):
#   bin/accelbench                                  (the launcher: python/accelbench/launcher.py, an
#                                                   entry point of pyproject.toml; checks the torch)
#   site-packages/accelbench/accelbench-engine      (every command; links ../torch/lib by a relative RPATH)
#   site-packages/accelbench/build.json             (the torch version and build it was compiled against)
#   site-packages/accelbench_worker/                (the Python measurer: wheel.packages in pyproject.toml)
#   share/man/man1/accelbench.1, share/bash-completion/completions/accelbench,
#   share/zsh/site-functions/_accelbench, share/fish/vendor_completions.d/accelbench.fish
# No libtorch is copied: the engine finds the environment's site-packages/torch/lib through its
# RPATH, so uninstalling accelbench removes exactly the files above (pip's RECORD lists them).
include(cmake/accelbench-docs.cmake)

if(APPLE)
  set(_accelbench_torch_rpath "@loader_path/../torch/lib")
else()
  set(_accelbench_torch_rpath "$ORIGIN/../torch/lib")
endif()
set_target_properties(accelbench_engine PROPERTIES INSTALL_RPATH "${_accelbench_torch_rpath}" INSTALL_RPATH_USE_LINK_PATH FALSE)

# CMAKE_INSTALL_PREFIX is site-packages (scikit-build-core's platlib); SKBUILD_DATA_DIR the
# environment's prefix (share/ lands in the environment's share/).
install(TARGETS accelbench_engine RUNTIME DESTINATION accelbench COMPONENT pip)
install(FILES ${ACCELBENCH_BUILD_RECORD} DESTINATION accelbench COMPONENT pip)
install(FILES ${ACCELBENCH_SHARE_OUT}/man/man1/accelbench.1 DESTINATION ${SKBUILD_DATA_DIR}/share/man/man1 COMPONENT pip)
install(FILES ${ACCELBENCH_SHARE_OUT}/bash-completion/completions/accelbench
        DESTINATION ${SKBUILD_DATA_DIR}/share/bash-completion/completions COMPONENT pip)
install(FILES ${ACCELBENCH_SHARE_OUT}/zsh/site-functions/_accelbench
        DESTINATION ${SKBUILD_DATA_DIR}/share/zsh/site-functions COMPONENT pip)
install(FILES ${ACCELBENCH_SHARE_OUT}/fish/vendor_completions.d/accelbench.fish
        DESTINATION ${SKBUILD_DATA_DIR}/share/fish/vendor_completions.d COMPONENT pip)
