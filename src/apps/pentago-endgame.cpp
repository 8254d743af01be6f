// pentago-endgame: the MPI solver, run under mpirun/srun (see pentago/mpi/endgame.h).
#include "pentago/mpi/endgame.h"

int main(int argc, char** argv) { return pentago::run_endgame(argc, argv); }
