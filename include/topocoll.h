/*
 * topocoll: topology-aware MPI collective algorithms.
 *
 * Every collective has the MPI signature and an MPI error-class return value.
 * Errors are also raised through the communicator's error handler, so with
 * the default MPI_ERRORS_ARE_FATAL a bad argument aborts as MPI itself would.
 *
 * Algorithms are listed in one catalog; they are addressed by collective and
 * name ("ring", "bruck", ...).  The same names are accepted by the
 * TOPOCOLL_<COLLECTIVE> environment variables, the benchmark and the tuning
 * files.
 */
#ifndef TOPOCOLL_H
#define TOPOCOLL_H

#include <mpi.h>
#include <stddef.h>

#include "topocoll_types.h"
#include "topocoll_shapes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility: what this header declares is
 * all it exports. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define TOPOCOLL_VERSION_MAJOR 0
#define TOPOCOLL_VERSION_MINOR 1
#define TOPOCOLL_VERSION_PATCH 0

/* Collective name ("allgather"), or NULL for an unknown value. */
const char *topocoll_coll_name(topocoll_coll coll);
/* Collective by name; returns -1 when unknown. */
int topocoll_coll_from_name(const char *name);

/* ---- the catalog --------------------------------------------------------- */

/* The catalog has two levels.  An algorithm (entry) is one flat algorithm
 * or one family with tunable parameters ("hierarchical": leaders, agg, x,
 * dist); a variant is an algorithm with concrete parameter values
 * ("h1_shm_rd_shm" = "hierarchical:leaders=1,agg=shm,x=rd,dist=shm"); a flat
 * algorithm is its own single variant.  Every name taking an algorithm
 * (environment, tuning files, topocoll_<coll>_algorithm) accepts an
 * algorithm's name (its default parameters), a variant's listed or
 * canonical name, or a family name with some parameters. */

/* Number of algorithms of a collective (native included). */
int topocoll_algorithm_count(topocoll_coll coll);
/* Name / one-line description / requirements text of algorithm i
 * (0 <= i < count), or NULL when out of range.  The requirements are those
 * of the variant its bare name runs. */
const char *topocoll_algorithm_name(topocoll_coll coll, int i);
const char *topocoll_algorithm_description(topocoll_coll coll, int i);
const char *topocoll_algorithm_requirements(topocoll_coll coll, int i);
/* Family of algorithm i: "native", "flat", "composed", "direct" or the
 * family's name ("hierarchical"); NULL when out of range. */
const char *topocoll_algorithm_family(topocoll_coll coll, int i);
/* Tunable parameters of algorithm i, "key=v1|v2 (default v1), ..." ("" for
 * a flat algorithm); NULL when out of range. */
const char *topocoll_algorithm_parameters(topocoll_coll coll, int i);
/* Index of the algorithm a name resolves into (any of its variants' names),
 * or -1. */
int topocoll_algorithm_index(topocoll_coll coll, const char *name);

/* Every variant of a collective, algorithm by algorithm: count, and as
 * above for variant i (its listed name: the short alias where one exists,
 * else the canonical name). */
int topocoll_variant_count(topocoll_coll coll);
const char *topocoll_variant_name(topocoll_coll coll, int i);
const char *topocoll_variant_canonical_name(topocoll_coll coll, int i);
const char *topocoll_variant_description(topocoll_coll coll, int i);
const char *topocoll_variant_requirements(topocoll_coll coll, int i);
const char *topocoll_variant_family(topocoll_coll coll, int i);
/* Index of the variant a name resolves to, or -1. */
int topocoll_variant_index(topocoll_coll coll, const char *name);
/* Length of the first name in a comma-separated list of algorithm names
 * ("ring,hierarchical:leaders=s,agg=shm,bruck" has three: a family name's
 * parameters stay with it). */
size_t topocoll_algorithm_list_item(const char *list);

/* Elements of the send and receive buffers of `rank` (of `size` ranks, root
 * `root`) for a call of coll where every rank passes `count` as its counts
 * (MPI's signatures: the block of one rank; bcast's buffer is the receive
 * buffer; reduce_scatter_block's send buffer holds size blocks), without
 * MPI_IN_PLACE.  Returns 0, or -1 for an unknown collective or a bad rank,
 * root, size or count. */
