/* The schedule builder (src/sched/): zero-count ops dropped, rounds closed
 * and empty ones not kept, skip_kinds keeping round numbers, streaming
 * through drain / tc_sched_drained, reset keeping the consumer's settings,
 * pipeline chunks, the scratch and shared-memory sizes, what finish
 * computes, joined copies, and sticky errors.  Ends with "N passed, M failed". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"
#include "../common/harness.h"

static int count_kind(const tc_sched *s, int kind)
{
    int n = 0;
    for (int i = 0; i < s->nops; i++) n += s->ops[i].kind == kind;
    return n;
}

/* Zero-count sends, receives, copies, reductions and reads leave nothing;
 * a copy with one side non-empty, signals and waits stay. */
static void zero_counts(void)
{
    tc_sched s;
    tc_sched_init(&s);
    tc_sched_send(&s, 1, tc_reg(TC_BUF_SEND, 5, 0));
    tc_sched_recv(&s, 1, tc_reg(TC_BUF_RECV, 5, 0));
    tc_sched_copy(&s, tc_reg(TC_BUF_SEND, 0, 0), tc_reg(TC_BUF_RECV, 0, 0));
    tc_sched_reduce(&s, tc_reg(TC_BUF_TMP, 0, 0), tc_reg(TC_BUF_RECV, 0, 0));
    tc_sched_rread(&s, 1, tc_reg(TC_BUF_SEND, 0, 0), tc_reg(TC_BUF_RECV, 0, 0));
    CHECK(s.nops == 0, "zero-count ops dropped (%d ops)", s.nops);
    tc_sched_round(&s);
    CHECK(s.nrounds == 0, "a round of dropped ops is not kept (%d rounds)", s.nrounds);
    tc_sched_copy(&s, tc_reg(TC_BUF_SEND, 0, 0), tc_reg(TC_BUF_RECV, 0, 4));
    tc_sched_signal(&s, 2);
    tc_sched_wait(&s, 3);
    tc_sched_send(&s, 1, tc_reg(TC_BUF_SEND, 2, 3));
    CHECK(s.nops == 4, "one-sided copy, signal, wait and send kept (%d ops)", s.nops);
    CHECK(s.nops == 4 && s.ops[3].kind == TC_OP_SEND && s.ops[3].peer == 1 && s.ops[3].a.off == 2 &&
              s.ops[3].a.cnt == 3 && s.ops[3].a.buf == TC_BUF_SEND,
          "the send as given");
    CHECK(s.nops == 4 && s.ops[1].kind == TC_OP_SIGNAL && s.ops[1].peer == 2, "the signal as given");
    tc_sched_free(&s);
}

/* Rounds: ops after a close go to the next round; closing an empty round
 * (twice in a row, or before anything) keeps nothing. */
static void rounds(void)
{
    tc_sched s;
    tc_sched_init(&s);
    tc_sched_round(&s);
    CHECK(s.nrounds == 0, "closing before any op keeps no round");
    for (int r = 0; r < 40; r++) {   /* past the initial round capacity */
        for (int k = 0; k <= r % 3; k++) tc_sched_send(&s, r, tc_reg(TC_BUF_SEND, k, 1));
        tc_sched_round(&s);
        tc_sched_round(&s);
    }
    CHECK(s.nrounds == 40, "40 rounds kept (%d)", s.nrounds);
    int ok = 1;
    for (int r = 0; r < s.nrounds && ok; r++) {
        int b = tc_sched_round_begin(&s, r), e = tc_sched_round_end(&s, r);
        ok = e - b == 1 + r % 3;
        for (int i = b; i < e && ok; i++) ok = s.ops[i].peer == r && s.ops[i].a.off == i - b;
    }
    CHECK(ok, "every round holds its own ops in order");
    tc_sched_send(&s, 99, tc_reg(TC_BUF_SEND, 0, 1));
    CHECK(tc_sched_finish(&s) == 0 && s.nrounds == 41, "finish closes the open round (%d)", s.nrounds);
    tc_sched_free(&s);
}

/* The same rounds, once whole and once with receives and copies dropped:
 * the round numbers stay, even where a round held only dropped ops. */
