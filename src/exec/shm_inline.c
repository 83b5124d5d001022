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
 * Calls.  Every inline call on the communicator takes the next sequence
 * number s (the same on every rank: collectives are called in the same
 * order) and uses the slots of parity s mod 2.  Writers and readers:
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
 * 0) between two node barriers that every rank reaches in call s after
 * finishing call s - 1: the call needs no check (line_read_all = s - 1) and
 * each rank sets its new done line to s - 1 at once. */
#include "exec/shm_inline.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/reduce_kernels.h"

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

/* A rank's bytes of call seq, at most n of them: the first line (its word
 * gives the writer's size), then the last line wanted, whose release orders
 * every line before it, so the copy streams the lines in.  Returns the
 * bytes copied; *truncated when the writer published more than n. */
static int64_t collect(const tc_shm *sh, inline_line *slot, char *dst, int64_t n, uint64_t seq, int *truncated)
{
    int64_t theirs = (int64_t)(tc_shm_wait_for(sh, &slot[0].seq, seq << SIZE_BITS) & SIZE_MAX_BYTES);
    if (theirs == SIZE_MAX_BYTES) theirs = n;   /* saturated: cannot tell, take ours */
    if (theirs > n) *truncated = 1;
    int64_t m = theirs < n ? theirs : n, full = m > 0 ? (m - 1) / PAYLOAD : 0, i = 0;
    if (m == 0) return 0;
    if (full > 0) tc_shm_wait_for(sh, &slot[full].seq, seq);
    for (; i < full; i++) memcpy(dst + i * PAYLOAD, slot[i].data, PAYLOAD);
    memcpy(dst + i * PAYLOAD, slot[i].data, (size_t)(m - i * PAYLOAD));
    return m;
}

/* ---- one call: sequence number, slots, reuse --------------------------------- */

typedef struct inline_call {
    tc_shm *sh;
    MPI_Comm comm;
    tc_bind b;              /* the datatype, on the buffer results go to */
    int count;
    int64_t n;              /* packed bytes per slot */
    uint64_t seq;
    int parity;
    char *packed;           /* n bytes of scratch */
    char *typed;            /* a typed copy for non-contiguous types (malloc) */
    const char *own_in;     /* this rank's contribution as dense elements in the
                               user's send buffer, or NULL: read from its slot */
    tc_reduce_kernel k;
} inline_call;

static inline_line *slot_of(const inline_call *c, int r)
{
    return (inline_line *)(void *)tc_shm_lines_slot(c->sh, c->parity, r);
}

/* Rank r's done line: the last line of its parity-0 slot (data use fewer). */
static _Atomic uint64_t *done_of(const tc_shm *sh, int r)
{
    return (_Atomic uint64_t *)(void *)(tc_shm_lines_slot(sh, 0, r) + (sh->line_cap - 1) * LINE);
}

/* Slots for n bytes plus the done line (collective over the node when they
 * grow: same n everywhere), and the call's sequence number. */
static int begin(inline_call *c)
{
    tc_shm *sh = c->sh;
    size_t cap = sh->line_cap;
    int rc = tc_shm_lines_reserve(sh, (size_t)((c->n + PAYLOAD - 1) / PAYLOAD) + 1);
    if (rc != MPI_SUCCESS) return rc;
    c->seq = ++sh->line_calls;
    c->parity = (int)(c->seq & 1);
    if (sh->line_cap != cap) {   /* new slots, made after everyone finished seq - 1 */
        sh->line_read_all = c->seq - 1;
        atomic_store_explicit(done_of(sh, sh->node_rank), c->seq - 1, memory_order_release);
    }
    return MPI_SUCCESS;
}

/* Before writing our slot of this call's parity: nobody still reads it. */
static void make_room(const inline_call *c)
{
    const tc_shm *sh = c->sh;
    if (c->seq <= 2 || sh->line_read_all == c->seq - 1) return;
    for (int q = 0; q < sh->node_size; q++)
        if (q != sh->node_rank) tc_shm_wait_for(sh, done_of(sh, q), c->seq - 2);
}

static void publish_mine(const inline_call *c, const char *src)
{
    make_room(c);
    publish(slot_of(c, c->sh->node_rank), src, c->n, c->seq);
}

/* After the call's last read; read_all: we read every other rank's slot. */
static void finish(const inline_call *c, int read_all)
{
    tc_shm *sh = c->sh;
    atomic_store_explicit(done_of(sh, sh->node_rank), c->seq, memory_order_release);
    if (read_all) sh->line_read_all = c->seq;
}

