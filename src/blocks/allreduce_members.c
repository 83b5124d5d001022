/* Allreduce generators over a member map (see allreduce_members.h). */
#include "blocks/allreduce_members.h"
#include "pattern/pattern.h"

enum { IN, DATA, SCR };   /* the regions' roles */

/* Elements [lo, lo + cnt) of the input, the data or the scratch. */
static tc_region at(const tc_ar_regions *x, int role, int64_t lo, int64_t cnt)
{
    tc_region r = role == IN ? x->input : role == DATA ? x->data : x->scratch;
    return tc_reg(r.buf, r.off + lo, cnt);
}

static int in_place(const tc_ar_regions *x)
{
    return x->input.buf == x->data.buf && x->input.off == x->data.off;
}

/* The region a partial goes to next: scratch, or data when it is in scratch. */
static int other_of(int acc) { return acc == SCR ? DATA : SCR; }

typedef struct fold { int q, rem; } fold;

static fold fold_of(int n)
{
    fold f = { tc_pow2_floor(n), 0 };
    f.rem = n - f.q;
    return f;
}

/* Rank of the member standing for new index v. */
static int peer_of(const tc_members *m, const fold *f, int v)
{
    return tc_member_rank(m, v < f->rem ? 2 * v : v + f->rem);
}

/* Fold in: returns the new index (-1: this member dropped out and waits for
 * fold_out); *acc is the role holding this member's partial. */
static int fold_in(tc_sched *s, const tc_members *m, const tc_ar_regions *x, const fold *f, int *acc)
{
    int i = m->me;
    int64_t n = x->data.cnt;
    *acc = in_place(x) ? DATA : IN;
    if (i >= 2 * f->rem) return i - f->rem;
    if (i % 2) {
        tc_sched_send(s, tc_member_rank(m, i - 1), at(x, *acc, 0, n));
        tc_sched_round(s);
        return -1;
    }
    tc_sched_recv(s, tc_member_rank(m, i + 1), at(x, SCR, 0, n));
    tc_sched_round(s);
    tc_sched_reduce(s, at(x, *acc, 0, n), at(x, SCR, 0, n));   /* even op odd */
    tc_sched_round(s);
    *acc = SCR;
    return i / 2;
}

/* Fold out: the result to the members that dropped out. */
static void fold_out(tc_sched *s, const tc_members *m, const tc_ar_regions *x, const fold *f)
{
    int i = m->me;
    if (i >= 2 * f->rem) return;
    if (i % 2) tc_sched_recv(s, tc_member_rank(m, i - 1), at(x, DATA, 0, x->data.cnt));
    else tc_sched_send(s, tc_member_rank(m, i + 1), at(x, DATA, 0, x->data.cnt));
    tc_sched_round(s);
}

/* One butterfly step on elements [lo, lo + cnt) (the partner's half
 * [plo, plo + pcnt) is sent): exchange, then combine "lower op higher".
 * The higher partner combines into its own partial (a writable copy of
 * the input when that is where it is), the lower one into what it
 * received.  Returns the role now holding the partial. */
static int butterfly(tc_sched *s, const tc_ar_regions *x, int peer, int lower, int acc,
                     int64_t lo, int64_t cnt, int64_t plo, int64_t pcnt)
{
    int other = other_of(acc);
    tc_sched_send(s, peer, at(x, acc, plo, pcnt));
    if (!lower && acc == IN) {
        tc_sched_copy(s, at(x, IN, lo, cnt), at(x, DATA, lo, cnt));
        other = SCR;
    }
    tc_sched_recv(s, peer, at(x, other, lo, cnt));
    tc_sched_round(s);
    if (lower) {
        tc_sched_reduce(s, at(x, acc, lo, cnt), at(x, other, lo, cnt));
        return other;
    }
    if (acc == IN) acc = DATA;
    tc_sched_reduce(s, at(x, other, lo, cnt), at(x, acc, lo, cnt));
    return acc;
}

void tc_allreduce_rd_over(tc_sched *s, const tc_members *m, const tc_ar_regions *x)
{
    int64_t n = x->data.cnt;
    fold f = fold_of(m->n);
    int acc, v = fold_in(s, m, x, &f, &acc);
    if (v >= 0) {
        for (int mask = 1; mask < f.q; mask <<= 1) {
            if (mask > 1) tc_sched_round(s);   /* after the previous combine */
            int pv = v ^ mask;
            acc = butterfly(s, x, peer_of(m, &f, pv), v < pv, acc, 0, n, 0, n);
        }
        if (acc != DATA) tc_sched_copy(s, at(x, acc, 0, n), at(x, DATA, 0, n));
        tc_sched_round(s);
    }
    fold_out(s, m, x, &f);
}

/* Rabenseifner's blocks: first element and count of the blocks new index v
 * holds after the halving steps of masks 1 .. mm (q blocks of n). */
static void held(int q, int64_t n, int v, int mm, int64_t *lo, int64_t *cnt)
{
    int l = 0, size = q;
    int64_t per = n / q, extra = n % q;
    for (int k = 1; k <= mm; k <<= 1) {
        size /= 2;
        if (v & k) l += size;
    }
    int64_t a = (int64_t)l * per + (l < extra ? l : extra);
    int64_t b = (int64_t)(l + size) * per + (l + size < extra ? l + size : extra);
    *lo = a;
    *cnt = b - a;
}

