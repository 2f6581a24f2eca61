# The man page and the bash, zsh and fish completions, generated from the built binary's own command
# tree by its hidden `_docs` command (src/cli/docs_command.cpp) at build time, into build/share/;
# installed by cmake/accelbench-install.cmake (cmake --install) or cmake/accelbench-pip-install.cmake
# (pip install .).
set(ACCELBENCH_SHARE_OUT ${CMAKE_BINARY_DIR}/share)
set(ACCELBENCH_DOC_FILES
  ${ACCELBENCH_SHARE_OUT}/man/man1/accelbench.1
  ${ACCELBENCH_SHARE_OUT}/bash-completion/completions/accelbench
  ${ACCELBENCH_SHARE_OUT}/zsh/site-functions/_accelbench
  ${ACCELBENCH_SHARE_OUT}/fish/vendor_completions.d/accelbench.fish)
add_custom_command(OUTPUT ${ACCELBENCH_DOC_FILES}
  COMMAND accelbench _docs --out ${ACCELBENCH_SHARE_OUT}
  DEPENDS accelbench accelbench_engine  # the launcher execs the engine, whose commands they document
  COMMENT "accelbench: man page and shell completions from the commands")
add_custom_target(accelbench_docs ALL DEPENDS ${ACCELBENCH_DOC_FILES})

