/*
 * The compositions of MPI collectives in the catalog (TC_REQ_COMPOSED): the
 * hierarchical alltoall of Träff, Rougier, "MPI Collectives and Datatypes
 * for Hierarchical All-to-all Communication" (2014) as gather on the node
 * communicator -> alltoall (alltoallw, alltoallv) over the bridge of node
 * roots -> scatter.  What each entry does is in its catalog file
 * (src/algo/alltoall/bridge*.c); this file runs them.
 *
 * Shared by all: the node-sorted rank map is the topology's member lists
 * (node ids in bridge rank order, members in increasing rank order: the
 * node communicator's rank order), the node and bridge communicators come
 * from the context (made once per communicator), and every datatype is made
 * and freed inside the call.  Blocks are rcount elements of the receive type
 * at the roots (B); every rank's input goes out through an indexed-block
 * type that reads its p blocks in node-sorted order, and its output comes
 * in through the same type over the receive buffer.  MPI_IN_PLACE: the input
 * is the receive buffer, read by the gather before the scatter writes it.
 * Calls whose root buffers would pass MPI's int displacements go to
 * PMPI_Alltoall (tc_composed_run).
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/composed.h"

extern const tc_algo tc_alltoall_bridge, tc_alltoall_bridge_a2a, tc_alltoall_bridge_w,
    tc_alltoall_bridge_pack;

/* Everything a composition needs about the call. */
typedef struct comp {
    const tc_composed_call *c;
    const tc_topo *t;
    const tc_node_comms *nc;
    int p, me, node, n, root;     /* n: ranks of my node; root: I am its root */
    const void *in;               /* the input (rbuf in place) */
    int icount;
    MPI_Datatype itype;
    MPI_Datatype B;               /* one block: contiguous(rcount, rtype) */
    MPI_Aint eB;                  /* its extent */
    MPI_Datatype in_sorted, out_sorted;   /* node-sorted views of input and output */
    char *g, *a;                  /* root buffers (gather, alltoall results) */
    tc_workspace *ws;             /* the context's: buffers are carved from its stage */
} comp;

static void free_type(MPI_Datatype *t)
{
    if (*t != MPI_DATATYPE_NULL) (void)PMPI_Type_free(t);
    *t = MPI_DATATYPE_NULL;
}

static int commit(MPI_Datatype *t)
{
    return PMPI_Type_commit(t);
}

/* An indexed-block type over p blocks of `count` elements of `type` in
 * node-sorted order. */
static int sorted_type(const comp *k, int count, MPI_Datatype type, MPI_Datatype *out)
{
    int *disp = malloc((size_t)k->p * sizeof *disp);
    if (!disp) return MPI_ERR_NO_MEM;
    for (int i = 0; i < k->p; i++) disp[i] = k->t->node_ranks[i] * count;
    int rc = PMPI_Type_create_indexed_block(k->p, count, disp, type, out);
    free(disp);
    return rc == MPI_SUCCESS ? commit(out) : rc;
}

/* n buffers of bytes[i] from the context's staging buffer (it only grows:
 * no allocation, and no page faults, per call once warm), 64-byte aligned. */
static int carve(comp *k, int n, const size_t *bytes, char **out)
{
    size_t total = 0, at[4];
    for (int i = 0; i < n; i++) {
        at[i] = total;
        total += (bytes[i] + 63) / 64 * 64;
    }
    int rc = tc_workspace_stage(k->ws, total + 64);
    if (rc != MPI_SUCCESS) return rc;
    char *base = k->ws->stage + (64 - (uintptr_t)k->ws->stage % 64) % 64;
    for (int i = 0; i < n; i++) out[i] = base + at[i];
    return MPI_SUCCESS;
}

/* The root's two buffers of p n blocks of B (true extent honoured). */
static int root_buffers(comp *k)
{
    MPI_Aint tlb = 0, text = 0;
    int rc = PMPI_Type_get_true_extent(k->B, &tlb, &text);
    if (rc != MPI_SUCCESS) return rc;
    int64_t nb = (int64_t)k->p * k->n;
    size_t bytes[2];
    bytes[0] = bytes[1] = (size_t)((nb - 1) * k->eB + text);
    char *mem[2];
    if ((rc = carve(k, 2, bytes, mem)) != MPI_SUCCESS) return rc;
    k->g = mem[0] - tlb;
    k->a = mem[1] - tlb;
    return MPI_SUCCESS;
}

