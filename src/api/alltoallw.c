/*
 * MPI_Alltoallw's call path: per-peer datatypes, which the general path
 * (call.c, elements of one datatype per buffer) does not describe.
 *
 * The schedules of the alltoallw entries count in blocks (one element per
 * peer, src/algo/alltoallw/linear.c); here a block j becomes (address +
 * displacement j in bytes, count j, datatype j) of its buffer, and every
 * operation of the schedule is one MPI message on the communicator's
 * private duplicate (a COPY a local copy, local_copy).  With MPI_IN_PLACE the
 * receive buffer's span is copied to scratch first (the schedule's TMP
 * round) and the parts are sent from there with the receive datatypes.
 *
 * Order: the context first (collective on its first call, so every rank of
 * a valid communicator takes part), then this rank's arguments, then the
 * choice (topocoll_alltoallw_algorithm's name, which must accept the call,
 * else tc_choose: forced TOPOCOLL_ALLTOALLW, the tables, the models,
 * native), then the run.  The hierarchical entries (TC_REQ_NODE_COUNTS) do
 * not run in blocks: their parts are packed to bytes and the hierarchical
 * alltoallv schedule runs on them (alltoallw_hier.c).
 *
 * The memo (tc_vmemo's aw_ fields): a call by selection whose choice was
 * the MPI library's own is remembered with copies of its counts and
 * datatypes, and a later call with the same contents (whatever its
 * arrays' addresses), neither buffer MPI_IN_PLACE, on the same
 * communicator and configuration goes to PMPI_Alltoallw at the entry point
 * (tc_alltoallw_pass): its checks passed for those contents, and the
 * choice, made from them alone, would be the same.  Only where the choice
 * involves no agreement between ranks (no rule in force reads the size,
 * which differs between ranks: tc_select_reads_size), every datatype with a
 * nonzero count is predefined (a derived one's handle may be freed and come
 * back as another type) and no per-call work is asked for (TOPOCOLL_STATS,
 * TOPOCOLL_EXPLAIN, TOPOCOLL_CHECK).
 */
#include <stdlib.h>
#include <string.h>

#include "api/call.h"
#include "api/error.h"
#include "api/explain.h"
#include "api/alltoallw.h"
#include "api/pass.h"
#include "select/select.h"
#include "algo/catalog.h"

#define AW_TAG 7   /* the executor's tag on the private communicator */

typedef struct aw_run {
    const tc_call *c;
    MPI_Comm comm;
    char *tmp;             /* in place: RECV's span [lo, hi) copied */
    MPI_Aint lo;
} aw_run;

static const char *const side[2] = { "send", "recv" };

/* One side's vectors: present, counts not negative, a datatype for every
 * nonzero count; *bytes gets the side's total bytes. */
static int check_side(const tc_call *c, int b, int64_t *bytes)
{
    const int *cnt = c->vcnt[b], *dsp = c->vdispl[b];
    const MPI_Datatype *ty = c->vtype[b];
    *bytes = 0;
    if (!cnt || !dsp || !ty)
        return tc_raise(c->comm, MPI_ERR_ARG, "%s: %scounts, %sdispls or %stypes is NULL", c->fn, side[b],
                        side[b], side[b]);
    for (int j = 0; j < c->size; j++) {
        int sz = 0;
        if (cnt[j] < 0)
            return tc_raise(c->comm, MPI_ERR_COUNT, "%s: negative %scounts[%d] = %d", c->fn, side[b], j, cnt[j]);
        if (cnt[j] == 0) continue;
        if (ty[j] == MPI_DATATYPE_NULL)
            return tc_raise(c->comm, MPI_ERR_TYPE, "%s: %stypes[%d] is MPI_DATATYPE_NULL with count %d", c->fn,
                            side[b], j, cnt[j]);
        if (PMPI_Type_size(ty[j], &sz) != MPI_SUCCESS)
            return tc_raise(c->comm, MPI_ERR_TYPE, "%s: %stypes[%d] is not a datatype", c->fn, side[b], j);
        *bytes += (int64_t)cnt[j] * sz;
    }
    return MPI_SUCCESS;
}