static void build_mixed(tc_sched *s)
{
    tc_sched_recv(s, 1, tc_reg(TC_BUF_RECV, 0, 2));             /* round 0: a receive only */
    tc_sched_round(s);
    tc_sched_copy(s, tc_reg(TC_BUF_SEND, 0, 2), tc_reg(TC_BUF_TMP, 0, 2));   /* round 1: a copy only */
    tc_sched_round(s);
    tc_sched_send(s, 2, tc_reg(TC_BUF_TMP, 0, 2));              /* round 2: send + receive */
    tc_sched_recv(s, 2, tc_reg(TC_BUF_RECV, 2, 2));
    tc_sched_round(s);
    tc_sched_round(s);                                          /* empty: not kept either way */
    tc_sched_reduce(s, tc_reg(TC_BUF_TMP, 0, 2), tc_reg(TC_BUF_RECV, 0, 2));   /* round 3 */
    tc_sched_round(s);
}

static void skip_kinds(void)
{
    tc_sched whole, skim;
    tc_sched_init(&whole);
    tc_sched_init(&skim);
    skim.skip_kinds = (1u << TC_OP_RECV) | (1u << TC_OP_COPY);
    build_mixed(&whole);
    build_mixed(&skim);
    CHECK(whole.nrounds == 4 && skim.nrounds == 4, "rounds whole %d, skipping %d (4)", whole.nrounds,
          skim.nrounds);
    CHECK(count_kind(&skim, TC_OP_RECV) == 0 && count_kind(&skim, TC_OP_COPY) == 0, "receives and copies dropped");
    CHECK(skim.nops == 2 && count_kind(&skim, TC_OP_SEND) == 1 && count_kind(&skim, TC_OP_REDUCE) == 1,
          "sends and reductions kept (%d ops)", skim.nops);
    CHECK(skim.nrounds == 4 && tc_sched_round_end(&skim, 2) - tc_sched_round_begin(&skim, 2) == 1 &&
              skim.ops[tc_sched_round_begin(&skim, 2)].kind == TC_OP_SEND,
          "the send stays in round 2");
    CHECK(skim.nrounds == 4 && skim.ops[tc_sched_round_begin(&skim, 3)].kind == TC_OP_REDUCE,
          "the reduction stays in round 3");
    CHECK(skim.skipped == 0, "closing a round clears skipped");
    tc_sched_free(&whole);
    tc_sched_free(&skim);
}

/* ---- streaming ------------------------------------------------------------- */

typedef struct seen {
    int n;
    int peer[4096], round[4096];
    int drains;
} seen;

/* Takes every closed round and every op of the open round but its last. */
static void take(tc_sched *s, seen *v, int all)
{
    int upto = all || s->round_start[s->nrounds] == s->nops ? s->nops : s->nops - 1;
    int r = 0;
    for (int i = 0; i < upto; i++) {
        while (r < s->nrounds && i >= s->round_start[r + 1]) r++;
        v->peer[v->n] = s->ops[i].peer;
        v->round[v->n] = s->round_base + r;
        v->n++;
    }
}

static void drain_cb(tc_sched *s, void *ctx)
{
    seen *v = ctx;
    v->drains++;
    take(s, v, 0);
    tc_sched_drained(s);
}

/* nops sends in rounds of irregular sizes (a round closes after op k when
 * k % 5 == 0 or k % 9 == 4). */
static void stream_build(tc_sched *s, int nops)
{
    for (int k = 0; k < nops; k++) {
        tc_sched_send(s, k, tc_reg(TC_BUF_SEND, k, 1));
        if (k % 5 == 0 || k % 9 == 4) tc_sched_round(s);
    }
}