void tc_allreduce_rsa_first_kept(int n, int me, int64_t cnt, int64_t *lo, int64_t *kept)
{
    fold f = fold_of(n > 0 ? n : 1);
    *lo = *kept = 0;
    if (n < 2) return;
    if (me < 2 * f.rem) {
        if (me % 2 == 0) *kept = cnt;   /* receives the neighbour's vector into scratch */
        return;
    }
    if (f.q > 1) held(f.q, cnt, me - f.rem, 1, lo, kept);
}

void tc_allreduce_rsa_over(tc_sched *s, const tc_members *m, const tc_ar_regions *x)
{
    int64_t n = x->data.cnt, lo, cnt, plo, pcnt;
    fold f = fold_of(m->n);
    int acc, v = fold_in(s, m, x, &f, &acc);
    if (v < 0) {
        fold_out(s, m, x, &f);
        return;
    }
    for (int mask = 1; mask < f.q; mask <<= 1) {   /* reduce-scatter */
        if (mask > 1) tc_sched_round(s);
        int pv = v ^ mask;
        held(f.q, n, v, mask, &lo, &cnt);
        held(f.q, n, pv, mask, &plo, &pcnt);
        acc = butterfly(s, x, peer_of(m, &f, pv), v < pv, acc, lo, cnt, plo, pcnt);
    }
    held(f.q, n, v, f.q / 2, &lo, &cnt);
    if (acc != DATA) tc_sched_copy(s, at(x, acc, lo, cnt), at(x, DATA, lo, cnt));
    tc_sched_round(s);
    for (int mask = f.q / 2; mask >= 1; mask >>= 1) {   /* allgather */
        int pv = v ^ mask, peer = peer_of(m, &f, pv);
        held(f.q, n, v, mask, &lo, &cnt);
        held(f.q, n, pv, mask, &plo, &pcnt);
        tc_sched_send(s, peer, at(x, DATA, lo, cnt));
        tc_sched_recv(s, peer, at(x, DATA, plo, pcnt));
        tc_sched_round(s);
    }
    fold_out(s, m, x, &f);
}

/* Ring block i (mod n members): its offset and count. */
static void ring_block(int p, int64_t total, int i, int64_t *off, int64_t *cnt)
{
    i = tc_mod(i, p);
    int64_t per = total / p, extra = total % p;
    *off = (int64_t)i * per + (i < extra ? i : extra);
    *cnt = per + (i < extra ? 1 : 0);
}

static tc_region block_of(const tc_ar_regions *x, int role, int p, int i)
{
    int64_t off, cnt;
    ring_block(p, x->data.cnt, i, &off, &cnt);
    return at(x, role, role == SCR ? 0 : off, cnt);
}

/* How many messages carry a ring block of cnt elements. */
static int ring_pieces(const tc_ar_regions *x, int64_t cnt)
{
    return x->piece > 0 && cnt > x->piece ? tc_nchunks(cnt, x->piece) : 1;
}

/* One ring step: the block to the right and the one from the left, whole or
 * in pieces (every piece posted in the step's round, matched in order);
 * with copy_in the input is copied to data beside the messages. */
static void ring_step(tc_sched *s, const tc_ar_regions *x, int right, tc_region out,
                      int left, tc_region in, int copy_in)
{
    for (int k = 0, n = ring_pieces(x, out.cnt); k < n; k++)
        tc_sched_send(s, right, n > 1 ? tc_reg_chunk(out, x->piece, k) : out);
    if (copy_in) tc_sched_copy(s, at(x, IN, 0, x->data.cnt), at(x, DATA, 0, x->data.cnt));
    for (int k = 0, n = ring_pieces(x, in.cnt); k < n; k++)
        tc_sched_recv(s, left, n > 1 ? tc_reg_chunk(in, x->piece, k) : in);
    tc_sched_round(s);
}

void tc_allreduce_ring_over(tc_sched *s, const tc_members *m, const tc_ar_regions *x)
{
    int p = m->n, r = m->me, copy = !in_place(x);
    if (p == 1) {
        if (copy) {
            tc_sched_copy(s, at(x, IN, 0, x->data.cnt), at(x, DATA, 0, x->data.cnt));
            tc_sched_round(s);
        }
        return;
    }
    int right = tc_member_rank(m, tc_ring_right(r, p)), left = tc_member_rank(m, tc_ring_left(r, p));
    for (int i = 0; i < p - 1; i++) {   /* reduce-scatter; step 0 reads the input */
        tc_region got = block_of(x, SCR, p, r - i - 1);
        ring_step(s, x, right, block_of(x, i == 0 ? IN : DATA, p, r - i), left, got, i == 0 && copy);
        tc_sched_reduce(s, got, block_of(x, DATA, p, r - i - 1));
        tc_sched_round(s);
    }
    for (int i = 0; i < p - 1; i++)     /* allgather */
        ring_step(s, x, right, block_of(x, DATA, p, r + 1 - i), left, block_of(x, DATA, p, r - i), 0);
}