static int check_args(tc_call *c)
{
    int64_t sb = 0, rb = 0;
    int rc;
    c->in_place = c->sbuf == MPI_IN_PLACE;
    if (!c->in_place && (rc = check_side(c, TC_BUF_SEND, &sb)) != MPI_SUCCESS) return rc;
    if ((rc = check_side(c, TC_BUF_RECV, &rb)) != MPI_SUCCESS) return rc;
    if (c->rbuf == MPI_IN_PLACE)
        return tc_raise(c->comm, MPI_ERR_BUFFER, "%s: recvbuf is MPI_IN_PLACE", c->fn);
    c->bytes = rb;
    return MPI_SUCCESS;
}

/* Does part j of side b carry bytes?  (Matching signatures: both ends of
 * a pair agree, a zero count or a zero-size datatype alike.) */
static int has_bytes(const tc_call *c, int b, int j)
{
    int sz = 0;
    if (c->vcnt[b][j] == 0) return 0;
    return PMPI_Type_size(c->vtype[b][j], &sz) == MPI_SUCCESS && sz > 0;
}

/* Blocks for the generators: part j is element j, of one element or none. */
static void make_args(const tc_call *c, int64_t *v, tc_args *a)
{
    int p = c->size, sb = c->in_place ? TC_BUF_RECV : TC_BUF_SEND;
    for (int j = 0; j < p; j++) {
        v[j] = has_bytes(c, sb, j), v[p + j] = j;
        v[2 * p + j] = has_bytes(c, TC_BUF_RECV, j), v[3 * p + j] = j;
    }
    memset(a, 0, sizeof *a);
    a->coll = TOPOCOLL_ALLTOALLW;
    a->rank = c->rank;
    a->size = p;
    a->scount = a->rcount = 1;
    a->in_place = c->in_place;
    a->commutative = 1;
}

/* Block j of buffer buf: its address, count and datatype. */
static void block(const aw_run *w, int buf, int64_t j, void **addr, int *cnt, MPI_Datatype *ty)
{
    const tc_call *c = w->c;
    int b = buf == TC_BUF_SEND ? TC_BUF_SEND : TC_BUF_RECV;
    if (buf == TC_BUF_SEND && c->in_place) b = TC_BUF_RECV;
    *cnt = c->vcnt[b][j];
    *ty = c->vtype[b][j];
    if (buf == TC_BUF_TMP) *addr = w->tmp + ((MPI_Aint)c->vdispl[b][j] - w->lo);
    else *addr = (char *)(b == TC_BUF_SEND ? (void *)(uintptr_t)c->sbuf : c->rbuf) + c->vdispl[b][j];
}

/* In place: RECV's bytes from the first part's first byte to the last
 * part's last, copied to scratch. */
static int save_input(aw_run *w)
{
    const tc_call *c = w->c;
    MPI_Aint lo = 0, hi = 0;
    int any = 0;
    for (int j = 0; j < c->size; j++) {
        MPI_Aint lb, ext, tlb, text;
        int n = c->vcnt[TC_BUF_RECV][j];
        if (n == 0) continue;
        if (PMPI_Type_get_extent(c->vtype[TC_BUF_RECV][j], &lb, &ext) != MPI_SUCCESS ||
            PMPI_Type_get_true_extent(c->vtype[TC_BUF_RECV][j], &tlb, &text) != MPI_SUCCESS)
            return MPI_ERR_TYPE;
        MPI_Aint d = c->vdispl[TC_BUF_RECV][j], a = d + tlb, e = d + tlb + text;
        if (ext >= 0) e += (MPI_Aint)(n - 1) * ext;
        else a += (MPI_Aint)(n - 1) * ext;
        if (!any || a < lo) lo = a;
        if (!any || e > hi) hi = e;
        any = 1;
    }
    w->lo = lo;
    if (!any) return MPI_SUCCESS;
    if (!(w->tmp = malloc((size_t)(hi - lo) + 1))) return MPI_ERR_NO_MEM;
    memcpy(w->tmp, (char *)c->rbuf + lo, (size_t)(hi - lo));
    return MPI_SUCCESS;
}

