#!/bin/bash
# Submits the staged plan of a run (pentago-predict --stages) as a chain of Slurm jobs: stage K
# is jobs/slurm/stage.sbatch on its own node and rank count, held by --dependency=afterok on
# stage K-1 and cancelled if stage K-1 fails; it restarts from the slice file stage K-1 saved.
#
# Run on the login node from the repository root, after building:
#   NODE_MEMORY=256G CORES_PER_NODE=128 jobs/slurm/staged.sh            (root 00000000)
#   NODE_MEMORY=256G CORES_PER_NODE=128 ROOT=25263480 TIME=02:00:00 jobs/slurm/staged.sh
#   STAGES="35-33:1 32-30:4:2" ROOT=25263480 MEMORY=2G jobs/slurm/staged.sh
# STAGES replaces the plan (TOP-BOTTOM:RANKS[:NODES] per stage, MEMORY per rank). Without
# sbatch, or with LAUNCH=local, the stages run here one after another with mpiexec (the
# rehearsal; tests/mpi/cluster_test.cpp runs it).
#
# Longer than the queue allows: every job asks Slurm for SIGUSR1 some minutes before its TIME
# (pentago_signal_margin: a tenth of TIME, 1 to 30 minutes, or CHECKPOINT_MARGIN seconds). The
# solver then checkpoints at the end of its slice, and the job submits the next attempt of its
# stage from that checkpoint and hands it the stages waiting for it (RESUBMIT=0 stops instead,
# printing the command to continue). So one stage "35-18:R" with TIME at the queue's limit runs
# as many jobs as it needs.
#
# Variables: see jobs/lib/staged.sh and jobs/lib/endgame-job.sh; TIME is each job's time limit
# (default 24:00:00), CPUS_PER_TASK the CPUs asked per rank (default THREADS), LAUNCH mpiexec
# (default) or srun, SBATCH_FLAGS more sbatch options (account, partition).

set -o pipefail
repo_guess=${PENTAGO_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/endgame-job.sh
source "$repo_guess/jobs/lib/endgame-job.sh" || exit 1
# shellcheck source=../lib/staged.sh
source "$repo_guess/jobs/lib/staged.sh" || exit 1
# shellcheck source=../lib/slurm.sh
source "$repo_guess/jobs/lib/slurm.sh" || exit 1
pentago_staged_start sbatch  # exits after running the stages here without sbatch
export TIME=${TIME:-24:00:00}
submit_stage() {  # K STAGE PREVIOUS_JOB ATTEMPT RESTART
  pentago_sbatch_stage "$1" "$2" "${3:+afterok:$3}" "$4" "$5"
}
pentago_submit_stages submit_stage
