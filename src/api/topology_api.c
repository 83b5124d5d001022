/* Public topology calls (topocoll.h). */
#include <stdio.h>

#include "topocoll.h"
#include "api/context.h"
#include "api/error.h"

static int valid_intracomm(MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL) return 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    return !inter;
}

int topocoll_set_topology(MPI_Comm comm, const char *spec)
{
    if (!valid_intracomm(comm))
        return tc_raise(comm, MPI_ERR_COMM, "topocoll_set_topology: invalid or inter-communicator");
    int rc = tc_ctx_set_topology(comm, spec);
    if (rc == MPI_ERR_ARG)
        return tc_raise(comm, MPI_ERR_ARG, "topocoll_set_topology: malformed topology spec '%s'",
                        spec ? spec : "");
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(comm, rc, "topocoll_set_topology");
}

static int ctx_of(MPI_Comm comm, tc_ctx **c, const char *fn)
{
    if (!valid_intracomm(comm)) return tc_raise(comm, MPI_ERR_COMM, "%s: invalid communicator", fn);
    int rc = tc_ctx_get(comm, c);
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(comm, rc, fn);
}

int topocoll_topology_place(MPI_Comm comm, int rank, topocoll_rank_place *place)
{
    tc_ctx *c;
    int rc = ctx_of(comm, &c, "topocoll_topology_place");
    if (rc != MPI_SUCCESS) return rc;
    if (rank < 0 || rank >= c->size || !place)
        return tc_raise(comm, MPI_ERR_RANK, "topocoll_topology_place: rank %d out of range", rank);
    place->node = c->topo->node_of[rank];
    place->socket = c->topo->sock_of[rank];
    place->node_index = c->topo->node_idx[rank];
    place->socket_index = c->topo->sock_idx[rank];
    return MPI_SUCCESS;
}

int topocoll_topology_counts(MPI_Comm comm, int *nnodes, int *nsockets)
{
    tc_ctx *c;
    int rc = ctx_of(comm, &c, "topocoll_topology_counts");
    if (rc != MPI_SUCCESS) return rc;
    if (nnodes) *nnodes = c->topo->nnodes;
    if (nsockets) *nsockets = c->topo->nsockets;
    return MPI_SUCCESS;
}

int topocoll_topology_describe(MPI_Comm comm, char *buf, int len)
{
    tc_ctx *c;
    int rc = ctx_of(comm, &c, "topocoll_topology_describe");
    if (rc != MPI_SUCCESS) return rc;
    if (buf && len > 0)
        snprintf(buf, (size_t)len, "%s: %d ranks, %d nodes, %d sockets", c->topo->desc,
                 c->size, c->topo->nnodes, c->topo->nsockets);
    return MPI_SUCCESS;
}

int topocoll_flush_cache(MPI_Comm comm)
{
    tc_ctx *c;
    int rc = ctx_of(comm, &c, "topocoll_flush_cache");
    if (rc == MPI_SUCCESS) tc_ctx_flush(c);
    return rc;
}

int topocoll_oversubscribed(MPI_Comm comm, int *oversubscribed, char *buf, int len)
{
    tc_ctx *c;
    int rc = ctx_of(comm, &c, "topocoll_oversubscribed");
    if (rc != MPI_SUCCESS) return rc;
    if (oversubscribed)
        *oversubscribed = c->load.load == TC_LOAD_OVERSUBSCRIBED ? 1 : c->load.load == TC_LOAD_DEDICATED ? 0 : -1;
    if (buf && len > 0) snprintf(buf, (size_t)len, "%s", c->load.desc);
    return MPI_SUCCESS;
}