int topocoll_coll_buffer_elems(topocoll_coll coll, int size, int rank, int root, int count,
                               long long *send_elems, long long *recv_elems);

/* Would the named algorithm serve coll with these arguments on comm?  The
 * arguments are those of topocoll_run (buffers are not needed; the call is
 * judged as one without MPI_IN_PLACE).  Returns 1 (yes), 0 (it declines, or
 * the arguments are invalid; *why, when why != NULL, points to a static
 * reason) or a negative value for an unknown collective or algorithm name.
 * Collective over nothing once the communicator has its context; it makes
 * the context (collective) where there is none yet: before the first call on
 * the communicator, and while the MPI library serves its first calls
 * (TOPOCOLL_CONTEXT_AFTER). */
/* (allgatherv: judged with every rank's count recvcount, displacements
 * packed in rank order; alltoallv has no vectors here: invalid, 0.) */
int topocoll_applicable(topocoll_coll coll, const char *algorithm, int sendcount,
                        MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype, MPI_Op op,
                        int root, MPI_Comm comm, const char **why);

/* topocoll_applicable for allgather. */
int topocoll_allgather_applicable(const char *algorithm, int sendcount,
                                  MPI_Datatype sendtype, int recvcount,
                                  MPI_Datatype recvtype, MPI_Comm comm,
                                  const char **why);

/* ---- collectives --------------------------------------------------------- */

/* MPI_Allgather with topocoll's selection (tuning table, TOPOCOLL_ALLGATHER). */
int topocoll_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       MPI_Comm comm);

/* MPI_Allgather with a named algorithm ("native" is PMPI_Allgather).  An
 * algorithm that declines the arguments returns MPI_ERR_ARG (through the
 * error handler); an unknown name returns MPI_ERR_ARG too. */
int topocoll_allgather_algorithm(const char *algorithm, const void *sendbuf,
                                 int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, MPI_Comm comm);

/* The other collectives, with the MPI signatures, and by algorithm name
 * ("native" is the MPI library's own).  Selection reads TOPOCOLL_BCAST,
 * TOPOCOLL_SCATTER, TOPOCOLL_GATHER, TOPOCOLL_REDUCE and
 * TOPOCOLL_REDUCE_SCATTER_BLOCK like TOPOCOLL_ALLGATHER. */
int topocoll_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int topocoll_bcast_algorithm(const char *algorithm, void *buf, int count, MPI_Datatype type,
                             int root, MPI_Comm comm);
int topocoll_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int topocoll_scatter_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, int root, MPI_Comm comm);
int topocoll_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int topocoll_gather_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm);
int topocoll_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    int root, MPI_Comm comm);
int topocoll_reduce_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
int topocoll_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int topocoll_reduce_scatter_block_algorithm(const char *algorithm, const void *sendbuf,
                                            void *recvbuf, int recvcount, MPI_Datatype type,
                                            MPI_Op op, MPI_Comm comm);

/* MPI_Alltoall with topocoll's selection (TOPOCOLL_ALLTOALL), and by
 * algorithm name ("native" is PMPI_Alltoall).  MPI_IN_PLACE as sendbuf: the
 * receive buffer holds the input (sendcount and sendtype are ignored). */
int topocoll_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int topocoll_alltoall_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm);

/* MPI_Alltoallv with topocoll's selection (TOPOCOLL_ALLTOALLV), and by
 * algorithm name ("native" is PMPI_Alltoallv; algorithm NULL: selection).
 * MPI_IN_PLACE as sendbuf: the receive buffer holds the input, described by
 * recvcounts and rdispls.  Negative counts are MPI_ERR_COUNT, negative
 * displacements and NULL vectors MPI_ERR_ARG.  (topocoll_run has no
 * vectors: it runs the regular problem, every count sendcount / recvcount,
 * displacements j x count.) */
