# Tests of the Python tools in scripts/ (Debian's /usr/bin/python3 with python3-matplotlib).
# plot_run: a small real MPI run (root 72275400 on 2 ranks) plotted by scripts/plot-run; the
# PNGs must decode and the plotted numbers must equal the log's. Exit 77 = skipped (no
# matplotlib). Needs pentago-endgame and pentago-check built.
if(NOT MPIEXEC_EXECUTABLE)
  set(MPIEXEC_EXECUTABLE mpiexec)
endif()
if(EXISTS /usr/bin/python3)
  add_test(NAME plot_run
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/scripts/plot_run_test.py
      ${PROJECT_SOURCE_DIR}/scripts/plot-run $<TARGET_FILE:pentago-endgame> ${MPIEXEC_EXECUTABLE}
      ${CMAKE_BINARY_DIR}/test-runs ${PENTAGO_SHARED_DATA})
else()
  add_test(NAME plot_run COMMAND sh -c
    "echo 'SKIPPED: /usr/bin/python3 is missing (apt-get install python3-matplotlib)'; exit 77")
endif()
set_tests_properties(plot_run PROPERTIES LABELS "scripts;mpi;slow" SKIP_RETURN_CODE 77 TIMEOUT 300)
