/*
 * Node-shared memory for schedules with SHM regions and SIGNAL/WAIT ops.
 *
 * Per communicator context: a node communicator (the ranks of this rank's
 * node in the topology, virtual or detected), a data window
 * (MPI_Win_allocate_shared, grown on demand, split in two halves that
 * alternate between calls so that a call never overwrites what a slower
 * rank still reads from the previous one), and a flag window of n x n
 * counters (one 64-byte line each) for SIGNAL/WAIT: SIGNAL is a release
 * store of the number of signals src sent dst so far into flag[dst][src]
 * (src its only writer), WAIT an acquire spin until flag[me][src] reaches
 * the number of waits on src so far.  Waiting spins when the caller says
 * every rank has a processing unit of its own (the detected load,
 * src/detect/load.c) and yields the CPU soon otherwise; a wait that lasts
 * yields, then sleeps, either way (backoff.h).  The line's second
 * word passes an error on with a signal (tc_shm_signal_error).
 *
 * After the flags, one line per node rank publishes its buffers for the
 * single-copy schedules (cma.h); tc_shm_init also probes cross-memory
 * attach (sh->cma).
 *
 * SHM data are kept packed (element = type size bytes) so that ranks whose
 * receive types have different extents agree on the layout; messages from
 * and to SHM use MPI_PACKED.
 */
#ifndef TC_EXEC_SHM_H
#define TC_EXEC_SHM_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "exec/cma.h"
#include "exec/shm_room.h"
#include "topo/topo.h"

typedef struct tc_shm {
    MPI_Comm node_comm;     /* MPI_COMM_NULL until created */
    int comm_borrowed;      /* an area's: node_comm is another tc_shm's, not freed here */
    int node_rank, node_size;
    MPI_Win data_win, flag_win;
    char *data;             /* base of the data window (both halves) */
    size_t half;            /* bytes per half */
    unsigned char *flags;   /* n*n lines */
    uint64_t *waits_seen;   /* [n] waits done on each source */
    uint64_t *signals_sent; /* [n] signals sent to each destination */
    long spins;             /* spins before the first yield of a wait */
    MPI_Win line_win;       /* the inline slots (shm_inline.h), made on first use */
    unsigned char *lines;   /* 2 parities x n ranks x line_cap lines */
    size_t line_cap;        /* lines per rank and parity */
    uint64_t line_calls;    /* inline calls so far (their sequence numbers) */
    uint64_t line_read_all; /* the last inline call in which this rank read every
                               other rank's slot (shm_inline.c: reuse) */
    unsigned long calls;    /* SHM schedules run (half = calls % 2) */
    unsigned char *pub;     /* the publication lines (cma.h), after the flags */
    tc_cma cma;             /* cross-memory attach: probed, pids */
    int fresh;              /* the data window was made and its memory not yet placed */
    uint64_t planned;       /* 1 + the largest need made ready by the API so far
                               (0: none; src/api/shm_budget.c), the same on every rank */
    size_t failed_bytes;    /* a window that could not be had (0: none): its bytes, */
    int failed_rc;          /* the MPI library's error (MPI_SUCCESS: no room, seen before asking) */
    tc_shm_room room;       /* and the backing store's room as node rank 0 saw it */
} tc_shm;

/* Create the node communicator for topology t and decide, collectively over
 * comm, whether every node's ranks can share memory (*node_shm: 1 on every
 * rank, or 0 on every rank when a virtual node spans real nodes), and
 * whether they can read each other's memory (sh->cma.ok, agreed alike).
 * spin: waits spin (every rank has a processing unit), else they yield soon. */
int tc_shm_init(tc_shm *sh, MPI_Comm comm, int rank, const tc_topo *t, int spin, int *node_shm);
/* Make the data window hold `bytes` per half (collective over the node).
 * *created says whether a new window was made (its memory not yet placed).
 * Every window is allocated only when the node agreed that its backing
 * store has room (shm_room.h), and the node agrees on the allocation's
 * outcome after it: a window that cannot be had is MPI_ERR_NO_MEM (or the
 * library's error) on every rank of the node, never a rank left waiting;
 * sh->failed_bytes, failed_rc and room then say what failed. */