int topocoll_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                       MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                       const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm);
int topocoll_alltoallv_algorithm(const char *algorithm, const void *sendbuf, const int *sendcounts,
                                 const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                                 const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                                 MPI_Comm comm);

/* MPI_Allgatherv with topocoll's selection (TOPOCOLL_ALLGATHERV), and by
 * algorithm name ("native" is PMPI_Allgatherv; algorithm NULL: selection).
 * Any counts (zeros included) and displacements in any order; MPI_IN_PLACE
 * as sendbuf: the own block is recvbuf's block at displs[rank].  Displace-
 * ments other than the packed prefix sums of recvcounts cost a staging
 * buffer and one local copy per block.  Negative counts are MPI_ERR_COUNT,
 * negative displacements and NULL vectors MPI_ERR_ARG, a sendcount that
 * differs from recvcounts[rank] (in bytes) MPI_ERR_TRUNCATE.  Entries that
 * need equal blocks decline unequal counts.  (topocoll_run has no vectors:
 * it runs the regular problem, every count recvcount, displacements
 * j x recvcount.) */
int topocoll_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm);
int topocoll_allgatherv_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                                  const int *displs, MPI_Datatype recvtype, MPI_Comm comm);

/* MPI_Barrier with topocoll's selection (TOPOCOLL_BARRIER), and by
 * algorithm name ("native" is PMPI_Barrier): no rank returns before every
 * rank of comm has called it. */
int topocoll_barrier(MPI_Comm comm);
int topocoll_barrier_algorithm(const char *algorithm, MPI_Comm comm);
/* MPI_Gatherv and MPI_Scatterv with topocoll's selection (TOPOCOLL_GATHERV,
 * TOPOCOLL_SCATTERV), and by algorithm name ("native" is PMPI_Gatherv /
 * PMPI_Scatterv).  The vectors are read at the root only; any counts and
 * displacements (zeros, any order; a scatterv's send blocks may overlap),
 * MPI_IN_PLACE at the root.  Displacements other than the packed prefix
 * sums of the counts cost a staging buffer and one local copy per block at
 * the root.  Entries other than "linear" and "native" first spread the
 * root's counts to every rank (one allreduce of p + 2 counts); where the
 * ranks' one-block datatypes differ in size from the root's vector type,
 * they run "linear" instead.  Negative counts are MPI_ERR_COUNT, negative
 * displacements and NULL vectors at the root MPI_ERR_ARG. */
int topocoll_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                     MPI_Comm comm);
int topocoll_gatherv_algorithm(const char *algorithm, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
                               const int *displs, MPI_Datatype recvtype, int root, MPI_Comm comm);
int topocoll_scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm);
int topocoll_scatterv_algorithm(const char *algorithm, const void *sendbuf, const int *sendcounts,
                                const int *displs, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, int root, MPI_Comm comm);

/* MPI_Allreduce with topocoll's selection (TOPOCOLL_ALLREDUCE), and by
 * algorithm name ("native" is PMPI_Allreduce).  Every rank gets a
 * bitwise-identical result; a non-commutative op is reduced in rank order
 * (algorithms that cannot keep it decline). */
int topocoll_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm);
int topocoll_allreduce_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/* topocoll_reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm)
 * (declared from the list below): MPI_Reduce_scatter with topocoll's
 * selection (TOPOCOLL_REDUCE_SCATTER).  The input is the vector of
 * recvcounts[0] + .. + recvcounts[size-1] elements; rank r receives block r
 * (recvcounts[r] elements) of its reduction.  Any counts, zeros included;
 * MPI_IN_PLACE as sendbuf: recvbuf holds the input vector.  A
 * non-commutative op is reduced in rank order (entries that cannot keep it
 * decline).  Negative counts are MPI_ERR_COUNT, a NULL recvcounts
 * MPI_ERR_ARG. */
int topocoll_reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts, MPI_Datatype type,
                            MPI_Op op, MPI_Comm comm);
int topocoll_reduce_scatter_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf,
                                      const int *recvcounts, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/* MPI_Alltoallw with topocoll's selection (TOPOCOLL_ALLTOALLW), and by
 * algorithm name ("native" is PMPI_Alltoallw): per-peer counts, byte
 * displacements and datatypes; MPI_IN_PLACE as sendbuf. */
