# Script-driven tests of the MPI engine and its job scripts (tests/mpi/scripts/).
set(mpi_scripts ${CMAKE_CURRENT_SOURCE_DIR}/mpi/scripts)
# The staged-run test drives the job scripts in the source tree (jobs/slurm/staged.sh).
target_compile_definitions(cluster_test PRIVATE PENTAGO_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# The staged job scripts submit a chain of dependent jobs (stand-in sbatch and qsub).
add_test(NAME staged_scripts_submit COMMAND bash ${mpi_scripts}/staged_scripts_submit.sh
  ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/test-runs ${CMAKE_BINARY_DIR}/bin)
set_tests_properties(staged_scripts_submit PROPERTIES LABELS mpi)
# A fresh run's saved slices (with their .index sidecars) served through nginx answer lookups.
add_test(NAME mpi_serve_saved_run COMMAND ${mpi_scripts}/serve_saved_run.sh
  $<TARGET_FILE_DIR:pentago-endgame> ${CMAKE_BINARY_DIR}/test-runs/mpi-serve ${PENTAGO_SHARED_DATA})
set_tests_properties(mpi_serve_saved_run PROPERTIES LABELS mpi)
# jobs/slurm/local-test.sh merges a caller's --export with its own (no Slurm needed).
add_test(NAME jobs_slurm_export_merge COMMAND ${mpi_scripts}/slurm_exports_test.sh
  ${CMAKE_SOURCE_DIR})
set_tests_properties(jobs_slurm_export_merge PROPERTIES LABELS mpi)