/* Rank r's bytes of this call into typed elements at dst (c->b's type):
 * MPI_ERR_TRUNCATE where r published more than this rank expects (fewer:
 * the rest of dst is left as it was, as a short receive leaves it). */
static int collect_typed(const inline_call *c, int r, char *dst)
{
    int truncated = 0, rc = MPI_SUCCESS;
    if (c->b.contiguous) {
        collect(c->sh, slot_of(c, r), dst, c->n, c->seq, &truncated);
    } else {
        int64_t got = collect(c->sh, slot_of(c, r), c->packed, c->n, c->seq, &truncated);
        rc = tc_unpack_elems(c->packed, dst, c->b.size > 0 ? got / c->b.size : 0, &c->b, c->comm);
    }
    return truncated ? MPI_ERR_TRUNCATE : rc;
}

/* Scratch: n packed bytes (the workspace's staging buffer), and with typed
 * for a non-contiguous type a typed copy spanning count elements. */
static int scratch(inline_call *c, tc_workspace *ws, int typed)
{
    int rc = tc_workspace_stage(ws, (size_t)c->n);
    if (rc != MPI_SUCCESS) return rc;
    c->packed = ws->stage;
    c->typed = NULL;
    if (c->b.contiguous || !typed) return MPI_SUCCESS;
    size_t span = (size_t)(c->b.true_extent + (MPI_Aint)(c->count - 1) * c->b.extent);
    char *mem = malloc(span ? span : 1);
    if (!mem) return MPI_ERR_NO_MEM;
    c->typed = mem - c->b.true_lb;
    return MPI_SUCCESS;
}

/* Publish count elements of type at in (packed first when not contiguous);
 * published even after a packing failure: the readers wait for the slot. */
static int publish_input(const inline_call *c, const void *in, int count, MPI_Datatype type)
{
    tc_bind own = c->b;   /* the call's type: the same layout at another address */
    own.base = (char *)in;
    int rc = type == c->b.type ? MPI_SUCCESS : tc_bind_type(&own, (void *)in, type);
    if (rc == MPI_SUCCESS && own.contiguous) {
        publish_mine(c, in);
        return MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS) rc = tc_pack_elems(in, count, &own, c->packed, c->comm);
    publish_mine(c, c->packed);
    return rc;
}

/* ---- reductions: allreduce, reduce -------------------------------------------- */

/* rbuf = contribution of r (op) rbuf, or = contribution of r (first). */
static int fold(inline_call *c, int r, int first)
{
    if (first) return collect_typed(c, r, c->b.base);
    if (r == c->sh->node_rank && c->own_in)   /* the same bytes as our slot, without the copy */
        return tc_reduce_local(&c->k, c->own_in, c->b.base, c->count, c->b.extent, c->b.extent);
    int truncated = 0;
    if (collect(c->sh, slot_of(c, r), c->packed, c->n, c->seq, &truncated) != c->n || truncated)
        return MPI_ERR_TRUNCATE;   /* counts that do not match: nothing to reduce with */
    const char *in = c->packed;
    MPI_Aint in_extent = (MPI_Aint)c->b.size;
    if (!c->b.contiguous) {
        int rc = tc_unpack_elems(c->packed, c->typed, c->count, &c->b, c->comm);
        if (rc != MPI_SUCCESS) return rc;
        in = c->typed;
        in_extent = c->b.extent;
    }
    return tc_reduce_local(&c->k, in, c->b.base, c->count, in_extent, c->b.extent);
}

/* c_0 op (c_1 op (... op c_{n-1})) into c->b.base: bitwise the same result
 * wherever it is evaluated, MPI's order for non-commutative operations.
 * Every slot is read whatever fails. */
