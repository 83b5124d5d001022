/* Mirror image of a schedule (see mirror.h). */
#include "blocks/mirror.h"

#include <errno.h>

static int swap_buf(int b)
{
    return b == TC_BUF_SEND ? TC_BUF_RECV : b == TC_BUF_RECV ? TC_BUF_SEND : b;
}

static tc_region swap_reg(tc_region r)
{
    r.buf = (int8_t)swap_buf(r.buf);
    return r;
}

int tc_sched_mirror(tc_sched *dst, tc_sched *src)
{
    tc_sched_round(src);
    if (src->err) return src->err;
    for (int r = src->nrounds - 1; r >= 0; r--) {
        int b = tc_sched_round_begin(src, r), e = tc_sched_round_end(src, r);
        for (int i = b; i < e; i++) {
            const tc_op *op = &src->ops[i];
            if (op->kind == TC_OP_SEND) tc_sched_recv(dst, op->peer, swap_reg(op->a));
            else if (op->kind == TC_OP_RECV) tc_sched_send(dst, op->peer, swap_reg(op->a));
        }
        for (int i = e - 1; i >= b; i--) {
            const tc_op *op = &src->ops[i];
            if (op->kind == TC_OP_COPY) tc_sched_copy(dst, swap_reg(op->b), swap_reg(op->a));
            else if (op->kind != TC_OP_SEND && op->kind != TC_OP_RECV) return EINVAL;
        }
        tc_sched_round(dst);
    }
    tc_sched_need_tmp(dst, src->tmp_count);
    dst->tmp_like = swap_buf(src->tmp_like);
    return 0;
}

int tc_gather_by_mirror(tc_sched *s, const tc_args *a, const tc_topo *t,
                        int (*scatter_generate)(tc_sched *, const tc_args *, const tc_topo *))
{
    tc_args sc = *a;
    sc.coll = TOPOCOLL_SCATTER;
    sc.scount = a->rcount;
    sc.rcount = a->scount;
    tc_sched m;
    tc_sched_init(&m);
    int rc = m.err ? m.err : scatter_generate(&m, &sc, t);
    if (!rc) rc = tc_sched_mirror(s, &m);
    tc_sched_free(&m);
    return rc;
}