int topocoll_alltoallw(const void *sendbuf, const int *sendcounts, const int *sdispls,
                       const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
                       const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm);
int topocoll_alltoallw_algorithm(const char *algorithm, const void *sendbuf, const int *sendcounts,
                                 const int *sdispls, const MPI_Datatype *sendtypes, void *recvbuf,
                                 const int *recvcounts, const int *rdispls,
                                 const MPI_Datatype *recvtypes, MPI_Comm comm);

/* MPI_Scan and MPI_Exscan with topocoll's selection (TOPOCOLL_SCAN,
 * TOPOCOLL_EXSCAN), and by algorithm name ("native" is PMPI_Scan /
 * PMPI_Exscan).  Rank r gets the operation over ranks 0..r (exscan: 0..r-1;
 * rank 0's recvbuf is left as it was), combined in rank order, so
 * non-commutative operations are served; MPI_IN_PLACE at every rank. */
int topocoll_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm);
int topocoll_scan_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int topocoll_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm);
int topocoll_exscan_algorithm(const char *algorithm, const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/* Every collective of the list (topocoll_colls.h), declared from its row:
 * topocoll_<lower>(the MPI arguments) with topocoll's selection
 * (TOPOCOLL_<UPPER>), topocoll_<lower>_algorithm(algorithm, the MPI
 * arguments) by algorithm name ("native" is PMPI_<Mpi>).  The collectives
 * above are among them (the same declarations). */
#define TOPOCOLL_DECLARE(UPPER, lower, Mpi, SHAPE)                                \
    int topocoll_##lower(TOPOCOLL_PARAMS_##SHAPE);                                \
    int topocoll_##lower##_algorithm(const char *algorithm, TOPOCOLL_PARAMS_##SHAPE);
TOPOCOLL_COLLS(TOPOCOLL_DECLARE)
#undef TOPOCOLL_DECLARE

/* ---- nonblocking and persistent collectives (docs/nonblocking.md) -------- */

/* Every collective of the list, nonblocking: topocoll_i<lower>(the MPI
 * arguments, request) with topocoll's selection among the entries that have
 * a nonblocking form (TOPOCOLL_<UPPER> forces one as for the blocking call;
 * an entry without a nonblocking form declines, and the MPI library's own
 * MPI_I<Mpi> serves), topocoll_i<lower>_algorithm(algorithm, ...) by name.
 * *request is an MPI_Request: MPI_Wait, MPI_Test and their all/any/some
 * forms complete it, mixed with any other requests, where the interposer is
 * loaded (preloaded or linked: libtopocoll_pmpi), whose wait and test calls
 * advance topocoll's operations; a program linked with libtopocoll alone
 * advances them with topocoll_progress() or TOPOCOLL_PROGRESS=thread.
 *
 * topocoll_<lower>_init(the MPI arguments, info, request): the persistent
 * form (MPI-4's MPI_<Mpi>_init, also on MPI-3 libraries): the entry, its
 * schedule and its scratch are chosen and made once here; topocoll_start /
 * topocoll_startall (or MPI_Start / MPI_Startall through the interposer)
 * run it, MPI_Wait and MPI_Test complete each start, MPI_Request_free frees
 * it.  Collective: every rank calls it in the same order as its other
 * collectives on comm, and starts its requests in the same order too.  A
 * request served by node-shared memory gets windows of its own here (the
 * ranks of each node synchronise, as MPI-4 allows an init to), so that its
 * starts run beside blocking calls and other requests on comm.
 * topocoll_<lower>_init_algorithm(algorithm, ...) names the entry: one
 * without a persistent form is an error (MPI_ERR_ARG) with its reason. */
#define TOPOCOLL_DECLARE_NB(UPPER, lower, Mpi, SHAPE)                                  \
    int topocoll_i##lower(TOPOCOLL_PARAMS_##SHAPE, MPI_Request *request);              \
    int topocoll_i##lower##_algorithm(const char *algorithm, TOPOCOLL_PARAMS_##SHAPE,  \
                                      MPI_Request *request);                           \
    int topocoll_##lower##_init(TOPOCOLL_PARAMS_##SHAPE, MPI_Info info, MPI_Request *request); \
    int topocoll_##lower##_init_algorithm(const char *algorithm, TOPOCOLL_PARAMS_##SHAPE, \
                                          MPI_Info info, MPI_Request *request);