static int setup(comp *k, tc_ctx *x, const tc_composed_call *c)
{
    MPI_Aint lb;
    int rc;
    memset(k, 0, sizeof *k);
    k->c = c;
    k->ws = &x->ws;
    k->t = x->topo;
    k->p = x->size;
    k->me = x->rank;
    k->node = k->t->node_of[k->me];
    k->n = tc_topo_node_size(k->t, k->node);
    k->root = k->t->node_idx[k->me] == 0;
    k->B = k->in_sorted = k->out_sorted = MPI_DATATYPE_NULL;
    k->in = c->in_place ? c->rbuf : c->sbuf;
    k->icount = c->in_place ? c->rcount : c->scount;
    k->itype = c->in_place ? c->rtype : c->stype;
    if ((rc = tc_ctx_node_comms(x, &k->nc)) != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Type_contiguous(c->rcount, c->rtype, &k->B)) != MPI_SUCCESS || (rc = commit(&k->B)) != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Type_get_extent(k->B, &lb, &k->eB)) != MPI_SUCCESS) return rc;
    if ((rc = sorted_type(k, k->icount, k->itype, &k->in_sorted)) != MPI_SUCCESS) return rc;
    return sorted_type(k, c->rcount, c->rtype, &k->out_sorted);
}

static void teardown(comp *k)
{
    free_type(&k->B);
    free_type(&k->in_sorted);
    free_type(&k->out_sorted);
}

/* A vector of count blocks of len B at a stride of stride B, resized to
 * `extent` B, committed. */
static int vector_b(const comp *k, int count, int len, int stride, int extent, MPI_Datatype *out)
{
    MPI_Datatype v;
    int rc = PMPI_Type_vector(count, len, stride, k->B, &v);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Type_create_resized(v, 0, (MPI_Aint)extent * k->eB, out);
    (void)PMPI_Type_free(&v);
    return rc == MPI_SUCCESS ? commit(out) : rc;
}

/* ---- bridge: gather with a vector receive type (second solution) ---------- */

static int run_bridge(comp *k)
{
    int n = k->n, N = k->t->nnodes, p = k->p, rc;
    MPI_Datatype gt = MPI_DATATYPE_NULL, st = MPI_DATATYPE_NULL;
    if (k->root && ((rc = root_buffers(k)) != MPI_SUCCESS || (rc = vector_b(k, N, n, n * n, n, &gt)) != MPI_SUCCESS ||
                    (rc = vector_b(k, p, 1, n, 1, &st)) != MPI_SUCCESS))
        goto out;
    rc = PMPI_Gather(k->in, 1, k->in_sorted, k->g, 1, k->root ? gt : k->B, 0, k->nc->local);
    if (rc == MPI_SUCCESS && k->root) rc = PMPI_Alltoall(k->g, n * n, k->B, k->a, n * n, k->B, k->nc->bridge);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Scatter(k->a, 1, k->root ? st : k->B, k->c->rbuf, 1, k->out_sorted, 0, k->nc->local);
out:
    free_type(&gt);
    free_type(&st);
    return rc;
}

/* ---- bridge_a2a: the alltoall's types reorder (first solution) ------------- */

/* Receive type of the alltoall: from each of the n source ranks (outer), n
 * blocks for the n destination ranks (inner) go to j p + i; tiled by n. */
static int a2a_recv_type(const comp *k, MPI_Datatype *out)
{
    MPI_Datatype col = MPI_DATATYPE_NULL, all = MPI_DATATYPE_NULL;
    int rc = vector_b(k, k->n, 1, k->p, 1, &col);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_contiguous(k->n, col, &all);
    if (rc == MPI_SUCCESS) rc = PMPI_Type_create_resized(all, 0, (MPI_Aint)k->n * k->eB, out);
    if (rc == MPI_SUCCESS) rc = commit(out);
    free_type(&col);
    free_type(&all);
    return rc;
}

static int run_bridge_a2a(comp *k)
{
    int n = k->n, p = k->p, rc = MPI_SUCCESS;
    MPI_Datatype at = MPI_DATATYPE_NULL, rt = MPI_DATATYPE_NULL;
    if (k->root && ((rc = root_buffers(k)) != MPI_SUCCESS || (rc = vector_b(k, n, n, p, n, &at)) != MPI_SUCCESS || (rc = a2a_recv_type(k, &rt)) != MPI_SUCCESS))
        goto out;
    rc = PMPI_Gather(k->in, 1, k->in_sorted, k->g, p, k->B, 0, k->nc->local);
    if (rc == MPI_SUCCESS && k->root) rc = PMPI_Alltoall(k->g, 1, at, k->a, 1, rt, k->nc->bridge);
    if (rc == MPI_SUCCESS) rc = PMPI_Scatter(k->a, p, k->B, k->c->rbuf, 1, k->out_sorted, 0, k->nc->local);
out:
    free_type(&at);
    free_type(&rt);
    return rc;
}

/* ---- bridge_w: MPI_Alltoallw over the bridge (any node sizes) --------------- */

typedef struct wargs {
    int *counts, *idispl;
    MPI_Datatype *stypes, *rtypes;
    int N;
} wargs;

