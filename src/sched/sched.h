/*
 * Schedules: what an algorithm produces for one rank.
 *
 * A schedule is a list of rounds; a round is a list of operations on buffer
 * regions.  A region is (buffer, element offset, element count), counted in
 * elements of the buffer's own datatype: the user send buffer (SEND), the
 * user receive buffer (RECV), a scratch buffer (TMP) laid out in elements of
 * the datatype of the buffer named by tc_sched.tmp_like.  Nothing here knows
 * about MPI: executor, verifier and simulator all read the same schedule.
 * A fourth buffer, SHM, is node-shared memory (one per node, laid out by the
 * algorithm in elements of tmp_like's type); ranks of a node order their
 * accesses to it with SIGNAL / WAIT pairs (flag counters in shared memory).
 *
 * RREAD (single copy, Linux cross-memory attach) reads a region of a node
 * peer's own SEND, RECV or TMP straight into a local region; the peer's
 * buffers are published at the start of its schedule, so the read must come
 * after a WAIT on a signal the peer raised (from its round 0 on) and the
 * peer must not write the region or finish its schedule before a signal
 * from the reader that follows the read (the verifier checks both).
 *
 * Inline lines (src/exec/shm_inline.c): each rank of a node owns a slot of
 * 64-byte lines, 56 data bytes and a sequence number each.  Every schedule
 * with PUBLISH or COLLECT ops is one inline call: it takes the node's next
 * sequence number s and the slots of parity s mod 2.  PUBLISH copies a local
 * region into this rank's slot, line by line, each line's number stored
 * after its data (release); first, if a rank may still read the slot from
 * call s - 2, it waits for every other rank's done line to say s - 2 (make
 * room; skipped when this rank collected from every other rank in call
 * s - 1).  COLLECT waits (acquire) until the peer's slot carries s, then
 * copies it out; a peer that published more than asked is a truncation.
 * After its last round the rank stores s in its done line.  Slot regions
 * (PUBLISH's b, COLLECT's a) start at 0 and count packed elements of
 * tmp_like's type, as SHM does; tc_sched.inline_count is the slot's size,
 * the same on every rank of the node.  Rules (the verifier's): a rank
 * publishes at most once, collects from a peer at most once and only from
 * one that publishes, and keeps PUBLISH and COLLECT in different rounds.
 *
 * Synchronisation messages: a SEND and a RECV of no data (tc_sched_send_sync,
 * tc_sched_recv_sync; empty regions of SEND and RECV) are messages like any
 * other: they match in posting order and order the receiver's later rounds
 * after the sender's round (barriers; the simulator prices them at latency
 * only).  The other builders drop zero-count messages.
 *
 * Round semantics (what the MPI executor does and the verifier enforces):
 *   1. every RECV and SEND of the round is posted (nonblocking), in order;
 *   2. the local ops (COPY, REDUCE, RREAD) of the round run, in order;
 *   3. the round's SIGNALs are raised (release: everything written before,
 *      local ops of this round included, is visible to the waiter);
 *   4. the round waits for all its RECVs and SENDs, then for its WAITs
 *      (acquire).
 *   Hazards forbidden inside a round: a RECV region overlapping any other
 *   region of the round; a local op writing a region a SEND of the round
 *   reads.  Messages between two ranks match in the order they are posted
 *   (one tag, MPI's non-overtaking rule); the k-th WAIT of B on A matches the
 *   k-th SIGNAL of A to B.  SIGNAL/WAIT peers share a node.
 */
#ifndef TC_SCHED_H
#define TC_SCHED_H

#include <stdint.h>
#include <stddef.h>

enum { TC_BUF_SEND = 0, TC_BUF_RECV = 1, TC_BUF_TMP = 2, TC_BUF_SHM = 3, TC_NBUF = 4 };

typedef enum {
    TC_OP_SEND = 0,   /* a: source region; peer */
    TC_OP_RECV = 1,   /* a: destination region; peer */
    TC_OP_COPY = 2,   /* a: source, b: destination (equal byte sizes) */
    TC_OP_REDUCE = 3, /* b = a (op) b, elementwise; a, b same element count */
    TC_OP_SIGNAL = 4, /* peer (same node) may go past its matching WAIT */
    TC_OP_WAIT = 5,   /* wait for peer's matching SIGNAL */
    TC_OP_RREAD = 6,  /* a: region of peer's SEND/RECV/TMP (in its elements),
                         b: local destination; peer on this node */
    TC_OP_PUBLISH = 7,/* a: local source, b: own inline slot region (see above) */
    TC_OP_COLLECT = 8,/* a: peer's inline slot region, b: local destination;
                         peer on this node (itself allowed) */
    TC_OP_SUBCOLL = 9 /* first op of a round: the round's SENDs and RECVs are
                         one collective call over a member set (peer: TC_SUB_*) */
} tc_op_kind;

