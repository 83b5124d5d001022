/*
 * Node-shared memory of the persistent requests.
 *
 * A persistent request served by a schedule on node-shared memory (the
 * shm_* entries, the inline lines) cannot use its communicator's windows:
 * they serve the blocking calls, one at a time, and a persistent operation
 * may run while blocking calls and other persistent operations run.  So it
 * gets an area of its own: flags, data halves and inline slots (exec/shm.h)
 * in windows made on the context's node communicator when the request is
 * made.  MPI-4 defines the initialization calls of persistent collectives
 * as collective calls that may synchronise, so making windows there is
 * allowed; a start then makes no collective call and allocates nothing.
 *
 * The areas of a context are a list that every rank of a node holds alike
 * (they are made by the same collective calls).  A request freed lets its
 * area go on this rank only; a later request's init takes the first area
 * that every rank of the node has let go (one reduction over the node says
 * which), grown if it must, and makes a new one where there is none.  The
 * communicator's release frees the areas that nobody holds; one still held
 * by a request outlives its context and is released with the request (its
 * windows then with MPI_Finalize).
 */
/*
 * The nonblocking calls' ring.  A nonblocking call may not wait for the
 * other ranks, so it cannot make windows; but once a nonblocking call of a
 * communicator was chosen an entry on node-shared memory
 * (tc_nb_ring_ask), the next blocking collective on it (a call every rank
 * makes, in the same order) makes TC_NB_RING areas of a fixed size
 * (tc_nb_ring_make).  The nonblocking calls whose schedule fits then take
 * them in turn (tc_nb_ring_take: the q-th such call area q mod
 * TC_NB_RING, the same at every rank); a call starts on its area once
 * every rank of the node has finished call q - TC_NB_RING there (each
 * rank's done words, tc_shm_gate), so calls far apart never share one
 * and a start never waits.
 */
#ifndef TC_API_NB_AREAS_H
#define TC_API_NB_AREAS_H

#include <stdatomic.h>
#include <stddef.h>

#include "exec/shm.h"

struct tc_ctx;

typedef struct tc_nb_area {
    tc_shm shm;                /* windows of its own on the context's node communicator */
    int *node_idx;             /* rank -> index in its node (a copy: it may outlive the context) */
    uint64_t *seen;            /* the ring's first area: this rank's copy of the done words
                                  (tc_shm_gate), [node_size x TC_NB_RING]; else NULL */
    atomic_int held;           /* its holders here: a persistent request, or the context's
                                  ring and each nonblocking call running on it */
    int orphan;                /* its context is gone: freed here when its request lets it go */
    struct tc_nb_area *next;   /* the context's areas */
} tc_nb_area;

/* Collective over the context's communicator: every rank calls it, with
 * want 1 where its schedule needs an area of shm_bytes in each data half
 * and `lines` inline lines per slot.  Where no rank wants one, *out is
 * NULL.  Else every rank gets an area (held) on every node where some rank
 * wants one, or none anywhere: MPI_ERR_NO_MEM on every rank when a window
 * could not be had on some node (the backing store's room, agreed). */
int tc_nb_area_get(struct tc_ctx *x, int want, size_t shm_bytes, size_t lines, tc_nb_area **out);
/* The request that held a lets it go (local). */
void tc_nb_area_put(tc_nb_area *a);
/* The ring's size: data halves of TC_NB_RING_PER_RANK per rank of the
 * communicator's largest node, at least that and at most TC_NB_RING_HALF_MAX
 * and half the shared-memory budget (a copy-in reduction of 64 KiB per rank
 * on node-shared memory needs p times that: at 16 ranks a node, 8 MiB for
 * the ring's 4 areas of two halves each), inline slots of 4 KiB. */
#define TC_NB_RING_PER_RANK ((size_t)64 << 10)
#define TC_NB_RING_HALF_MAX ((size_t)1 << 20)
#define TC_NB_RING_LINES ((size_t)75)   /* tc_inline_lines(4096) */
/* The ring's data half for topology t (the same at every rank). */
size_t tc_nb_ring_half(const tc_topo *t);
/* A nonblocking call would have run on node-shared memory: the next
 * blocking call makes the ring (local; the blocking calls' memos are
 * dropped so that every rank's next one takes the full path). */
void tc_nb_ring_ask(struct tc_ctx *x);
/* Collective over the context's communicator: the ring, or none anywhere
 * (x->ring_made -1).  The nonblocking calls' memos are dropped. */
int tc_nb_ring_make(struct tc_ctx *x);
/* The next area of the ring (held), its gate in *gate and the ring's first
 * area, which holds the done words, in *home (held too); NULL where there
 * is no ring.  The caller has made sure that the call fits
 * (tc_nb_ring_half per data half, TC_NB_RING_LINES per slot) on every
 * node. */
tc_nb_area *tc_nb_ring_take(struct tc_ctx *x, tc_shm_gate *gate, tc_nb_area **home);
/* The context's release (collective over its node unless finalizing):
 * frees the areas nobody holds, leaves the held ones to their requests. */
int tc_nb_areas_release(struct tc_ctx *x, int finalizing);

#endif