static void streaming(void)
{
    static seen whole, part;
    memset(&whole, 0, sizeof whole);
    memset(&part, 0, sizeof part);
    tc_sched a, b;
    tc_sched_init(&a);
    tc_sched_init(&b);
    b.drain = drain_cb;
    b.drain_ctx = &part;
    stream_build(&a, 3000);
    stream_build(&b, 3000);
    CHECK(tc_sched_finish(&a) == 0 && tc_sched_finish(&b) == 0, "both finish");
    take(&a, &whole, 1);
    take(&b, &part, 1);
    CHECK(part.drains > 10, "the streamed schedule was drained (%d times)", part.drains);
    CHECK(b.ops_cap < 3000, "draining kept the op array small (%d)", b.ops_cap);
    CHECK(part.n == whole.n && whole.n == 3000, "every op seen once (%d, %d)", part.n, whole.n);
    int same = part.n == whole.n;
    for (int i = 0; same && i < whole.n; i++)
        same = part.peer[i] == whole.peer[i] && part.round[i] == whole.round[i];
    CHECK(same, "the same ops in the same rounds");
    CHECK(b.round_base + b.nrounds == a.nrounds, "round_base + nrounds %d + %d = %d", b.round_base, b.nrounds,
          a.nrounds);
    tc_sched_free(&a);
    tc_sched_free(&b);
}

/* tc_sched_drained keeps the open round's last op, or nothing when the
 * open round is empty. */
static void drained_keeps_open_op(void)
{
    tc_sched s;
    tc_sched_init(&s);
    tc_sched_send(&s, 1, tc_reg(TC_BUF_SEND, 0, 1));
    tc_sched_round(&s);
    tc_sched_send(&s, 2, tc_reg(TC_BUF_SEND, 1, 1));
    tc_sched_send(&s, 3, tc_reg(TC_BUF_SEND, 2, 1));
    tc_sched_drained(&s);
    CHECK(s.nops == 1 && s.ops[0].peer == 3 && s.nrounds == 0 && s.round_base == 1,
          "open round's last op kept (nops %d, base %d)", s.nops, s.round_base);
    tc_sched_round(&s);
    tc_sched_drained(&s);
    CHECK(s.nops == 0 && s.nrounds == 0 && s.round_base == 2, "nothing open: nothing kept (nops %d, base %d)",
          s.nops, s.round_base);
    tc_sched_free(&s);
}

static void reset(void)
{
    static seen v;
    tc_sched s;
    tc_sched_init(&s);
    s.drain = drain_cb;
    s.drain_ctx = &v;
    s.skip_kinds = 1u << TC_OP_COPY;
    tc_sched_send(&s, 1, tc_reg(TC_BUF_SEND, 0, 1));
    tc_sched_round(&s);
    tc_sched_copy(&s, tc_reg(TC_BUF_SEND, 0, 1), tc_reg(TC_BUF_RECV, 0, 1));   /* skipped: open round kept */
    CHECK(s.skipped == 1, "a skipped copy marks the open round");
    tc_sched_need_tmp(&s, 10);
    tc_sched_need_shm(&s, 20);
    tc_sched_shm_home(&s, 3, 4);
    s.tmp_like = TC_BUF_SEND;
    s.round_base = 5;
    s.err = ENOMEM;
    tc_sched_reset(&s);
    CHECK(s.nops == 0 && s.nrounds == 0 && s.round_start[0] == 0, "ops and rounds emptied");
    CHECK(s.tmp_count == 0 && s.shm_count == 0 && s.shm_home_off == 0 && s.shm_home_cnt == 0, "sizes cleared");
    CHECK(s.tmp_like == TC_BUF_RECV && s.err == 0 && s.round_base == 0 && s.skipped == 0 && s.max_comm == 0,
          "state cleared");
    CHECK(s.drain == drain_cb && s.drain_ctx == &v && s.skip_kinds == (1u << TC_OP_COPY),
          "the consumer's settings kept");
    CHECK(s.ops_cap > 0, "the memory kept");
    tc_sched_copy(&s, tc_reg(TC_BUF_SEND, 0, 1), tc_reg(TC_BUF_RECV, 0, 1));
    CHECK(s.nops == 0 && s.skipped == 1, "copies still skipped after reset");
    tc_sched_free(&s);
}

/* Chunks tile the region: ceil(n / ch) of them, contiguous, all ch but the
 * last, which is not empty. */
