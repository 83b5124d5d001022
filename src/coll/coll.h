/*
 * What a collective is, without MPI: the arguments a schedule generator may
 * look at (tc_args) and, per collective, one descriptor (tc_coll_desc,
 * coll/desc.h) that the API's argument checks, the executor's buffer
 * binding, the verifier, the benchmark and the tests all read.
 */
#ifndef TC_COLL_COLL_H
#define TC_COLL_COLL_H

#include <stdint.h>
#include "topocoll_types.h"

/*
 * Counts and displacements per peer of one rank, for the collectives whose
 * counts differ per peer (alltoallv; an allgatherv would use rcounts and
 * rdispls per source and scounts[0]): in elements of each buffer's own type,
 * [size] each.  Rank j's part of SEND is SEND[sdispls[j], scounts[j]], of
 * RECV RECV[rdispls[j], rcounts[j]].  With MPI_IN_PLACE the normalisation
 * points scounts/sdispls at rcounts/rdispls (SEND is RECV).
 */
typedef struct tc_vcounts {
    const int64_t *scounts, *sdispls;
    const int64_t *rcounts, *rdispls;
} tc_vcounts;

/*
 * Everything a generator may look at: sizes, never payload.  Counts are in
 * elements of each buffer's own type; what SEND, RECV and TMP hold for each
 * collective is its descriptor's business (tc_coll_desc below).
 */
typedef struct tc_args {
    topocoll_coll coll;
    int rank;          /* the rank the schedule is for */
    int size;          /* communicator size */
    int64_t scount;    /* see the collective's descriptor */
    int64_t rcount;    /* see the collective's descriptor */
    int root;          /* rooted collectives */
    int in_place;      /* MPI_IN_PLACE given at this rank (aliasing per descriptor) */
    int commutative;   /* reductions: the op is commutative */
    int node_shm;      /* the consumer can give the ranks of a node shared memory
                          (executor: measured per communicator; verifier: yes) */
    int cma;           /* a node's ranks can read each other's buffers (Linux
                          cross-memory attach, contiguous types; executor:
                          probed per communicator; verifier: yes) */
    const char *cma_why; /* when cma is 0, why (NULL: the generic reason) */
    const void *param; /* the algorithm's own parameters (tc_algo.param);
                          set by tc_algo_generate / tc_algo_accepts */
    const tc_vcounts *v; /* per-peer counts of this rank (desc vcounts); else NULL */
    /* With v, for entries with TC_REQ_NODE_COUNTS only (the consumer gathers
     * them node-locally first; NULL otherwise): the count rows of every rank
     * of my node (index in the node i, peer j: [i * size + j]), in scratch
     * (TMP) units: what member i sends to j and receives from j. */
    const int64_t *node_sc, *node_rc;
    int64_t relem_bytes; /* bytes of one RECV element (the receive type's size;
                          the simulator: its element size); 0 when unknown, read
                          as 1.  Only algorithms that size messages in bytes
                          (alltoall "linear" with pieces) read it. */
    int load;          /* tc_load: whether some node runs more ranks than the
                          processing units they may use (executor: detected
                          per communicator; 0 = unknown: every rule applies) */
} tc_args;

/* Messages under the eager limit: entries that cut their messages into pieces
 * keep each below the size above which an MPI library sends in two phases,
 * waiting for the receiver's answer between them (64 KiB for Open MPI's TCP
 * transport); on a link loaded both ways that answer queues behind the data
 * (docs/alltoall.md, "Pieces under the eager limit"). */
enum { TC_PIECE_BYTES = 32768 };

/* How many RECV elements make a piece of at most TC_PIECE_BYTES (at least
 * one). */
static inline int64_t tc_args_piece_elems(const tc_args *a)
{
    int64_t n = TC_PIECE_BYTES / (a->relem_bytes > 0 ? a->relem_bytes : 1);
    return n > 0 ? n : 1;
}

/* The load condition of a selection rule (tc_rule.load) and the load of a
 * call (tc_args.load).  A rule with TC_LOAD_ANY applies everywhere; the
 * others only where the call's load is the same or unknown. */
typedef enum {
    TC_LOAD_ANY = 0,              /* rule: any machine; call: not known */
    TC_LOAD_OVERSUBSCRIBED = 1,   /* some node has more ranks than processing units */
    TC_LOAD_DEDICATED = 2         /* every node has a processing unit per rank */
} tc_load;

/* Collective names ("allgather"); -1 / NULL when unknown. */
int tc_coll_from_name(const char *name);
const char *tc_coll_name(topocoll_coll coll);

#endif
