/* The inline shared-memory protocol (see shm_inline.h).
 *
 * A line is a 64-bit sequence number followed by 56 bytes of data.  The
 * writer copies the data, then release-stores the call's sequence number
 * into the same line, line after line; a reader acquire-waits for the number
 * in the slot's last line, which orders every line of the slot before it,
 * then copies the lines out.  Up to 56 bytes that is one cache-line
 * transfer, where a flag beside the data costs two (the flag's line, then
 * the data's); for more, the copy streams the lines in at once instead of
 * pulling each one while the writer still fills the next (the other lines'
 * numbers are stored but not waited for).
 *
 * Calls.  Every inline call on the communicator (one schedule with PUBLISH
 * or COLLECT ops, run by exec_mpi.c) takes the next sequence number s (the
 * same on every rank: collectives are called in the same order) and uses
 * the slots of parity s mod 2.  Writers and readers of the catalog's
 * schedules (src/algo/<coll>/shm_inline.c):
 *   allreduce, allgather: every rank writes, every rank reads every slot;
 *   reduce: every rank writes, the root reads every slot;
 *   bcast: the root writes, every other rank reads the root's slot.
 *
 * Reuse.  A rank's slot of parity s mod 2 was last written in a call t <=
 * s - 2 and read only during call t, so before writing it in call s the
 * rank makes sure that every other rank has finished call s - 2 (make_room):
 *   - each rank, at the end of every inline call, after its last read of
 *     the call, release-stores the call's number into its done line (one
 *     line per rank, its only writer);
 *   - if the writer read every other rank's slot of call s - 1
 *     (sh->line_read_all == s - 1), each of them wrote that slot after
 *     finishing call s - 2 (a rank's calls run in order), and the acquire
 *     of the sequence number carried that over: nothing to check;
 *   - otherwise it acquire-waits until every other rank's done line says
 *     s - 2 or more.
 * So allreduce and allgather, which read every slot in every call, never
 * look at a done line in a run of their own calls (the argument of the
 * alternating halves in shm.h).  A bcast root reads nothing and checks the
 * readers' done lines before each publication: it runs at most two calls
 * ahead of the slowest reader (publishing s while a reader is still in
 * s - 1, never in s - 2).  Reduce non-roots likewise check the root's (and
 * each other's) done lines; the root reads every slot and checks nothing
 * after a reduce.  Mixed sequences of the four collectives follow from the
 * same rule: the check is about calls, not about which collective made
 * them.  The waits close no cycle: done >= s - 2 needs a rank to finish
 * call s - 2, whose reads wait only for data published in call s - 2.
 * Sequence numbers only grow, and by the rule a slot cannot hold call s + 2
 * while a reader of call s looks at it, so "at least s" means "s".
 *
 * Sizes.  The first line's word carries the writer's byte count beside the
 * sequence number (first_word): readers wait for the first line, then for
 * the last line they want, so counts that differ between ranks (the user's
 * error) cost a truncation error (more published than expected) or a short
 * copy (fewer), never a wait for a line nobody writes.
 *
 * Growth.  tc_shm_lines_reserve replaces the slots (sequence 0, done lines
 * 0) between two node barriers that every rank reaches after finishing
 * call s - 1 (in call s, or between calls for an area made ahead of them):
 * tc_inline_reserve then sets line_read_all to s - 1, so that call s needs
 * no check, and each rank's new done line to s - 1 at once; a done line
 * left at 0 would make a writer of call s > 2 wait for ever. */
#include "exec/shm_inline.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>


#define LINE TC_SHM_LINE
#define PAYLOAD (LINE - (int64_t)sizeof(uint64_t))

typedef struct inline_line {
    _Atomic uint64_t seq;
    unsigned char data[PAYLOAD];
} inline_line;

_Static_assert(sizeof(inline_line) == LINE, "an inline line is one cache line");

/* ---- lines ------------------------------------------------------------------ */

/* The first line's word also says how many bytes the writer published:
 * the sequence number shifted left by SIZE_BITS, the size (saturated) below
 * it.  A reader whose count differs from the writer's (the user's error:
 * signatures that do not match) then never waits for a line that will not
 * come, and can report a truncation as a receive would. */
#define SIZE_BITS 24
#define SIZE_MAX_BYTES (((int64_t)1 << SIZE_BITS) - 1)

static uint64_t first_word(uint64_t seq, int64_t n)
{
    return seq << SIZE_BITS | (uint64_t)(n < SIZE_MAX_BYTES ? n : SIZE_MAX_BYTES);
}

/* Full lines copy a constant 56 bytes (inlined moves), the last line the
 * rest; the first line is stored first, with the size. */
static void publish(inline_line *slot, const char *src, int64_t n, uint64_t seq)
{
    int64_t full = (n - 1) / PAYLOAD, i = 0;
    for (; i < full; i++) {
        memcpy(slot[i].data, src + i * PAYLOAD, PAYLOAD);
        atomic_store_explicit(&slot[i].seq, i == 0 ? first_word(seq, n) : seq, memory_order_release);
    }
    memcpy(slot[i].data, src + i * PAYLOAD, (size_t)(n - i * PAYLOAD));
    atomic_store_explicit(&slot[i].seq, i == 0 ? first_word(seq, n) : seq, memory_order_release);
}