int tc_shm_reserve(tc_shm *sh, size_t bytes, int *created);
/* The half to use for this call; advances the alternation. */
char *tc_shm_next_half(tc_shm *sh);
void tc_shm_signal(tc_shm *sh, int dst_node_rank);
/* A signal that carries an error (the caller's schedule saw a truncation):
 * the second word of the flag's line gets this call's number (sh->calls,
 * the same at every rank of the node for the same schedule run) before the
 * release store. */
void tc_shm_signal_error(tc_shm *sh, int dst_node_rank);
/* Wait for src's next signal; returns 1 when that signal's call carried an
 * error (exact when src cannot raise a signal of its next call before this
 * wait: the hierarchical schedules, whose signals alternate in direction;
 * otherwise a later call's error may replace it, and is missed). */
int tc_shm_wait(tc_shm *sh, int src_node_rank);
/* Without waiting: has src's next signal come?  (1: it is consumed, as
 * tc_shm_wait's, and *error says whether it carried an error; 0: not yet.) */
int tc_shm_try_wait(tc_shm *sh, int src, int *error);
/* An area: windows of its own (made by tc_shm_reserve and
 * tc_shm_lines_reserve, collective over the node) on node's node
 * communicator, which it borrows; no single-copy publication lines' use.
 * For the persistent requests (each start runs on its area alone). */
void tc_shm_init_area(tc_shm *area, const tc_shm *node);
/* Areas taken in turn by nonblocking calls (a ring of `slots` areas): a
 * call numbered seq runs on area `slot` once every rank of the node has
 * finished the call numbered `after` there.  Each rank keeps, for every
 * area, the number of the last call it finished there: one word per area
 * in its publication line of the ring's first area (home), so that a rank
 * reads a peer's state of every area at once; seen is this rank's copy of
 * what it last read ([node_size x slots], its own memory), looked at first. */
typedef struct tc_shm_gate {
    tc_shm *home;
    uint64_t *seen;
    int slot, slots;
    uint64_t seq, after;
} tc_shm_gate;
/* This rank's words 0 (before the node's barrier that makes the ring). */
void tc_shm_gate_reset(tc_shm *home, int slots);
/* This rank has finished call g->seq on area g->slot (release). */
void tc_shm_gate_done(const tc_shm_gate *g);
/* Has every rank of the node finished call g->after on area g->slot? */
int tc_shm_gate_open(const tc_shm_gate *g);
/* Spin (the node's waiting policy) until *f >= want; acquire.  Returns the
 * value seen. */
uint64_t tc_shm_wait_for(const tc_shm *sh, const _Atomic uint64_t *f, uint64_t want);
/* The cache line: flags, counters and inline slots are laid out in lines of this size. */
#define TC_SHM_LINE 64

/* Make the inline slots hold `lines` 64-byte lines per rank and parity
 * (collective over the node when they grow; new slots read as sequence 0). */
int tc_shm_lines_reserve(tc_shm *sh, size_t lines);
/* Rank r's slot of the given parity (inline: on every small call's path). */
static inline unsigned char *tc_shm_lines_slot(const tc_shm *sh, int parity, int node_rank)
{
    size_t slot = (size_t)parity * (size_t)sh->node_size + (size_t)node_rank;
    return sh->lines + slot * sh->line_cap * TC_SHM_LINE;
}
/* Free windows and the node communicator (collective over the node).
 * Releases everything; returns the first MPI error. */
int tc_shm_free(tc_shm *sh);
/* Release only our own memory (inside MPI_Finalize, which frees the rest). */
void tc_shm_forget(tc_shm *sh);

#endif
