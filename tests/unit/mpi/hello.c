/* The smallest MPI program: every rank prints its rank, the world size and
 * its host, so a launcher's test can check each rank started and agreed on
 * the size. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, len;
	char host[MPI_MAX_PROCESSOR_NAME];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	printf("hello rank %d size %d host %s\n", rank, size, host);
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