/* The writer's byte count from its first line's word (saturated: cannot
 * tell, take the reader's n). */
static int64_t published_bytes(uint64_t first, int64_t n)
{
    int64_t theirs = (int64_t)(first & SIZE_MAX_BYTES);
    return theirs == SIZE_MAX_BYTES ? n : theirs;
}

/* The last line of m bytes (its number orders the lines before it). */
static int64_t last_line(int64_t m) { return m > 0 ? (m - 1) / PAYLOAD : 0; }

/* A rank's bytes of call seq, at most n of them: the first line (its word
 * gives the writer's size), then the last line wanted, whose release orders
 * every line before it, so the copy streams the lines in.  Returns the
 * bytes copied; *truncated when the writer published more than n. */
static int64_t collect(const tc_shm *sh, inline_line *slot, char *dst, int64_t n, uint64_t seq, int *truncated)
{
    int64_t theirs = published_bytes(tc_shm_wait_for(sh, &slot[0].seq, seq << SIZE_BITS), n);
    if (theirs > n) *truncated = 1;
    int64_t m = theirs < n ? theirs : n, full = last_line(m), i = 0;
    if (m == 0) return 0;
    if (full > 0) tc_shm_wait_for(sh, &slot[full].seq, seq);
    for (; i < full; i++) memcpy(dst + i * PAYLOAD, slot[i].data, PAYLOAD);
    memcpy(dst + i * PAYLOAD, slot[i].data, (size_t)(m - i * PAYLOAD));
    return m;
}

/* ---- one call: sequence number, slots, reuse --------------------------------- */

static inline_line *slot_of(const tc_shm *sh, const tc_inline_call *c, int r)
{
    return (inline_line *)(void *)tc_shm_lines_slot(sh, c->parity, r);
}

/* Rank r's done line: the last line of its parity-0 slot (data use fewer). */
static _Atomic uint64_t *done_of(const tc_shm *sh, int r)
{
    return (_Atomic uint64_t *)(void *)(tc_shm_lines_slot(sh, 0, r) + (sh->line_cap - 1) * LINE);
}

size_t tc_inline_lines(int64_t n)
{
    return (size_t)((n + PAYLOAD - 1) / PAYLOAD) + 1;   /* and the done line */
}

int tc_inline_reserve(tc_shm *sh, size_t lines)
{
    size_t cap = sh->line_cap;
    int rc = tc_shm_lines_reserve(sh, lines);
    if (rc != MPI_SUCCESS || sh->line_cap == cap) return rc;
    /* new slots, made between calls: every rank has finished the last one */
    sh->line_read_all = sh->line_calls;
    atomic_store_explicit(done_of(sh, sh->node_rank), sh->line_calls, memory_order_release);
    return MPI_SUCCESS;
}

int tc_inline_begin(tc_shm *sh, int64_t n, tc_inline_call *c)
{
    int rc = tc_inline_reserve(sh, tc_inline_lines(n));
    if (rc != MPI_SUCCESS) return rc;
    c->seq = ++sh->line_calls;
    c->parity = (int)(c->seq & 1);
    return MPI_SUCCESS;
}

/* Writing our slot of this call's parity needs no look at the done lines:
 * no call two back, or we read every slot of the last call (see Reuse). */
static int room_known(const tc_shm *sh, const tc_inline_call *c)
{
    return c->seq <= 2 || sh->line_read_all == c->seq - 1;
}

/* Before writing our slot of this call's parity: nobody still reads it. */
static void make_room(const tc_shm *sh, const tc_inline_call *c)
{
    if (room_known(sh, c)) return;
    for (int q = 0; q < sh->node_size; q++)
        if (q != sh->node_rank) tc_shm_wait_for(sh, done_of(sh, q), c->seq - 2);
}

int tc_inline_room_ready(const tc_shm *sh, const tc_inline_call *c)
{
    if (room_known(sh, c)) return 1;
    for (int q = 0; q < sh->node_size; q++)
        if (q != sh->node_rank &&
            atomic_load_explicit(done_of(sh, q), memory_order_acquire) < c->seq - 2)
            return 0;
    return 1;
}

int tc_inline_ready(const tc_shm *sh, const tc_inline_call *c, int r, int64_t n)
{
    inline_line *slot = slot_of(sh, c, r);
    uint64_t first = atomic_load_explicit(&slot[0].seq, memory_order_acquire);
    if (first < c->seq << SIZE_BITS) return 0;
    int64_t theirs = published_bytes(first, n), full = last_line(theirs < n ? theirs : n);
    return full == 0 || atomic_load_explicit(&slot[full].seq, memory_order_acquire) >= c->seq;
}

void tc_inline_publish(const tc_shm *sh, const tc_inline_call *c, const void *src, int64_t n)
{
    make_room(sh, c);
    publish(slot_of(sh, c, sh->node_rank), src, n, c->seq);
}

int64_t tc_inline_collect(const tc_shm *sh, const tc_inline_call *c, int r, void *dst, int64_t n, int *truncated)
{
    return collect(sh, slot_of(sh, c, r), dst, n, c->seq, truncated);
}

void tc_inline_finish(tc_shm *sh, const tc_inline_call *c, int read_all)
{
    atomic_store_explicit(done_of(sh, sh->node_rank), c->seq, memory_order_release);
    if (read_all) sh->line_read_all = c->seq;
}
