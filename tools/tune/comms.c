/*
 * topocoll-tune: the communicators to tune.
 *
 *   world     every rank (a copy of MPI_COMM_WORLD)
 *   pernode   one rank per node: the first rank of every node
 *   half      the first half of the ranks (ceil(p / 2))
 *
 * With a virtual topology (-t), every communicator gets the topology its members
 * have in MPI_COMM_WORLD's: node by node, the socket sizes ("2+1,1"), which
 * needs the members of a node to be consecutive in rank order (block
 * mappings); otherwise the sub-communicator is skipped with a message.
 * Without -t the library detects the sub-communicator's topology itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_mpi.h"

/* Is this rank a member of the layout `name`? */
static int member(const char *name, int rank, int np, const topocoll_rank_place *pl)
{
    if (strcmp(name, "pernode") == 0) return pl->node_index == 0;
    if (strcmp(name, "half") == 0) return rank < (np + 1) / 2;
    return 1;
}

/* The spec of the members' places (node, socket) in sub-communicator
 * order, into spec; -1 when the nodes or sockets are not consecutive. */
static int spec_of(const int *node, const int *sock, int n, char *spec, size_t len)
{
    size_t used = 0;
    int count = 0;
    spec[0] = '\0';
    for (int i = 0; i < n; i++) {
        count++;
        int last = i + 1 == n, new_node = last || node[i + 1] != node[i];
        int new_sock = new_node || sock[i + 1] != sock[i];
        if (!last && (node[i + 1] < node[i] || (!new_node && sock[i + 1] < sock[i]))) return -1;
        if (!new_sock) continue;
        int k = snprintf(spec + used, len - used, "%d%s", count, last ? "" : new_node ? "," : "+");
        if (k < 0 || (size_t)k >= len - used) return -1;
        used += (size_t)k;
        count = 0;
    }
    return 0;
}

/* Gives sub its members' virtual topology (kept in spec); 0, or -1 (every
 * rank agrees). */
static int inherit_topology(MPI_Comm sub, const topocoll_rank_place *pl, char *spec, size_t speclen)
{
    int n, mine[2] = { pl->node, pl->socket }, ok = 1, gok = 0;
    if (MPI_Comm_size(sub, &n) != MPI_SUCCESS) return -1;
    int *all = malloc(2 * (size_t)n * sizeof *all), *node = malloc((size_t)n * sizeof *node),
        *sock = malloc((size_t)n * sizeof *sock);
    if (!all || !node || !sock) ok = 0;
    if (ok && MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, sub) != MPI_SUCCESS) ok = 0;
    for (int i = 0; ok && i < n; i++) node[i] = all[2 * i], sock[i] = all[2 * i + 1];
    if (ok && spec_of(node, sock, n, spec, speclen) != 0) ok = 0;
    if (ok && topocoll_set_topology(sub, spec) != MPI_SUCCESS) ok = 0;
    free(all);
    free(node);
    free(sock);
    if (MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, sub) != MPI_SUCCESS) return -1;
    return gok ? 0 : -1;
}

int tune_comm_make(const char *name, int virtual_topo, tune_comm *out)
{
    int rank, np;
    topocoll_rank_place pl;
    memset(out, 0, sizeof *out);
    out->name = name;
    out->comm = MPI_COMM_NULL;
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || MPI_Comm_size(MPI_COMM_WORLD, &np) != MPI_SUCCESS ||
        topocoll_topology_place(MPI_COMM_WORLD, rank, &pl) != MPI_SUCCESS)
        return -1;
    int in = member(name, rank, np, &pl);
    if (MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, rank, &out->comm) != MPI_SUCCESS) return -1;
    int ok = 1, gok = 0;
    if (in) {
        out->member = 1;
        if (MPI_Comm_set_errhandler(out->comm, MPI_ERRORS_RETURN) != MPI_SUCCESS) ok = 0;
        if (ok && virtual_topo && inherit_topology(out->comm, &pl, out->spec, sizeof out->spec) != 0) ok = 0;
        if (ok && (MPI_Comm_size(out->comm, &out->np) != MPI_SUCCESS ||
                   topocoll_topology_counts(out->comm, &out->nnodes, &out->nsockets) != MPI_SUCCESS))
            ok = 0;
        /* the rules measured here serve machines of this load only */
        if (ok && topocoll_oversubscribed(out->comm, &out->oversub, NULL, 0) != MPI_SUCCESS) ok = 0;
    }
    if (MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    return gok ? 0 : -1;
}

void tune_comm_free(tune_comm *c)
{
    if (c->comm != MPI_COMM_NULL) MPI_Comm_free(&c->comm);
    c->comm = MPI_COMM_NULL;
}

MPI_Comm tune_comm_fresh(const tune_comm *c)
{
    MPI_Comm d = MPI_COMM_NULL;
    int ok = MPI_Comm_dup(c->comm, &d) == MPI_SUCCESS, gok = 0;
    if (ok) ok = MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN) == MPI_SUCCESS;
    if (ok && c->spec[0]) ok = topocoll_set_topology(d, c->spec) == MPI_SUCCESS;
    if (MPI_Allreduce(&ok, &gok, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS || !gok) {
        if (d != MPI_COMM_NULL) MPI_Comm_free(&d);
        return MPI_COMM_NULL;
    }
    return d;
}