static void wargs_free(wargs *w)
{
    for (int i = 0; w->stypes && i < w->N; i++) {
        free_type(&w->stypes[i]);
        free_type(&w->rtypes[i]);
    }
    free(w->counts);
    free(w->idispl);
    free(w->stypes);
    free(w->rtypes);
}

/* One send type per destination node J (n_A rows of n_J blocks at stride p)
 * and one receive type per source node I (n_I columns of n_A blocks). */
static int wargs_make(const comp *k, wargs *w)
{
    int N = k->t->nnodes, rc = MPI_SUCCESS;
    memset(w, 0, sizeof *w);
    w->N = N;
    w->counts = malloc((size_t)N * sizeof *w->counts);
    w->idispl = malloc((size_t)N * sizeof *w->idispl);
    w->stypes = malloc((size_t)N * sizeof *w->stypes);
    w->rtypes = malloc((size_t)N * sizeof *w->rtypes);
    if (!w->counts || !w->idispl || !w->stypes || !w->rtypes) return MPI_ERR_NO_MEM;
    for (int J = 0; J < N; J++) w->stypes[J] = w->rtypes[J] = MPI_DATATYPE_NULL;
    for (int J = 0; J < N && rc == MPI_SUCCESS; J++) {
        int nJ = tc_topo_node_size(k->t, J);
        MPI_Datatype col = MPI_DATATYPE_NULL;
        w->counts[J] = 1;
        w->idispl[J] = (int)(k->t->node_start[J] * k->eB);
        rc = PMPI_Type_vector(k->n, nJ, k->p, k->B, &w->stypes[J]);
        if (rc == MPI_SUCCESS) rc = commit(&w->stypes[J]);
        if (rc == MPI_SUCCESS) rc = vector_b(k, k->n, 1, k->p, 1, &col);
        if (rc == MPI_SUCCESS) rc = PMPI_Type_contiguous(nJ, col, &w->rtypes[J]);
        if (rc == MPI_SUCCESS) rc = commit(&w->rtypes[J]);
        free_type(&col);
    }
    return rc;
}

static int run_bridge_w(comp *k)
{
    int p = k->p, rc = MPI_SUCCESS;
    wargs w;
    memset(&w, 0, sizeof w);
    if (k->root && ((rc = root_buffers(k)) != MPI_SUCCESS || (rc = wargs_make(k, &w)) != MPI_SUCCESS)) goto out;
    rc = PMPI_Gather(k->in, 1, k->in_sorted, k->g, p, k->B, 0, k->nc->local);
    if (rc == MPI_SUCCESS && k->root)
        rc = PMPI_Alltoallw(k->g, w.counts, w.idispl, w.stypes, k->a, w.counts, w.idispl, w.rtypes,
                            k->nc->bridge);
    if (rc == MPI_SUCCESS) rc = PMPI_Scatter(k->a, p, k->B, k->c->rbuf, 1, k->out_sorted, 0, k->nc->local);
out:
    wargs_free(&w);
    return rc;
}

/* ---- bridge_pack: explicit packing and copies -------------------------------- */

typedef struct pbufs {
    char *pk, *g, *o;             /* packed input/output; root: gathered, bundles */
    int *sc, *sd, *rc, *rd;       /* alltoallv counts and displacements (bytes) */
} pbufs;

static void pbufs_free(pbufs *b)
{
    free(b->sc);
}

static int pbufs_make(comp *k, size_t bb, pbufs *b)
{
    size_t all = (size_t)k->p * bb, N = (size_t)k->t->nnodes;
    size_t bytes[3] = { all, k->root ? all * (size_t)k->n : 0, k->root ? all * (size_t)k->n : 0 };
    char *mem[3];
    memset(b, 0, sizeof *b);
    int rc = carve(k, 3, bytes, mem);
    if (rc != MPI_SUCCESS) return rc;
    b->pk = mem[0], b->g = mem[1], b->o = mem[2];
    if (!k->root) return MPI_SUCCESS;
    b->sc = malloc(4 * N * sizeof *b->sc);
    if (!b->sc) return MPI_ERR_NO_MEM;
    b->sd = b->sc + N, b->rc = b->sc + 2 * N, b->rd = b->sc + 3 * N;
    for (int J = 0; J < (int)N; J++) {
        size_t nJ = (size_t)tc_topo_node_size(k->t, J), pre = (size_t)k->t->node_start[J];
        b->sc[J] = b->rc[J] = (int)((size_t)k->n * nJ * bb);
        b->sd[J] = b->rd[J] = (int)((size_t)k->n * pre * bb);
    }
    return MPI_SUCCESS;
}

/* Root: gathered [member i][node-sorted position] to bundles [node J][i][j]
 * (dir 0), or received bundles [node I][i][member j] to parts [j][I][i]
 * (dir 1). */