/* Member sets of TC_OP_SUBCOLL rounds.  Such a round holds only SEND, RECV
 * and COPY ops; its messages stay inside the set (NODE: the ranks of my
 * node; ROOTS: the nodes' first members), every member of the set has as
 * many SUBCOLL rounds of that set as the others, messages pair ops of the
 * c-th such rounds at both ends, and a schedule that has one at any rank
 * has one at every rank: the rules of one collective call per round, so
 * that the MPI executor may merge a round's messages to a peer into one
 * (src/exec/subcoll.c: one message per peer and direction on the set's
 * communicator, a derived datatype over the regions in op order).  What
 * moves is what its SENDs, RECVs and COPYs say (the verifier and the
 * simulator read them as such). */
enum { TC_SUB_NODE = 0, TC_SUB_ROOTS = 1 };

typedef struct tc_region {
    int64_t off;      /* in elements of the buffer's type */
    int64_t cnt;
    int8_t buf;       /* TC_BUF_* */
} tc_region;

typedef struct tc_op {
    tc_region a;
    tc_region b;
    int32_t peer;
    uint8_t kind;
} tc_op;

typedef struct tc_sched {
    tc_op *ops;
    int nops, ops_cap;
    int *round_start;  /* round i = ops[round_start[i] .. round_start[i+1]) */
    int nrounds, rounds_cap;
    int max_comm;      /* most SEND+RECV ops in one round */
    int uses_shm;      /* set by tc_sched_finish */
    int uses_rread;    /* has RREAD ops (set by tc_sched_finish) */
    int uses_inline;   /* has PUBLISH or COLLECT ops (set by tc_sched_finish) */
    int64_t inline_count; /* inline slot elements (packed tmp_like) */
    int uses_subcoll;  /* has SUBCOLL rounds (set by tc_sched_finish) */
    int64_t tmp_count; /* TMP elements needed */
    int64_t shm_count; /* SHM elements needed (node-wide layout) */
    int64_t shm_home_off, shm_home_cnt; /* SHM part to place in this rank's
                                           NUMA domain (leaders: their group's) */
    int tmp_like;      /* TC_BUF_SEND or TC_BUF_RECV: TMP's element type */
    int err;           /* sticky: nonzero after an allocation failure */
    /* Streaming (the simulator): when set, a full op or round array is
     * handed to drain instead of growing.  drain consumes every closed round
     * and every op of the open round but its last, then calls
     * tc_sched_drained; the schedule's round i is then round round_base + i
     * of the whole schedule.  Generators never read their own output, so
     * they cannot tell. */
    void (*drain)(struct tc_sched *s, void *ctx);
    void *drain_ctx;
    int round_base;    /* rounds drained so far */
    unsigned skip_kinds; /* bit 1 << kind: drop ops of that kind (RECV, COPY:
                            a consumer that only reads sends and reductions) */
    int skipped;       /* the open round had an op dropped: it is not empty */
} tc_sched;

static inline tc_region tc_reg(int buf, int64_t off, int64_t cnt)
{ tc_region r; r.buf = (int8_t)buf; r.off = off; r.cnt = cnt; return r; }

/* Pipelines: how many chunks of ch elements cover n, and chunk k of region
 * r (the last one shorter). */
static inline int tc_nchunks(int64_t n, int64_t ch) { return (int)((n + ch - 1) / ch); }
static inline tc_region tc_reg_chunk(tc_region r, int64_t ch, int k)
{
    int64_t lo = (int64_t)k * ch;
    return tc_reg(r.buf, r.off + lo, r.cnt - lo < ch ? r.cnt - lo : ch);
}

void tc_sched_init(tc_sched *s);
void tc_sched_free(tc_sched *s);
/* Empty s for reuse, keeping its memory and its consumer settings (drain,
 * drain_ctx, skip_kinds): the simulator builds one rank's schedule after
 * another into one buffer. */
void tc_sched_reset(tc_sched *s);

/* After a drain: drops the consumed rounds and ops, keeping the open
 * round's last op (so that the open round stays non-empty). */
void tc_sched_drained(tc_sched *s);

/* Slow paths of the inline builders below: grow (or drain), then append / close. */
/* A new op slot (ops[nops++]) after growing or draining, NULL on error. */
tc_op *tc_sched_push_slot(tc_sched *s);
void tc_sched_round_grow(tc_sched *s);

