# The job scripts (jobs/) through a real Slurm: the fixture starts a throwaway cluster of two
# slurmd nodes (munged, slurmctld, slurmd from Debian's slurm-wlm and munge; see
# jobs/slurm/local-cluster.sh) before the tests labelled "slurm" and stops it after them, and a
# watchdog stops it should ctest end without the cleanup. Where the daemons cannot start, the
# fixture fails with their own errors and the tests depending on it are not run (ctest reports
# them failed).
set(jobs_tests ${CMAKE_CURRENT_SOURCE_DIR}/jobs)
set(slurm_cluster_dir ${CMAKE_BINARY_DIR}/test-runs/slurm-cluster)
set(slurm_cluster ${PROJECT_SOURCE_DIR}/jobs/slurm/local-cluster.sh)
add_test(NAME slurm_cluster_start
  COMMAND sh -c "exec \"$0\" start \"$1\" \"$PPID\"" ${slurm_cluster} ${slurm_cluster_dir})
add_test(NAME slurm_cluster_stop COMMAND ${slurm_cluster} stop ${slurm_cluster_dir})
set_tests_properties(slurm_cluster_start PROPERTIES FIXTURES_SETUP slurm TIMEOUT 120)
set_tests_properties(slurm_cluster_stop PROPERTIES FIXTURES_CLEANUP slurm TIMEOUT 60)

# Each test: REPO BIN DATA CLUSTER WORK.
foreach(name slurm_test_job slurm_staged_chain slurm_walltime slurm_failing_chain)
  add_test(NAME ${name} COMMAND bash ${jobs_tests}/${name}.sh ${PROJECT_SOURCE_DIR}
    ${CMAKE_BINARY_DIR}/bin ${PENTAGO_SHARED_DATA} ${slurm_cluster_dir}
    ${CMAKE_BINARY_DIR}/test-runs/${name})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED slurm TIMEOUT 400)
endforeach()
# The wall-time test's jobs must finish a slice and its file within the time Slurm allows after
# its warning, so it runs alone.
set_tests_properties(slurm_walltime PROPERTIES RUN_SERIAL TRUE)
set_tests_properties(slurm_cluster_start slurm_cluster_stop slurm_test_job slurm_staged_chain
  slurm_walltime slurm_failing_chain PROPERTIES LABELS slurm)
