/*
 * A call whose node-shared window would exceed TOPOCOLL_SHM_BUDGET, run in
 * pieces (see shm_budget.h): element-wise collectives (tc_coll_elementwise:
 * bcast, reduce, allreduce) are the same call on consecutive element
 * ranges, one after another, each piece a call record of its own whose
 * window fits half the budget.
 */
#include "api/call.h"
#include "api/shm_budget.h"

/* n elements of a separable call from element off; ext: the types' extents. */
static tc_call piece_of(const tc_call *c, int64_t off, int n, const MPI_Aint ext[2], tc_ctx *x,
                        const tc_args *a, tc_args *pa)
{
    tc_call p = *c;
    p.scount = p.rcount = n;
    if (c->use[TC_BUF_SEND] && c->sbuf != MPI_IN_PLACE) p.sbuf = (const char *)c->sbuf + off * ext[0];
    if (c->use[TC_BUF_RECV]) p.rbuf = (char *)c->rbuf + off * ext[1];
    tc_call_make_ctx_args(&p, x, pa);
    pa->node_shm = a->node_shm;
    return p;
}

int64_t tc_pieces_size(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a, const int64_t esz[2],
                       int64_t half, int64_t *need)
{
    const MPI_Aint ext[2] = { 0, 0 };
    const char *why;
    tc_args pa;
    int64_t n = c->rcount, m = (int64_t)((double)n * (double)half / (double)*need);
    for (int tries = 0; tries < 8 && m > 0; tries++) {
        if (m >= 128) m -= m % 64;   /* pieces of whole cache lines for most types */
        (void)piece_of(c, 0, (int)m, ext, x, a, &pa);
        if (!tc_algo_accepts(al, &pa, x->topo, &why)) return 0;
        int64_t pn = tc_shm_need(al, &pa, x->topo, esz);
        if (pn < 0) return 0;
        if (pn <= half) {
            (void)piece_of(c, 0, (int)(n % m ? n % m : m), ext, x, a, &pa);
            *need = pn;
            return tc_algo_accepts(al, &pa, x->topo, &why) ? m : 0;
        }
        m = (int64_t)((double)m * (double)half / (double)pn) - 1;
    }
    return 0;
}

int tc_pieces_run(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a, int64_t m)
{
    MPI_Aint lb, ext[2] = { 0, 0 };
    int rc = MPI_SUCCESS;
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++)
        if (c->use[b] && (rc = PMPI_Type_get_extent(tc_call_type(c, b), &lb, &ext[b])) != MPI_SUCCESS) return rc;
    for (int64_t off = 0; off < c->rcount && rc == MPI_SUCCESS; off += m) {
        tc_args pa;
        const tc_sched *s;
        tc_call p = piece_of(c, off, (int)(c->rcount - off < m ? c->rcount - off : m), ext, x, a, &pa);
        rc = tc_run(x, al, &p, &pa, &s);
    }
    return rc;
}