static inline void tc_sched_push(tc_sched *s, int kind, int peer, tc_region a, tc_region b)
{
    tc_op *o = s->nops < s->ops_cap ? &s->ops[s->nops++] : tc_sched_push_slot(s);
    if (!o) return;
    /* Field by field, straight into the array: building the op on the
     * stack and copying it made every push a store-forwarding stall. */
    o->a.off = a.off;
    o->a.cnt = a.cnt;
    o->a.buf = a.buf;
    o->b.off = b.off;
    o->b.cnt = b.cnt;
    o->b.buf = b.buf;
    o->peer = peer;
    o->kind = (uint8_t)kind;
}

/* Builders: append to the current (open) round.  Zero-count ops are dropped.
 * Failures are sticky in s->err; tc_sched_finish reports them.  Inline:
 * a generator for 16,384 ranks emits hundreds of millions of ops. */
static inline void tc_sched_send(tc_sched *s, int peer, tc_region src)
{ if (src.cnt > 0) tc_sched_push(s, TC_OP_SEND, peer, src, tc_reg(src.buf, 0, 0)); }
static inline void tc_sched_recv(tc_sched *s, int peer, tc_region dst)
{
    if (dst.cnt <= 0) return;
    if (s->skip_kinds & (1u << TC_OP_RECV)) s->skipped = 1;
    else tc_sched_push(s, TC_OP_RECV, peer, dst, tc_reg(dst.buf, 0, 0));
}
/* Zero-byte synchronisation messages (see above). */
static inline void tc_sched_send_sync(tc_sched *s, int peer)
{ tc_sched_push(s, TC_OP_SEND, peer, tc_reg(TC_BUF_SEND, 0, 0), tc_reg(TC_BUF_SEND, 0, 0)); }
static inline void tc_sched_recv_sync(tc_sched *s, int peer)
{
    if (s->skip_kinds & (1u << TC_OP_RECV)) s->skipped = 1;
    else tc_sched_push(s, TC_OP_RECV, peer, tc_reg(TC_BUF_RECV, 0, 0), tc_reg(TC_BUF_RECV, 0, 0));
}
static inline void tc_sched_copy(tc_sched *s, tc_region src, tc_region dst)
{
    if (src.cnt <= 0 && dst.cnt <= 0) return;
    if (s->skip_kinds & (1u << TC_OP_COPY)) s->skipped = 1;
    else tc_sched_push(s, TC_OP_COPY, -1, src, dst);
}
/* A copy that extends the open round's last op instead when that op is a
 * copy this one continues on both sides (src starts where its source ends,
 * dst where its destination ends): parts that lie one after another become
 * one copy.  For copies between areas that do not overlap.  Safe while
 * streaming: tc_sched_drained keeps the open round's last op. */
static inline void tc_sched_copy_join(tc_sched *s, tc_region src, tc_region dst)
{
    if (src.cnt <= 0 && dst.cnt <= 0) return;
    if (s->nops > s->round_start[s->nrounds]) {
        tc_op *o = &s->ops[s->nops - 1];
        if (o->kind == TC_OP_COPY && o->a.buf == src.buf && o->b.buf == dst.buf &&
            o->a.off + o->a.cnt == src.off && o->b.off + o->b.cnt == dst.off) {
            o->a.cnt += src.cnt;
            o->b.cnt += dst.cnt;
            return;
        }
    }
    tc_sched_copy(s, src, dst);
}
static inline void tc_sched_reduce(tc_sched *s, tc_region src, tc_region inout)
{ if (src.cnt > 0) tc_sched_push(s, TC_OP_REDUCE, -1, src, inout); }
static inline void tc_sched_signal(tc_sched *s, int peer)
{ tc_sched_push(s, TC_OP_SIGNAL, peer, tc_reg(TC_BUF_SHM, 0, 0), tc_reg(TC_BUF_SHM, 0, 0)); }
static inline void tc_sched_wait(tc_sched *s, int peer)
{ tc_sched_push(s, TC_OP_WAIT, peer, tc_reg(TC_BUF_SHM, 0, 0), tc_reg(TC_BUF_SHM, 0, 0)); }

/* Read peer's region `remote` (its own buffer) into local region `dst`. */
static inline void tc_sched_rread(tc_sched *s, int peer, tc_region remote, tc_region dst)
{ if (remote.cnt > 0) tc_sched_push(s, TC_OP_RREAD, peer, remote, dst); }

/* Inline lines: a local region into this rank's slot (from element 0), and
 * the slot of peer into a local region (its first dst.cnt elements' bytes). */
