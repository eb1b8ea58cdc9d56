/* Every rank contributes rank+1 to a sum and checks the result is
 * size*(size+1)/2: the ranks really exchanged data, through the addresses
 * their process manager's fence carried. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int mine = rank + 1;
	MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	int want = size * (size + 1) / 2;
	printf("allreduce rank %d size %d sum %d %s\n", rank, size, sum,
	       sum == want ? "ok" : "WRONG");
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return sum == want ? 0 : 1;
}
