# The staged-run test drives the job scripts in the source tree (jobs/slurm/staged.sh).
target_compile_definitions(cluster_test PRIVATE PENTAGO_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