static inline void tc_sched_publish(tc_sched *s, tc_region src, int64_t slot_cnt)
{ if (slot_cnt > 0) tc_sched_push(s, TC_OP_PUBLISH, -1, src, tc_reg(TC_BUF_SHM, 0, slot_cnt)); }
static inline void tc_sched_collect(tc_sched *s, int peer, int64_t slot_cnt, tc_region dst)
{ if (slot_cnt > 0) tc_sched_push(s, TC_OP_COLLECT, peer, tc_reg(TC_BUF_SHM, 0, slot_cnt), dst); }
/* Open a member-set round (call on an empty open round): set is TC_SUB_*. */
static inline void tc_sched_subcoll(tc_sched *s, int set)
{ tc_sched_push(s, TC_OP_SUBCOLL, set, tc_reg(TC_BUF_SEND, 0, 0), tc_reg(TC_BUF_SEND, 0, 0)); }

/* Close the current round (an empty round is not kept; one whose only ops
 * were dropped receives is, so that round numbers do not depend on
 * skip_kinds). */
static inline void tc_sched_round(tc_sched *s)
{
    if (s->err || (s->round_start[s->nrounds] == s->nops && !s->skipped)) return;
    s->skipped = 0;
    if (s->nrounds + 1 < s->rounds_cap) s->round_start[++s->nrounds] = s->nops;
    else tc_sched_round_grow(s);
}
/* Ask for at least n TMP / SHM elements. */
void tc_sched_need_tmp(tc_sched *s, int64_t n);
void tc_sched_need_shm(tc_sched *s, int64_t n);
void tc_sched_need_inline(tc_sched *s, int64_t n);
void tc_sched_shm_home(tc_sched *s, int64_t off, int64_t cnt);
/* Does the schedule use node-shared memory (SHM regions or SIGNAL/WAIT)? */
int tc_sched_uses_shm(const tc_sched *s);
/* Close the last round, compute max_comm; returns 0 or an error (ENOMEM). */
int tc_sched_finish(tc_sched *s);
/* dst = src (a finished schedule), reusing dst's arrays where they are big
 * enough (dst initialised); 0 or ENOMEM. */
int tc_sched_duplicate(tc_sched *dst, const tc_sched *src);
/* Can the schedule run nonblocking (several at once on one communicator,
 * advanced by MPI's test calls)?  Only messages and local copies and
 * reductions can: node-shared memory (its halves and flags are the
 * communicator's, one call at a time), the inline lines, remote reads and
 * member-set rounds (collective calls on other communicators) cannot.
 * NULL when it can, else why not (after tc_sched_finish). */
static inline const char *tc_sched_nonblocking_why(const tc_sched *s)
{
    if (s->uses_shm) return "node-shared memory: one call at a time per communicator";
    if (s->uses_inline) return "the inline lines: one call at a time per communicator";
    if (s->uses_rread) return "single-copy reads need the peers' buffers published by a blocking call";
    if (s->uses_subcoll) return "member-set rounds are collective calls on other communicators";
    return NULL;
}

/* Does the schedule use the inline lines alone (no messages, no other
 * node-shared memory)?  Such a schedule runs its ops in one pass. */
static inline int tc_sched_lines_only(const tc_sched *s)
{
    return s->uses_inline && s->max_comm == 0 && !s->uses_shm && !s->uses_subcoll && !s->uses_rread;
}
/* Can the schedule run nonblocking with node-shared memory of its own (a
 * persistent request's windows, an area of the nonblocking calls' ring:
 * src/api/nb_areas.h)?  Node-shared buffers and signals can, and the inline
 * lines where they are the schedule's only communication; remote reads and
 * member-set rounds cannot.  NULL when it can, else why not. */
static inline const char *tc_sched_area_why(const tc_sched *s)
{
    if (!s->uses_shm && !s->uses_inline) return tc_sched_nonblocking_why(s);
    if (s->uses_rread) return "single-copy reads need the peers' buffers published by a blocking call";
    if (s->uses_subcoll) return "member-set rounds are collective calls on other communicators";
    if (s->uses_inline && !tc_sched_lines_only(s)) return "the inline lines beside messages or node-shared buffers";
    return NULL;
}

static inline int tc_sched_round_begin(const tc_sched *s, int r) { return s->round_start[r]; }
static inline int tc_sched_round_end(const tc_sched *s, int r) { return s->round_start[r + 1]; }

/* Human-readable dump (for debugging and docs). */
void tc_sched_print(const tc_sched *s, void *file /* FILE* */);

#endif