static void chunks(void)
{
    for (int64_t n = 1; n <= 60; n++)
        for (int64_t ch = 1; ch <= 13; ch++) {
            int k = tc_nchunks(n, ch);
            CHECK(k == (n + ch - 1) / ch, "nchunks(%lld, %lld) = %d", (long long)n, (long long)ch, k);
            tc_region r = tc_reg(TC_BUF_TMP, 100, n);
            int64_t at = 100;
            int ok = 1;
            for (int i = 0; i < k; i++) {
                tc_region c = tc_reg_chunk(r, ch, i);
                ok &= c.buf == TC_BUF_TMP && c.off == at && c.cnt > 0 && c.cnt <= ch;
                ok &= i == k - 1 || c.cnt == ch;
                at += c.cnt;
            }
            CHECK(ok && at == 100 + n, "chunks of %lld by %lld tile it", (long long)n, (long long)ch);
        }
    CHECK(tc_nchunks(0, 4) == 0, "no chunk of nothing");
}

static void sizes(void)
{
    tc_sched s;
    tc_sched_init(&s);
    tc_sched_need_tmp(&s, 7);
    tc_sched_need_tmp(&s, 3);
    tc_sched_need_shm(&s, 11);
    tc_sched_need_shm(&s, 5);
    CHECK(s.tmp_count == 7, "need_tmp keeps the largest (%lld)", (long long)s.tmp_count);
    CHECK(s.shm_count == 11, "need_shm keeps the largest (%lld)", (long long)s.shm_count);
    tc_sched_need_tmp(&s, 9);
    CHECK(s.tmp_count == 9, "need_tmp grows (%lld)", (long long)s.tmp_count);
    tc_sched_free(&s);
}

/* finish: the most sends and receives in one round, and whether the
 * schedule uses node-shared memory or cross-memory reads. */
static void finish(void)
{
    tc_sched s;
    tc_sched_init(&s);
    tc_sched_send(&s, 1, tc_reg(TC_BUF_SEND, 0, 1));
    tc_sched_copy(&s, tc_reg(TC_BUF_SEND, 0, 1), tc_reg(TC_BUF_RECV, 0, 1));
    tc_sched_round(&s);
    for (int i = 0; i < 3; i++) tc_sched_recv(&s, i, tc_reg(TC_BUF_RECV, i, 1));
    tc_sched_send(&s, 4, tc_reg(TC_BUF_SEND, 0, 1));
    tc_sched_round(&s);
    for (int i = 0; i < 3; i++) tc_sched_copy(&s, tc_reg(TC_BUF_SEND, i, 1), tc_reg(TC_BUF_TMP, i, 1));
    tc_sched_send(&s, 2, tc_reg(TC_BUF_SEND, 0, 1));
    CHECK(tc_sched_finish(&s) == 0, "finish");
    CHECK(s.max_comm == 4, "max_comm 4 (%d)", s.max_comm);
    CHECK(!s.uses_shm && !s.uses_rread && !tc_sched_uses_shm(&s), "no shared memory, no reads");
    tc_sched_free(&s);

    int kinds[3] = { TC_OP_SIGNAL, TC_OP_WAIT, TC_OP_RREAD };
    for (int k = 0; k < 3; k++) {
        tc_sched_init(&s);
        if (kinds[k] == TC_OP_SIGNAL) tc_sched_signal(&s, 1);
        else if (kinds[k] == TC_OP_WAIT) tc_sched_wait(&s, 1);
        else tc_sched_rread(&s, 1, tc_reg(TC_BUF_SEND, 0, 2), tc_reg(TC_BUF_RECV, 0, 2));
        CHECK(tc_sched_finish(&s) == 0 && s.uses_shm && tc_sched_uses_shm(&s), "kind %d uses shm", kinds[k]);
        CHECK(s.uses_rread == (kinds[k] == TC_OP_RREAD), "kind %d: uses_rread %d", kinds[k], s.uses_rread);
        CHECK(s.max_comm == 0, "no messages (%d)", s.max_comm);
        tc_sched_free(&s);
    }
    tc_sched_init(&s);
    tc_sched_need_shm(&s, 8);
    tc_sched_copy(&s, tc_reg(TC_BUF_SHM, 0, 8), tc_reg(TC_BUF_RECV, 0, 8));
    CHECK(tc_sched_finish(&s) == 0 && s.uses_shm && !s.uses_rread, "a node-shared area uses shm");
    tc_sched_free(&s);
}

/* tc_sched_copy_join: a copy continuing the open round's last copy on both
 * sides extends it; anything else is a copy of its own. */
