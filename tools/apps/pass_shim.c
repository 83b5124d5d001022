/*
 * A preload that interposes the request-completion calls and does nothing
 * else: each of MPI_Test, MPI_Testany, MPI_Testall, MPI_Testsome, MPI_Wait,
 * MPI_Waitany, MPI_Waitall and MPI_Waitsome calls its PMPI_ form at once.
 * Any PMPI tool that must see these calls (topocoll advances its
 * nonblocking collectives in them) costs at least this; randomaccess_trace.sh
 * runs it as the mode "pass" beside topocoll's, so that what a
 * request-polling program such as hpcc's MPIRandomAccess loses to the
 * interposition itself is told apart from what the library adds.
 *
 * Build: mpicc -shared -fPIC pass_shim.c -o libpass_shim.so
 */
#include <mpi.h>

int MPI_Test(MPI_Request *r, int *flag, MPI_Status *st) { return PMPI_Test(r, flag, st); }
int MPI_Testany(int n, MPI_Request r[], int *index, int *flag, MPI_Status *st)
{
    return PMPI_Testany(n, r, index, flag, st);
}
int MPI_Testall(int n, MPI_Request r[], int *flag, MPI_Status st[]) { return PMPI_Testall(n, r, flag, st); }
int MPI_Testsome(int n, MPI_Request r[], int *out, int idx[], MPI_Status st[])
{
    return PMPI_Testsome(n, r, out, idx, st);
}
int MPI_Wait(MPI_Request *r, MPI_Status *st) { return PMPI_Wait(r, st); }
int MPI_Waitany(int n, MPI_Request r[], int *index, MPI_Status *st) { return PMPI_Waitany(n, r, index, st); }
int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[]) { return PMPI_Waitall(n, r, st); }
int MPI_Waitsome(int n, MPI_Request r[], int *out, int idx[], MPI_Status st[])
{
    return PMPI_Waitsome(n, r, out, idx, st);
}
