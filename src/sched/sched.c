/* Schedule builder: growable op array split into rounds (see sched.h). */
#include "sched/sched.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tc_sched_init(tc_sched *s)
{
    s->ops = NULL;
    s->nops = s->ops_cap = 0;
    s->round_start = NULL;
    s->nrounds = s->rounds_cap = 0;
    s->max_comm = 0;
    s->tmp_count = 0;
    s->shm_count = 0;
    s->inline_count = 0;
    s->uses_inline = 0;
    s->shm_home_off = s->shm_home_cnt = 0;
    s->uses_shm = 0;
    s->uses_rread = 0;
    s->uses_subcoll = 0;
    s->tmp_like = TC_BUF_RECV;
    s->err = 0;
    s->drain = NULL;
    s->drain_ctx = NULL;
    s->round_base = 0;
    s->skip_kinds = 0;
    s->skipped = 0;
    /* round_start[0] must exist from the start: grow once. */
    s->round_start = malloc(8 * sizeof(int));
    if (!s->round_start) { s->err = ENOMEM; return; }
    s->rounds_cap = 7;
    s->round_start[0] = 0;
}

void tc_sched_free(tc_sched *s)
{
    free(s->ops);
    free(s->round_start);
    s->ops = NULL;
    s->round_start = NULL;
    s->nops = s->ops_cap = s->nrounds = s->rounds_cap = 0;
}

void tc_sched_reset(tc_sched *s)
{
    if (!s->round_start) return;   /* init failed: keep the sticky error */
    s->nops = 0;
    s->nrounds = 0;
    s->round_start[0] = 0;
    s->max_comm = 0;
    s->tmp_count = s->shm_count = s->inline_count = 0;
    s->uses_inline = 0;
    s->shm_home_off = s->shm_home_cnt = 0;
    s->tmp_like = TC_BUF_RECV;
    s->uses_shm = 0;
    s->uses_rread = 0;
    s->uses_subcoll = 0;
    s->err = 0;
    s->round_base = 0;
    s->skipped = 0;
}

void tc_sched_drained(tc_sched *s)
{
    int open = s->round_start[s->nrounds];
    if (open < s->nops) {               /* keep the open round's last op */
        s->ops[0] = s->ops[s->nops - 1];
        s->nops = 1;
    } else {
        s->nops = 0;
    }
    s->round_base += s->nrounds;
    s->nrounds = 0;
    s->round_start[0] = 0;
}

/* Streaming: let the consumer take what is there; nonzero when it freed room. */
static int drain_now(tc_sched *s)
{
    if (!s->drain || (s->nops < 2 && s->nrounds == 0)) return 0;
    s->drain(s, s->drain_ctx);
    return !s->err;
}

tc_op *tc_sched_push_slot(tc_sched *s)
{
    if (s->err) return NULL;
    if (s->nops == s->ops_cap && drain_now(s) && s->nops < s->ops_cap) return &s->ops[s->nops++];
    if (s->err) return NULL;
    if (s->nops == s->ops_cap) {
        int cap = s->ops_cap ? 2 * s->ops_cap : 16;
        tc_op *n = realloc(s->ops, (size_t)cap * sizeof *n);
        if (!n) { s->err = ENOMEM; return NULL; }
        s->ops = n;
        s->ops_cap = cap;
    }
    return &s->ops[s->nops++];
}

void tc_sched_round_grow(tc_sched *s)
{
    if (s->err) return;   /* tc_sched_round decided the round is not empty */
    if (s->nrounds + 1 >= s->rounds_cap) drain_now(s);
    if (s->err) return;
    if (s->nrounds + 1 >= s->rounds_cap) {
        int cap = 2 * (s->rounds_cap + 1);
        int *n = realloc(s->round_start, (size_t)(cap + 1) * sizeof *n);
        if (!n) { s->err = ENOMEM; return; }
        s->round_start = n;
        s->rounds_cap = cap;
    }
    s->nrounds++;
    s->round_start[s->nrounds] = s->nops;
}

void tc_sched_need_tmp(tc_sched *s, int64_t n)
{
    if (n > s->tmp_count) s->tmp_count = n;
}

void tc_sched_need_inline(tc_sched *s, int64_t n)
{
    if (n > s->inline_count) s->inline_count = n;
}

void tc_sched_need_shm(tc_sched *s, int64_t n)
{
    if (n > s->shm_count) s->shm_count = n;
}

void tc_sched_shm_home(tc_sched *s, int64_t off, int64_t cnt)
{
    s->shm_home_off = off;
    s->shm_home_cnt = cnt;
}

int tc_sched_uses_shm(const tc_sched *s)
{
    return s->uses_shm;
}