/* Are n elements of t one run of bytes?  *lb: where it starts. */
static int contiguous(MPI_Datatype t, int n, MPI_Aint *lb)
{
    int size = 0;
    MPI_Aint l, ext, tl, text;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS || PMPI_Type_get_extent(t, &l, &ext) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(t, &tl, &text) != MPI_SUCCESS)
        return 0;
    *lb = tl;
    return (MPI_Aint)size == text && (n == 1 || ext == text);
}

/* The own part, from (p, k, t) into (q, m, u), locally: one copy where
 * either side is one run of bytes, else packed and unpacked (a
 * send-receive to itself goes through the MPI library's messaging, several
 * times slower for large parts under Open MPI 4.1). */
static int local_copy(aw_run *w, const void *p, int k, MPI_Datatype t, void *q, int m, MPI_Datatype u)
{
    int size = 0, pos = 0, rc;
    MPI_Aint tl, ul;
    if ((rc = PMPI_Pack_size(k, t, w->comm, &size)) != MPI_SUCCESS) return rc;
    int ct = contiguous(t, k, &tl), cu = contiguous(u, m, &ul), tsz = 0;
    if (ct && cu && PMPI_Type_size(t, &tsz) == MPI_SUCCESS) {
        memcpy((char *)q + ul, (const char *)p + tl, (size_t)k * (size_t)tsz);
        return MPI_SUCCESS;
    }
    if (cu) return PMPI_Pack(p, k, t, (char *)q + ul, size, &pos, w->comm);
    if (ct && PMPI_Type_size(t, &tsz) == MPI_SUCCESS)
        return PMPI_Unpack((const char *)p + tl, k * tsz, &pos, q, m, u, w->comm);
    char *tmp = malloc((size_t)size + 1);
    if (!tmp) return MPI_ERR_NO_MEM;
    rc = PMPI_Pack(p, k, t, tmp, size, &pos, w->comm);
    int got = pos;
    pos = 0;
    if (rc == MPI_SUCCESS) rc = PMPI_Unpack(tmp, got, &pos, q, m, u, w->comm);
    free(tmp);
    return rc;
}

/* One round: its messages posted, its copies made, all waited for. */
static int run_round(aw_run *w, const tc_sched *s, int r, MPI_Request *req, MPI_Status *st)
{
    int n = 0, rc = MPI_SUCCESS;
    for (int i = s->round_start[r]; i < s->round_start[r + 1] && rc == MPI_SUCCESS; i++) {
        const tc_op *o = &s->ops[i];
        void *p;
        int k;
        MPI_Datatype t;
        if (o->kind == TC_OP_SEND) {
            block(w, o->a.buf, o->a.off, &p, &k, &t);
            rc = PMPI_Isend(p, k, t, o->peer, AW_TAG, w->comm, &req[n++]);
        } else if (o->kind == TC_OP_RECV) {
            block(w, o->a.buf, o->a.off, &p, &k, &t);
            rc = PMPI_Irecv(p, k, t, o->peer, AW_TAG, w->comm, &req[n++]);
        }
    }
    for (int i = s->round_start[r]; i < s->round_start[r + 1] && rc == MPI_SUCCESS; i++) {
        const tc_op *o = &s->ops[i];
        void *p, *q;
        int k, m;
        MPI_Datatype t, u;
        if (o->kind != TC_OP_COPY) continue;
        if (o->a.buf == TC_BUF_RECV && o->b.buf == TC_BUF_TMP) continue;   /* saved before (save_input) */
        block(w, o->a.buf, o->a.off, &p, &k, &t);
        block(w, o->b.buf, o->b.off, &q, &m, &u);
        rc = local_copy(w, p, k, t, q, m, u);
    }
    int rw = n ? PMPI_Waitall(n, req, st) : MPI_SUCCESS;
    for (int i = 0; rw == MPI_ERR_IN_STATUS && i < n; i++)   /* the first request's own error */
        if (st[i].MPI_ERROR != MPI_SUCCESS && st[i].MPI_ERROR != MPI_ERR_PENDING) rw = st[i].MPI_ERROR;
    return rc != MPI_SUCCESS ? rc : rw;
}

