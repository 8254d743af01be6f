# Script-driven tests of the MPI engine and its job scripts.
# A fresh run's saved slices (with their .index sidecars) served through nginx answer lookups.
add_test(NAME mpi_serve_saved_run COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/serve_saved_run.sh
  $<TARGET_FILE_DIR:pentago-endgame> ${CMAKE_BINARY_DIR}/test-runs/mpi-serve ${PENTAGO_SHARED_DATA})
set_tests_properties(mpi_serve_saved_run PROPERTIES LABELS mpi)
# jobs/slurm/local-test.sh merges a caller's --export with its own (no Slurm needed).
add_test(NAME jobs_slurm_export_merge COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/mpi/slurm_exports_test.sh
  ${CMAKE_SOURCE_DIR})
set_tests_properties(jobs_slurm_export_merge PROPERTIES LABELS mpi)
