/* The inline shared-memory allreduce protocol (see shm_inline.h).
 *
 * A line is a 64-bit sequence number followed by 56 bytes of data.  The
 * writer copies the data, then release-stores the call's sequence number
 * into the same line; a reader that acquire-loads that number has the data
 * of the same line with it: one cache-line transfer per line, where a flag
 * beside the data costs two (the flag's line, then the data's).
 *
 * Reuse: call k uses the slots of parity k mod 2.  A rank writes parity k
 * mod 2 again in call k + 2, after it has read every rank's slot of call
 * k + 1, which each rank wrote after reading everything of call k: nobody
 * still reads the old data (the argument of the alternating halves in
 * shm.h).  The sequence numbers grow, so an old line is never taken for a
 * new one. */
#include "exec/shm_inline.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/reduce_kernels.h"

#define LINE 64
#define PAYLOAD (LINE - (int64_t)sizeof(uint64_t))

typedef struct inline_line {
    _Atomic uint64_t seq;
    unsigned char data[PAYLOAD];
} inline_line;

_Static_assert(sizeof(inline_line) == LINE, "an inline line is one cache line");

static void publish(inline_line *slot, const char *src, int64_t n, uint64_t seq)
{
    for (int64_t off = 0, i = 0; off < n; off += PAYLOAD, i++) {
        size_t len = (size_t)(n - off < PAYLOAD ? n - off : PAYLOAD);
        memcpy(slot[i].data, src + off, len);
        atomic_store_explicit(&slot[i].seq, seq, memory_order_release);
    }
}

/* A rank's n bytes of call seq, line by line as they arrive. */
static void collect(const tc_shm *sh, inline_line *slot, char *dst, int64_t n, uint64_t seq)
{
    for (int64_t off = 0, i = 0; off < n; off += PAYLOAD, i++) {
        size_t len = (size_t)(n - off < PAYLOAD ? n - off : PAYLOAD);
        tc_shm_wait_for(sh, &slot[i].seq, seq);
        memcpy(dst + off, slot[i].data, len);
    }
}

typedef struct inline_call {
    tc_shm *sh;
    MPI_Comm comm;
    tc_bind b;              /* the datatype, on rbuf */
    int count;
    int64_t n;              /* packed bytes */
    uint64_t seq;
    int parity;
    char *packed;           /* n bytes of scratch */
    char *typed;            /* a typed copy for non-contiguous types (malloc) */
    tc_reduce_kernel k;
} inline_call;

static inline_line *slot_of(const inline_call *c, int r)
{
    return (inline_line *)(void *)tc_shm_lines_slot(c->sh, c->parity, r);
}

/* rbuf = contribution of r (op) rbuf, or = contribution of r (first). */
static int fold(inline_call *c, int r, int first)
{
    int contiguous = c->b.contiguous;
    if (first && contiguous) {   /* straight into the receive buffer */
        collect(c->sh, slot_of(c, r), c->b.base, c->n, c->seq);
        return MPI_SUCCESS;
    }
    collect(c->sh, slot_of(c, r), c->packed, c->n, c->seq);
    if (first) return tc_unpack_elems(c->packed, c->b.base, c->count, &c->b, c->comm);
    const char *in = c->packed;
    MPI_Aint in_extent = (MPI_Aint)c->b.size;
    if (!contiguous) {
        int rc = tc_unpack_elems(c->packed, c->typed, c->count, &c->b, c->comm);
        if (rc != MPI_SUCCESS) return rc;
        in = c->typed;
        in_extent = c->b.extent;
    }
    return tc_reduce_local(&c->k, in, c->b.base, c->count, in_extent, c->b.extent);
}

/* Scratch: n packed bytes (the workspace's staging buffer), and for a
 * non-contiguous type a typed copy spanning count elements. */
static int scratch(inline_call *c, tc_workspace *ws)
{
    int rc = tc_workspace_stage(ws, (size_t)c->n);
    if (rc != MPI_SUCCESS) return rc;
    c->packed = ws->stage;
    c->typed = NULL;
    if (c->b.contiguous) return MPI_SUCCESS;
    size_t span = (size_t)(c->b.true_extent + (MPI_Aint)(c->count - 1) * c->b.extent);
    char *mem = malloc(span ? span : 1);
    if (!mem) return MPI_ERR_NO_MEM;
    c->typed = mem - c->b.true_lb;
    return MPI_SUCCESS;
}

int tc_shm_inline_allreduce(tc_shm *sh, tc_workspace *ws, MPI_Comm comm, const void *sbuf, void *rbuf,
                            int count, MPI_Datatype type, MPI_Op op)
{
    inline_call c = { .sh = sh, .comm = comm, .count = count };
    int rc = tc_bind_type(&c.b, rbuf, type);
    if (rc != MPI_SUCCESS || count <= 0) return rc;
    c.n = (int64_t)count * c.b.size;
    if (c.n == 0) return MPI_SUCCESS;
    /* collective over the node when the slots grow (same n everywhere) */
    if ((rc = tc_shm_lines_reserve(sh, (size_t)((c.n + PAYLOAD - 1) / PAYLOAD))) != MPI_SUCCESS) return rc;
    if ((rc = scratch(&c, ws)) != MPI_SUCCESS) return rc;
    c.seq = ++sh->line_calls;
    c.parity = (int)(c.seq & 1);
    tc_reduce_kernel_find(op, type, &c.k);
    const char *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (c.b.contiguous) {
        publish(slot_of(&c, sh->node_rank), in, c.n, c.seq);
    } else {
        tc_bind own = c.b;   /* the input may be the send buffer: same type */
        rc = tc_pack_elems(in, count, &own, c.packed, comm);
        /* published even after a failure: the peers wait for every slot */
        publish(slot_of(&c, sh->node_rank), c.packed, c.n, c.seq);
    }
    /* every rank evaluates c_0 op (c_1 op (... op c_{n-1})): bitwise the
     * same result everywhere, MPI's order for non-commutative operations */
    for (int r = sh->node_size - 1; r >= 0; r--) {
        int rc2 = fold(&c, r, r == sh->node_size - 1);
        if (rc == MPI_SUCCESS) rc = rc2;
    }
    if (c.typed) free(c.typed + c.b.true_lb);
    return rc;
}