static int fold_all(inline_call *c)
{
    int rc = MPI_SUCCESS;
    for (int r = c->sh->node_size - 1; r >= 0; r--) {
        int rc2 = fold(c, r, r == c->sh->node_size - 1);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    return rc;
}

/* The common start of a call on count elements of type bound at base; k:
 * a reduction's kernel, or NULL.  A type the kernels know is a predefined
 * scalar of k->elem dense bytes, bound without asking the MPI library
 * (three calls per binding, a visible part of an 8-byte call). */
static int start(inline_call *c, tc_shm *sh, MPI_Comm comm, void *base, int count, MPI_Datatype type,
                 const tc_reduce_kernel *k)
{
    /* field by field: zeroing the whole struct first (a string store) was
     * a visible part of an 8-byte call */
    c->sh = sh;
    c->comm = comm;
    c->count = count;
    c->seq = 0;
    c->parity = 0;
    c->packed = c->typed = NULL;
    c->own_in = NULL;
    if (k) c->k = *k;
    if (k && k->elem) {
        MPI_Aint elem = (MPI_Aint)k->elem;
        c->b.base = base;
        c->b.type = type;
        c->b.extent = c->b.true_extent = elem;
        c->b.true_lb = 0;
        c->b.size = (int)elem;
        c->b.contiguous = 1;
        c->b.packed = 0;
    } else {
        int rc = tc_bind_type(&c->b, base, type);
        if (rc != MPI_SUCCESS) return rc;
    }
    c->n = count > 0 ? (int64_t)count * c->b.size : 0;
    return MPI_SUCCESS;
}

/* Every rank publishes; the ranks with `reads` fold every slot into rbuf. */
static int reduce_call(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, const void *sbuf, void *rbuf, int count,
                       MPI_Datatype type, MPI_Op op, int reads)
{
    inline_call c;
    tc_reduce_kernel k;
    tc_reduce_kernel_find(op, type, &k);
    int rc = start(&c, sh, comm, rbuf, count, type, &k);
    if (rc != MPI_SUCCESS || c.n == 0) return rc;
    if ((rc = scratch(&c, ws, reads)) != MPI_SUCCESS) return rc;
    if ((rc = begin(&c)) != MPI_SUCCESS) {
        if (c.typed) free(c.typed + c.b.true_lb);
        return rc;
    }
    rc = publish_input(&c, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, type);
    /* our contribution straight from the send buffer; from our slot where the
     * buffers alias (erroneous, but the slot still holds the input) */
    if (sbuf != MPI_IN_PLACE && sbuf != rbuf && c.b.contiguous) c.own_in = sbuf;
    if (reads) {
        int rc2 = fold_all(&c);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    finish(&c, reads || sh->node_size == 1);
    if (c.typed) free(c.typed + c.b.true_lb);
    return rc;
}

int tc_shm_inline_allreduce(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, const void *sbuf, void *rbuf,
                            int count, MPI_Datatype type, MPI_Op op)
{
    return reduce_call(sh, ws, comm, sbuf, rbuf, count, type, op, 1);
}

int tc_shm_inline_reduce(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, const void *sbuf, void *rbuf, int count,
                         MPI_Datatype type, MPI_Op op, int root)
{
    return reduce_call(sh, ws, comm, sbuf, rbuf, count, type, op, sh->node_rank == root);
}

/* ---- allgather, bcast ------------------------------------------------------------ */

int tc_shm_inline_allgather(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, const void *sbuf, int scount,
                            MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype)
{
    inline_call c;
    int rc = start(&c, sh, comm, rbuf, rcount, rtype, NULL);
    if (rc != MPI_SUCCESS || c.n == 0) return rc;
    if ((rc = scratch(&c, ws, 0)) != MPI_SUCCESS) return rc;
    if ((rc = begin(&c)) != MPI_SUCCESS) return rc;
    int me = sh->node_rank, p = sh->node_size;
    MPI_Aint block = (MPI_Aint)rcount * c.b.extent;
    char *mine = c.b.base + (MPI_Aint)me * block;
    if (sbuf == MPI_IN_PLACE) {
        rc = publish_input(&c, mine, rcount, rtype);
    } else {
        rc = publish_input(&c, sbuf, scount, stype);
        /* the own block from our slot: a local copy, our own cache */
        int rc2 = collect_typed(&c, me, mine);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    for (int i = 1; i < p; i++) {   /* from the next rank on: readers spread over the slots */
        int r = (me + i) % p;
        int rc2 = collect_typed(&c, r, c.b.base + (MPI_Aint)r * block);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    finish(&c, 1);
    return rc;
}

int tc_shm_inline_bcast(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, void *buf, int count, MPI_Datatype type,
                        int root)
{
    inline_call c;
    int rc = start(&c, sh, comm, buf, count, type, NULL);
    if (rc != MPI_SUCCESS || c.n == 0) return rc;
    if ((rc = scratch(&c, ws, 0)) != MPI_SUCCESS) return rc;
    if ((rc = begin(&c)) != MPI_SUCCESS) return rc;
    int me = sh->node_rank;
    if (me == root) {
        rc = publish_input(&c, buf, count, type);
        finish(&c, sh->node_size == 1);
    } else {
        rc = collect_typed(&c, root, buf);
        finish(&c, sh->node_size == 2);   /* the root is every other rank */
    }
    return rc;
}
