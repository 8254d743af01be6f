# Tests of the Python tools in scripts/ (Debian's /usr/bin/python3 with python3-matplotlib).
# check_layers_rejects: scripts/check-layers passes a copy of the sources and fails it on a
# forbidden include, an unused edge, a mismatched library link and an unknown layer folder.
# plot_run_record: scripts/plot-run on a run directory with a hand-written run.jsonl (plotted
# numbers equal the record's) and on bad input (one line, no hang). plot_run: a small real MPI
# run (root 72275400 on 2 ranks) plotted the same way. Exit 77 = skipped (no matplotlib).
# plot_run needs pentago-endgame and pentago-check built.
if(NOT MPIEXEC_EXECUTABLE)
  set(MPIEXEC_EXECUTABLE mpiexec)
endif()
if(EXISTS /usr/bin/python3)
  add_test(NAME check_layers_rejects
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_layers_test.py
      ${PROJECT_SOURCE_DIR}/scripts/check-layers ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-runs)
  set_tests_properties(check_layers_rejects PROPERTIES LABELS lint TIMEOUT 60)
  add_test(NAME plot_run_record
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/scripts/plot_run_test.py quick
      ${PROJECT_SOURCE_DIR}/scripts/plot-run ${CMAKE_BINARY_DIR}/test-runs ${PENTAGO_SHARED_DATA})
  add_test(NAME plot_run
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/scripts/plot_run_test.py run
      ${PROJECT_SOURCE_DIR}/scripts/plot-run $<TARGET_FILE:pentago-endgame> ${MPIEXEC_EXECUTABLE}
      ${CMAKE_BINARY_DIR}/test-runs ${PENTAGO_SHARED_DATA})
else()
  foreach(name plot_run_record plot_run)
    add_test(NAME ${name} COMMAND sh -c
      "echo 'SKIPPED: /usr/bin/python3 is missing (apt-get install python3-matplotlib)'; exit 77")
  endforeach()
endif()
set_tests_properties(plot_run_record PROPERTIES LABELS scripts SKIP_RETURN_CODE 77 TIMEOUT 120)
set_tests_properties(plot_run PROPERTIES LABELS "scripts;mpi;slow" SKIP_RETURN_CODE 77 TIMEOUT 300)