int tc_sched_finish(tc_sched *s)
{
    tc_sched_round(s);
    if (s->err) return s->err;
    s->max_comm = 0;
    s->uses_shm = s->shm_count > 0;
    s->uses_rread = 0;
    s->uses_inline = 0;
    s->uses_subcoll = 0;
    for (int i = 0; i < s->nops; i++) {
        int k = s->ops[i].kind;
        s->uses_inline |= k == TC_OP_PUBLISH || k == TC_OP_COLLECT;
        s->uses_shm |= k == TC_OP_SIGNAL || k == TC_OP_WAIT || k == TC_OP_RREAD;
        s->uses_rread |= k == TC_OP_RREAD;
        s->uses_subcoll |= k == TC_OP_SUBCOLL;
    }
    for (int r = 0; r < s->nrounds; r++) {
        int comm = 0;
        for (int i = s->round_start[r]; i < s->round_start[r + 1]; i++)
            comm += s->ops[i].kind == TC_OP_SEND || s->ops[i].kind == TC_OP_RECV;
        if (comm > s->max_comm) s->max_comm = comm;
    }
    return 0;
}

static const char *buf_name(int b)
{
    static const char *names[] = { "sbuf", "rbuf", "tmp", "shm" };
    return b >= 0 && b < TC_NBUF ? names[b] : "?";
}

void tc_sched_print(const tc_sched *s, void *file)
{
    FILE *f = file;
    for (int r = 0; r < s->nrounds; r++) {
        fprintf(f, "round %d:\n", r);
        for (int i = s->round_start[r]; i < s->round_start[r + 1]; i++) {
            const tc_op *op = &s->ops[i];
            switch (op->kind) {
            case TC_OP_SEND:
                fprintf(f, "  send %s[%lld+%lld] -> %d\n", buf_name(op->a.buf),
                        (long long)op->a.off, (long long)op->a.cnt, op->peer);
                break;
            case TC_OP_RECV:
                fprintf(f, "  recv %s[%lld+%lld] <- %d\n", buf_name(op->a.buf),
                        (long long)op->a.off, (long long)op->a.cnt, op->peer);
                break;
            case TC_OP_SIGNAL:
                fprintf(f, "  signal -> %d\n", op->peer);
                break;
            case TC_OP_WAIT:
                fprintf(f, "  wait <- %d\n", op->peer);
                break;
            case TC_OP_SUBCOLL:
                fprintf(f, "  collective over %s\n", op->peer == TC_SUB_NODE ? "the node" : "the node roots");
                break;
            case TC_OP_RREAD:
                fprintf(f, "  rread %d:%s[%lld+%lld] -> %s[%lld+%lld]\n", op->peer,
                        buf_name(op->a.buf), (long long)op->a.off, (long long)op->a.cnt,
                        buf_name(op->b.buf), (long long)op->b.off, (long long)op->b.cnt);
                break;
            case TC_OP_PUBLISH:
                fprintf(f, "  publish %s[%lld+%lld] -> slot[%lld]\n", buf_name(op->a.buf),
                        (long long)op->a.off, (long long)op->a.cnt, (long long)op->b.cnt);
                break;
            case TC_OP_COLLECT:
                fprintf(f, "  collect %d:slot[%lld] -> %s[%lld+%lld]\n", op->peer, (long long)op->a.cnt,
                        buf_name(op->b.buf), (long long)op->b.off, (long long)op->b.cnt);
                break;
            default:
                fprintf(f, "  %s %s[%lld+%lld] -> %s[%lld+%lld]\n",
                        op->kind == TC_OP_COPY ? "copy" : "reduce", buf_name(op->a.buf),
                        (long long)op->a.off, (long long)op->a.cnt, buf_name(op->b.buf),
                        (long long)op->b.off, (long long)op->b.cnt);
            }
        }
    }
}

int tc_sched_duplicate(tc_sched *dst, const tc_sched *src)
{
    if (dst->ops_cap < src->nops) {
        tc_op *o = realloc(dst->ops, (size_t)(src->nops > 0 ? src->nops : 1) * sizeof *o);
        if (!o) return ENOMEM;
        dst->ops = o;
        dst->ops_cap = src->nops > 0 ? src->nops : 1;
    }
    if (dst->rounds_cap < src->nrounds + 1) {
        int *r = realloc(dst->round_start, (size_t)(src->nrounds + 1) * sizeof *r);
        if (!r) return ENOMEM;
        dst->round_start = r;
        dst->rounds_cap = src->nrounds + 1;
    }
    tc_op *ops = dst->ops;
    int *rs = dst->round_start, oc = dst->ops_cap, rc = dst->rounds_cap;
    *dst = *src;
    dst->ops = ops;
    dst->round_start = rs;
    dst->ops_cap = oc;
    dst->rounds_cap = rc;
    dst->drain = NULL;
    dst->drain_ctx = NULL;
    if (src->nops) memcpy(ops, src->ops, (size_t)src->nops * sizeof *ops);
    memcpy(rs, src->round_start, (size_t)(src->nrounds + 1) * sizeof *rs);
    return 0;
}