/* Every operation is a whole block (the generators' regions are one
 * element or none) of SEND, RECV or TMP: else the entry is not runnable. */
static int runnable(const tc_sched *s)
{
    for (int i = 0; i < s->nops; i++) {
        const tc_op *o = &s->ops[i];
        if (o->kind != TC_OP_SEND && o->kind != TC_OP_RECV && o->kind != TC_OP_COPY) return 0;
        if (o->a.cnt != 1 || o->a.buf > TC_BUF_TMP) return 0;
        if (o->kind == TC_OP_COPY && (o->b.cnt != 1 || o->b.buf > TC_BUF_TMP)) return 0;
    }
    return 1;
}

static int run_schedule(const tc_ctx *x, const tc_call *c, const tc_algo *al, const tc_args *a)
{
    tc_sched s;
    aw_run w = { c, x->comm, NULL, 0 };
    MPI_Request *req = NULL;
    MPI_Status *st = NULL;
    int rc;
    tc_sched_init(&s);
    rc = tc_algo_generate(al, &s, a, x->topo);
    if (rc == 0) rc = tc_sched_finish(&s) == 0 ? 0 : -1;
    if (rc == 0 && s.err) rc = MPI_ERR_NO_MEM;
    else if (rc != 0) rc = MPI_ERR_INTERN;
    if (rc == MPI_SUCCESS && !runnable(&s)) rc = MPI_ERR_INTERN;
    if (rc == MPI_SUCCESS && c->in_place) rc = save_input(&w);
    if (rc == MPI_SUCCESS && (!(req = malloc(((size_t)s.max_comm + 1) * sizeof *req)) ||
                              !(st = malloc(((size_t)s.max_comm + 1) * sizeof *st))))
        rc = MPI_ERR_NO_MEM;
    for (int r = 0; r < s.nrounds && rc == MPI_SUCCESS; r++) rc = run_round(&w, &s, r, req, st);
    free(req);
    free(st);
    free(w.tmp);
    tc_sched_free(&s);
    return rc;
}

/* The entry: the name given, else the selection's. */
static int choose(tc_ctx *x, const tc_call *c, const tc_args *a, int by_name, const char *algorithm,
                  const tc_algo **al)
{
    if (!by_name) return tc_choose(x, a, c->bytes, c->comm, al);
    char why[160] = "";
    if (!algorithm || !(*al = tc_catalog_resolve(TOPOCOLL_ALLTOALLW, algorithm, why, sizeof why)))
        return tc_raise(c->comm, MPI_ERR_ARG, "%s: no alltoallw algorithm \"%s\"%s%s", c->fn,
                        algorithm ? algorithm : "(null)", why[0] ? ": " : "", why);
    const char *reason = "";
    if (!tc_algo_accepts(*al, a, x->topo, &reason))   /* its domain (intra=shm: node-shared memory) */
        return tc_raise(c->comm, MPI_ERR_ARG, "%s: alltoallw algorithm '%s' declines: %s", c->fn, (*al)->name,
                        reason);
    tc_explain(x, "alltoallw", c->bytes, (*al)->name, "named");
    return MPI_SUCCESS;
}

/* ---- the memo ------------------------------------------------------------ */

/* Every datatype of a nonzero count predefined, on both sides. */
static int aw_types_named(const tc_call *c)
{
    for (int b = TC_BUF_SEND; b <= TC_BUF_RECV; b++)
        for (int j = 0; j < c->size; j++)
            if (c->vcnt[b][j] != 0 && !tc_call_type_named(c->vtype[b][j])) return 0;
    return 1;
}