TOPOCOLL_COLLS(TOPOCOLL_DECLARE_NB)
#undef TOPOCOLL_DECLARE_NB

/* Start a persistent request of topocoll_<lower>_init (or any other
 * persistent request: MPI_Start's). */
int topocoll_start(MPI_Request *request);
int topocoll_startall(int count, MPI_Request requests[]);

/* Advance every outstanding nonblocking or started persistent operation of
 * this process as far as it goes without waiting; returns how many are still
 * outstanding.  MPI's wait and test calls do this through the interposer. */
int topocoll_progress(void);

/* Any collective in one form: the named algorithm (algorithm != NULL; as
 * topocoll_<coll>_algorithm) or topocoll's selection (algorithm == NULL; as
 * topocoll_<coll>).  The arguments are MPI_Allgather's plus op and root;
 * what a collective does not take is ignored: bcast's buffer is recvbuf
 * (recvcount, recvtype); reduce, reduce_scatter_block, allreduce, scan and exscan take recvcount and
 * recvtype for both buffers (reduce: count; reduce_scatter_block: the count
 * of one block); op is read by reductions only, root by rooted collectives
 * only; alltoallv, allgatherv, reduce_scatter, gatherv and scatterv run the
 * regular problem (every count sendcount / recvcount, displacements j x
 * count).  Returns an MPI error
 * class as the specific functions do. */
int topocoll_run(topocoll_coll coll, const char *algorithm, const void *sendbuf, int sendcount,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 MPI_Op op, int root, MPI_Comm comm);

/* ---- topology ------------------------------------------------------------ */

/* Give comm a virtual topology from a spec (see docs/topology.md), replacing
 * whatever was detected or set before.  Collective over comm; every rank must
 * pass the same spec.  spec == NULL goes back to detection (or
 * TOPOCOLL_TOPOLOGY).  Returns MPI_SUCCESS or an MPI error class; a malformed
 * spec gets a message on stderr naming the problem. */
int topocoll_set_topology(MPI_Comm comm, const char *spec);

/* Where a rank sits in comm's topology (building it if needed). */
typedef struct topocoll_rank_place {
    int node;        /* node id, 0 .. nnodes-1 */
    int socket;      /* socket / NUMA domain id, global, 0 .. nsockets-1 */
    int node_index;  /* index of the rank among the ranks of its node */
    int socket_index;/* index of the rank among the ranks of its socket */
} topocoll_rank_place;

int topocoll_topology_place(MPI_Comm comm, int rank, topocoll_rank_place *place);
int topocoll_topology_counts(MPI_Comm comm, int *nnodes, int *nsockets);
/* One-line description of comm's topology into buf (truncated to len). */
int topocoll_topology_describe(MPI_Comm comm, char *buf, int len);
/* Whether comm's ranks time-share processors, as detected when comm's
 * context was made (or as TOPOCOLL_OVERSUBSCRIBED says): *oversubscribed 1
 * when some node runs more of comm's ranks than the processing units they
 * may use, 0 when none does, -1 when it cannot be told; buf (may be NULL)
 * receives a one-line description.  Selection rules measured on one kind of
 * machine serve only that kind (docs/selection.md). */
int topocoll_oversubscribed(MPI_Comm comm, int *oversubscribed, char *buf, int len);

/* ---- explain --------------------------------------------------------------- */

/* Name of the algorithm that served the calling thread's last topocoll call,
 * on any communicator ("" before its first call): per thread, so other
 * threads' calls do not change it. */
const char *topocoll_last_algorithm(void);

/* Drop the cached schedules of comm (for tests and benchmarks). */
int topocoll_flush_cache(MPI_Comm comm);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* TOPOCOLL_H */