static void copy_join(void)
{
    tc_sched s;
    tc_sched_init(&s);
    tc_sched_copy_join(&s, tc_reg(TC_BUF_SEND, 0, 2), tc_reg(TC_BUF_TMP, 10, 4));
    tc_sched_copy_join(&s, tc_reg(TC_BUF_SEND, 2, 1), tc_reg(TC_BUF_TMP, 14, 2));
    CHECK(s.nops == 1 && s.ops[0].a.cnt == 3 && s.ops[0].b.cnt == 6 && s.ops[0].a.off == 0 && s.ops[0].b.off == 10,
          "following on both sides: one copy (%d ops)", s.nops);
    tc_sched_copy_join(&s, tc_reg(TC_BUF_SEND, 3, 1), tc_reg(TC_BUF_TMP, 17, 2));   /* gap in dst */
    tc_sched_copy_join(&s, tc_reg(TC_BUF_SEND, 5, 1), tc_reg(TC_BUF_TMP, 19, 2));   /* gap in src */
    tc_sched_copy_join(&s, tc_reg(TC_BUF_RECV, 6, 1), tc_reg(TC_BUF_TMP, 21, 2));   /* other buffer */
    CHECK(s.nops == 4, "a gap on either side or another buffer: copies of their own (%d ops)", s.nops);
    tc_sched_copy_join(&s, tc_reg(TC_BUF_RECV, 7, 0), tc_reg(TC_BUF_TMP, 23, 0));
    CHECK(s.nops == 4 && s.ops[3].a.cnt == 1, "an empty copy changes nothing");
    tc_sched_send(&s, 1, tc_reg(TC_BUF_TMP, 0, 3));
    tc_sched_copy_join(&s, tc_reg(TC_BUF_TMP, 3, 1), tc_reg(TC_BUF_TMP, 0, 1));   /* would follow the send */
    tc_sched_copy_join(&s, tc_reg(TC_BUF_RECV, 7, 1), tc_reg(TC_BUF_TMP, 23, 2));
    CHECK(s.nops == 7 && s.ops[4].kind == TC_OP_SEND && s.ops[4].a.cnt == 3, "not into another kind of op (%d ops)",
          s.nops);
    tc_sched_round(&s);
    tc_sched_copy_join(&s, tc_reg(TC_BUF_RECV, 8, 1), tc_reg(TC_BUF_TMP, 25, 2));
    CHECK(s.nops == 8 && s.nrounds == 1 && s.ops[6].a.cnt == 1, "not into a closed round (%d ops)", s.nops);
    tc_sched_drained(&s);   /* keeps the open round's last op: joining goes on */
    tc_sched_copy_join(&s, tc_reg(TC_BUF_RECV, 9, 1), tc_reg(TC_BUF_TMP, 27, 2));
    CHECK(s.nops == 1 && s.ops[0].a.cnt == 2 && s.ops[0].b.cnt == 4, "joins the op kept by a drain (%d ops)", s.nops);
    tc_sched_free(&s);
}

/* An error sticks: rounds no longer close, a full array takes no more ops,
 * finish reports it. */
static void sticky_error(void)
{
    tc_sched s;
    tc_sched_init(&s);
    tc_sched_send(&s, 1, tc_reg(TC_BUF_SEND, 0, 1));
    s.err = ENOMEM;
    tc_sched_round(&s);
    CHECK(s.nrounds == 0, "no round closes after an error");
    for (int i = 0; i < 100; i++) tc_sched_send(&s, 1, tc_reg(TC_BUF_SEND, i, 1));
    CHECK(s.nops <= s.ops_cap && s.ops_cap <= 16, "the array does not grow after an error (cap %d)", s.ops_cap);
    CHECK(tc_sched_push_slot(&s) == NULL, "no slot after an error");
    CHECK(tc_sched_finish(&s) == ENOMEM, "finish reports the error");
    tc_sched_free(&s);
}

int main(void)
{
    zero_counts();
    rounds();
    skip_kinds();
    streaming();
    drained_keeps_open_op();
    reset();
    chunks();
    sizes();
    finish();
    copy_join();
    sticky_error();
    return tc_test_summary();
}
