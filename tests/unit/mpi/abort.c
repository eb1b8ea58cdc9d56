/* Rank 1 calls MPI_Abort with code 7 while the others wait in a barrier:
 * the process manager must hear of it (the step ends) rather than the job
 * hanging. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 1) {
		printf("abort rank 1 aborting\n");
		fflush(stdout);
		MPI_Abort(MPI_COMM_WORLD, 7);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