/* Remember a successful call by selection served by the MPI library's own
 * collective, where it may be (see the file's comment); else forget. */
static void aw_remember(tc_ctx *x, const tc_call *c, const tc_algo *al, int by_name)
{
    const tc_config *cfg = tc_config_get();
    tc_vmemo *v = tc_vmemo_get(x);
    if (!v) return;
    v->aw_valid = 0;
    if (by_name || !(al->req & TC_REQ_NATIVE) || al->generate || c->in_place || cfg->stats_on ||
        cfg->explain || cfg->check_on || cfg->disable || tc_select_reads_size(TOPOCOLL_ALLTOALLW) ||
        !aw_types_named(c))
        return;
    size_t p = (size_t)c->size;
    memcpy(v->aw_counts, c->vcnt[TC_BUF_SEND], p * sizeof *v->aw_counts);
    memcpy(v->aw_counts + p, c->vcnt[TC_BUF_RECV], p * sizeof *v->aw_counts);
    memcpy(v->aw_types, c->vtype[TC_BUF_SEND], p * sizeof *v->aw_types);
    memcpy(v->aw_types + p, c->vtype[TC_BUF_RECV], p * sizeof *v->aw_types);
    v->aw_algo = al;
    v->aw_config_gen = cfg->generation;
    v->aw_valid = 1;
}

int tc_alltoallw_pass(MPI_Comm comm, const void *sbuf, const int *scounts, const MPI_Datatype *stypes,
                      const void *rbuf, const int *rcounts, const MPI_Datatype *rtypes)
{
    tc_ctx *x = tc_ctx_last_of(comm);
    if (!x || !x->vmemo) return 0;
    const tc_vmemo *v = x->vmemo;
    if (!v->aw_valid || v->aw_config_gen != tc_config_as_loaded->generation || sbuf == MPI_IN_PLACE ||
        rbuf == MPI_IN_PLACE || !scounts || !stypes || !rcounts || !rtypes)
        return 0;
    int p = x->size;
    const int *kc = v->aw_counts;
    const MPI_Datatype *kt = v->aw_types;
    for (int j = 0; j < p; j++)
        if (kc[j] != scounts[j] || kc[p + j] != rcounts[j] || kt[j] != stypes[j] || kt[p + j] != rtypes[j])
            return 0;
    tc_record_algorithm(v->aw_algo->name);
    tc_pass_served++;
    return 1;
}

int tc_alltoallw_call(tc_call *c, int by_name, const char *algorithm)
{
    tc_ctx *x = NULL;
    tc_args a;
    const tc_algo *al = NULL;
    int rc;
    if ((rc = tc_call_check_comm(c)) != MPI_SUCCESS) return rc;
    if ((rc = tc_ctx_get(c->comm, &x)) != MPI_SUCCESS) return tc_raise_mpi(c->comm, rc, c->fn);
    if ((rc = check_args(c)) != MPI_SUCCESS) return rc;
    int64_t *v = malloc(4 * (size_t)c->size * sizeof *v);
    if (!v) return tc_raise(c->comm, MPI_ERR_NO_MEM, "%s", c->fn);
    tc_vcounts vc = { v, v + c->size, v + 2 * c->size, v + 3 * c->size };
    make_args(c, v, &a);
    a.v = &vc;
    a.node_shm = x->node_shm;   /* the hierarchical entries' intra=shm */
    rc = choose(x, c, &a, by_name, algorithm, &al);
    if (rc == MPI_SUCCESS) {
        rc = !al->generate                    ? tc_run_native(c)
           : (al->req & TC_REQ_NODE_COUNTS) ? tc_alltoallw_hier_run(x, c, al, &a)   /* in bytes */
                                            : run_schedule(x, c, al, &a);
        if (rc != MPI_SUCCESS) rc = tc_raise_mpi(c->comm, rc, c->fn);
        else aw_remember(x, c, al, by_name);
    }
    free(v);
    return rc;
}