static void reorder(const comp *k, size_t bb, const char *from, char *to, int dir)
{
    size_t p = (size_t)k->p, nA = (size_t)k->n;
    for (int J = 0; J < k->t->nnodes; J++) {
        size_t nJ = (size_t)tc_topo_node_size(k->t, J), pre = (size_t)k->t->node_start[J];
        for (size_t i = 0; i < (dir ? nJ : nA); i++)
            for (size_t j = 0; j < (dir ? nA : 1); j++) {
                if (dir == 0)   /* a row of nJ blocks */
                    memcpy(to + (nA * pre + i * nJ) * bb, from + (i * p + pre) * bb, nJ * bb);
                else
                    memcpy(to + (j * p + pre + i) * bb, from + (nA * pre + i * nA + j) * bb, bb);
            }
    }
}

static int run_bridge_pack(comp *k)
{
    int size = 0, pos = 0, rc;
    if ((rc = PMPI_Type_size(k->c->rtype, &size)) != MPI_SUCCESS) return rc;
    size_t bb = (size_t)k->c->rcount * (size_t)size, all = (size_t)k->p * bb;
    pbufs b;
    if ((rc = pbufs_make(k, bb, &b)) != MPI_SUCCESS) goto out;
    rc = PMPI_Pack(k->in, 1, k->in_sorted, b.pk, (int)all, &pos, k->nc->local);
    if (rc == MPI_SUCCESS && (size_t)pos != all) rc = MPI_ERR_INTERN;   /* not a homogeneous MPI */
    if (rc == MPI_SUCCESS) rc = PMPI_Gather(b.pk, (int)all, MPI_BYTE, b.g, (int)all, MPI_BYTE, 0, k->nc->local);
    if (rc == MPI_SUCCESS && k->root) {
        reorder(k, bb, b.g, b.o, 0);
        rc = PMPI_Alltoallv(b.o, b.sc, b.sd, MPI_BYTE, b.g, b.rc, b.rd, MPI_BYTE, k->nc->bridge);
        if (rc == MPI_SUCCESS) reorder(k, bb, b.g, b.o, 1);
    }
    if (rc == MPI_SUCCESS) rc = PMPI_Scatter(b.o, (int)all, MPI_BYTE, b.pk, (int)all, MPI_BYTE, 0, k->nc->local);
    pos = 0;
    if (rc == MPI_SUCCESS) rc = PMPI_Unpack(b.pk, (int)all, &pos, k->c->rbuf, 1, k->out_sorted, k->nc->local);
out:
    pbufs_free(&b);
    return rc;
}

/* ---- dispatch ------------------------------------------------------------------ */

/* Whether a b c d > limit (all >= 0), in integers: no overflow, and no
 * floating-point flag raised in the caller's call. */
static int product_exceeds(int64_t a, int64_t b, int64_t c, int64_t d, int64_t limit)
{
    const int64_t f[4] = { a, b, c, d };
    int64_t r = 1;
    for (int i = 0; i < 4; i++)
        if (f[i] == 0) return 0;
    for (int i = 0; i < 4; i++) {
        if (r > limit / f[i]) return 1;
        r *= f[i];
    }
    return 0;
}

int tc_composed_run(tc_ctx *x, const tc_algo *al, const tc_composed_call *c)
{
    static const struct { const tc_algo *al; int (*run)(comp *k); } entries[] = {
        { &tc_alltoall_bridge, run_bridge },
        { &tc_alltoall_bridge_a2a, run_bridge_a2a },
        { &tc_alltoall_bridge_w, run_bridge_w },
        { &tc_alltoall_bridge_pack, run_bridge_pack },
    };
    int (*run)(comp *k) = NULL;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (entries[i].al->coll == al->coll && strcmp(entries[i].al->name, al->name) == 0)
            run = entries[i].run;   /* the catalog hands out copies: by name */
    if (!run) return MPI_ERR_INTERN;
    /* MPI's int counts and displacements (bytes, for alltoallw/alltoallv)
     * cover a root's p n blocks only up to 2 GiB: beyond a quarter of that
     * (decided on the signature, the same at every rank) the MPI library's
     * own alltoall serves the call, so a legal call never fails here. */
    int tsize = 0, rc;
    if ((rc = PMPI_Type_size(c->rtype, &tsize)) != MPI_SUCCESS) return rc;
    /* nothing moves (equal signatures: everywhere, whether a rank says
     * count 0 or a count of a zero-size type) */
    if (c->rcount == 0 || tsize == 0) return MPI_SUCCESS;
    if (product_exceeds(x->size, x->size, c->rcount, tsize > 0 ? tsize : 1, INT_MAX / 4))
        return PMPI_Alltoall(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, x->comm);
    comp k;
    rc = setup(&k, x, c);
    if (rc == MPI_SUCCESS) rc = run(&k);
    teardown(&k);
    return rc;
}
