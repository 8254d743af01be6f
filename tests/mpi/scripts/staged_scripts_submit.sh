#!/usr/bin/env bash
# jobs/slurm/staged.sh and jobs/pbs/staged.sh submit a chain: with stand-in sbatch and qsub that
# record their arguments, stage 2 depends (afterok) on stage 1's job and carries its stage.
# Arguments: SOURCE_DIR TMP_DIR BIN_DIR.
t="$2/staged-submit"; rm -rf "$t"; mkdir -p "$t/bin" || exit 1
for tool in sbatch qsub; do
  printf '#!/bin/sh\necho "$*" >> "%s/%s.log"\nn=$(wc -l < "%s/%s.log")\necho "$((100 + n))%s"\n' \
    "$t" "$tool" "$t" "$tool" "$([ $tool = qsub ] && echo .server)" > "$t/bin/$tool"
  chmod +x "$t/bin/$tool"
done
export PATH="$t/bin:$PATH" PENTAGO_BIN="$3" STAGES="35-34:1 33-30:3" ROOT=25263480 SAVE=-1 THREADS=2
RUN_BASE="$t/slurm" bash "$1/jobs/slurm/staged.sh" > "$t/slurm.out" 2>&1 || { cat "$t/slurm.out"; exit 1; }
RUN_BASE="$t/pbs" bash "$1/jobs/pbs/staged.sh" > "$t/pbs.out" 2>&1 || { cat "$t/pbs.out"; exit 1; }
s1=$(sed -n 1p "$t/sbatch.log") s2=$(sed -n 2p "$t/sbatch.log")
q1=$(sed -n 1p "$t/qsub.log") q2=$(sed -n 2p "$t/qsub.log")
fail() { echo "$1"; cat "$t"/*.log; exit 1; }
[ "$(wc -l < "$t/sbatch.log")" -eq 2 ] && [ "$(wc -l < "$t/qsub.log")" -eq 2 ] || fail "not 2 jobs each"
case $s1 in *--dependency*) fail "stage 1 depends on something" ;; esac
case $s1 in *"--ntasks=1 "*"STAGE_INDEX=1,STAGE=35-34:1:1:1G:34:0"*) ;; *) fail "slurm stage 1: $s1" ;; esac
case $s2 in *"--ntasks=3 "*"--dependency=afterok:101"*"STAGE_INDEX=2,STAGE=33-30:3:1:1G:-1:6"*) ;; *) fail "slurm stage 2: $s2" ;; esac
case $q1 in *depend*) fail "pbs stage 1 depends on something" ;; esac
case $q2 in *"select=1:ncpus=6:mpiprocs=3"*"depend=afterok:101.server"*"STAGE=33-30:3:1:1G:-1:6"*) ;; *) fail "pbs stage 2: $q2" ;; esac
