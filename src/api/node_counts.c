/*
 * The count exchange of the hierarchical alltoallv (Träff, Rougier, "MPI
 * Collectives and Datatypes for Hierarchical All-to-all Communication"
 * (2014), section 2.4: the counts gathered node-locally first), and the
 * run of its schedule.
 *
 * A leader lays out the parts of every rank of its node, so each rank's
 * counts are allgathered over the node communicator (tc_ctx_node_comms:
 * the ranks of my node in increasing rank order, that is member order):
 * 2p 64-bit counts per rank.  They travel in bytes: a part's byte count is
 * the same at sender and receiver (MPI's matching signatures), whatever
 * datatypes the ranks use, so the schedule is made and run in bytes.  A
 * buffer whose datatype is contiguous is bound as bytes where it lies
 * (displacement x extent); any other is staged: its parts packed one after
 * another into a byte buffer (input) and unpacked after the schedule
 * (output).  The schedule depends on every count and is not cached.
 *
 * Cost: one node-local MPI_Allgather of 2p counts per rank, O(n p) to read
 * them, plus the staging copies for non-contiguous datatypes.
 */
#include "api/node_counts.h"

extern const tc_algo tc_alltoallv_bridge_dt;

/* The zero-copy composition (the catalog hands out copies: by name). */
static int is_dt(const tc_algo *al) { return strcmp(al->name, tc_alltoallv_bridge_dt.name) == 0; }

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One side (send or receive) in bytes: counts and displacements, and the
 * staging buffer when its datatype is not contiguous. */
typedef struct side {
    tc_bind user;           /* the user's buffer and datatype */
    char *stage;            /* NULL: bound where it lies */
    int64_t *cnt, *dsp;     /* [p] bytes */
} side;

/* Bytes per part; contiguous (or not staged, stage 0): displacement x
 * extent, else packed in order. */
static int side_make(side *sd, int p, void *buf, MPI_Datatype type, const int *cnt, const int *dsp, int stage)
{
    int rc = tc_bind_type(&sd->user, buf, type);
    if (rc != MPI_SUCCESS) return rc;
    int64_t at = 0, size = sd->user.size;
    for (int j = 0; j < p; j++) {
        sd->cnt[j] = cnt[j] * size;
        sd->dsp[j] = sd->user.contiguous || !stage ? dsp[j] * (int64_t)sd->user.extent : at;
        at += sd->cnt[j];
    }
    sd->stage = NULL;
    if (sd->user.contiguous || !stage) return MPI_SUCCESS;
    return (sd->stage = malloc((size_t)at + 1)) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static char *side_base(const side *sd) { return sd->stage ? sd->stage : sd->user.base; }

/* Parts between the user's layout and the staging buffer (to_stage: pack). */
static int side_copy(const side *sd, int p, const int *cnt, const int *dsp, int to_stage, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    for (int j = 0; j < p && rc == MPI_SUCCESS; j++) {
        if (cnt[j] == 0) continue;
        char *user = sd->user.base + (MPI_Aint)dsp[j] * sd->user.extent, *st = sd->stage + sd->dsp[j];
        rc = to_stage ? tc_pack_elems(user, cnt[j], &sd->user, st, comm)
                      : tc_unpack_elems(st, user, cnt[j], &sd->user, comm);
    }
    return rc;
}

/* The node's rows: [i*p + j] what member i sends j / receives from j. */
static int exchange(tc_ctx *x, const side *s, const side *r, int64_t *node_sc, int64_t *node_rc)
{
    const tc_node_comms *nc;
    int rc = tc_ctx_node_comms(x, &nc), n = 0, p = x->size;
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Comm_size(nc->local, &n)) != MPI_SUCCESS) return rc;
    int64_t *mine = malloc(2 * (size_t)p * sizeof *mine), *all = malloc(2 * (size_t)n * (size_t)p * sizeof *all);
    if (!mine || !all) rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        memcpy(mine, s->cnt, (size_t)p * sizeof *mine);
        memcpy(mine + p, r->cnt, (size_t)p * sizeof *mine);
        rc = PMPI_Allgather(mine, 2 * p, MPI_INT64_T, all, 2 * p, MPI_INT64_T, nc->local);
    }
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        memcpy(node_sc + (size_t)i * p, all + (size_t)i * 2 * p, (size_t)p * sizeof *all);
        memcpy(node_rc + (size_t)i * p, all + (size_t)i * 2 * p + p, (size_t)p * sizeof *all);
    }
    free(mine);
    free(all);
    return rc;
}

/* Generate and run the byte schedule. */
static int run_bytes(tc_ctx *x, const tc_algo *al, const tc_args *a, side *s, side *r)
{
    tc_sched sc;
    tc_bind b[TC_NBUF];
    tc_sched_init(&sc);
    int rc = tc_algo_generate(al, &sc, a, x->topo);
    if (rc == 0) rc = tc_sched_finish(&sc);
    rc = rc ? MPI_ERR_NO_MEM : tc_bind_type(&b[TC_BUF_SEND], side_base(s), MPI_BYTE);
    if (rc == MPI_SUCCESS) rc = tc_bind_type(&b[TC_BUF_RECV], side_base(r), MPI_BYTE);
    if (rc == MPI_SUCCESS) {
        tc_exec_env env = tc_ctx_env(x, MPI_OP_NULL);
        rc = tc_exec(&sc, b, &env);
    }
    tc_sched_free(&sc);
    return rc;
}

/* ---- shared by the compositions -------------------------------------------- */

int tc_nc_comp_init(tc_nc_comp *k, tc_ctx *x, const int64_t *S, const int64_t *R)
{
    *k = (tc_nc_comp){ x, NULL, S, R, x->size, x->topo->nnodes, x->topo->node_of[x->rank], 0,
                       x->topo->node_idx[x->rank] };
    k->n = tc_topo_node_size(x->topo, k->A);
    return tc_ctx_node_comms(x, &k->nc);
}

int64_t tc_nc_row_sum(const tc_nc_comp *k, const int64_t *rows, int i, int B)
{
    const int *m = tc_topo_node_members(k->x->topo, B);
    int64_t sum = 0;
    for (int y = 0; y < tc_topo_node_size(k->x->topo, B); y++) sum += rows[(size_t)i * k->p + m[y]];
    return sum;
}

/* Does every count and displacement of my node's root fit an int?  The
 * same answer at every rank of the node (from the node's rows); agreed
 * over the communicator, so that all ranks take the same path. */
int tc_nc_roots_fit(const tc_nc_comp *k, int *all)
{
    int64_t in = 0, out = 0;
    for (int i = 0; i < k->n; i++)
        for (int B = 0; B < k->G; B++) out += tc_nc_row_sum(k, k->S, i, B), in += tc_nc_row_sum(k, k->R, i, B);
    int fits = in < INT_MAX && out < INT_MAX;
    *all = 0;
    return PMPI_Allreduce(&fits, all, 1, MPI_INT, MPI_MIN, k->x->comm);
}

int tc_nc_native(const tc_nc_comp *k, const tc_node_call *c)
{
    return PMPI_Alltoallv(c->in_place ? MPI_IN_PLACE : c->sbuf, c->scounts, c->sdispls, c->stype, c->rbuf,
                          c->rcounts, c->rdispls, c->rtype, k->x->comm);
}

void tc_nc_root_rows(const tc_nc_comp *k, int *g, int *gd, int *f, int *fd)
{
    int64_t at = 0, atf = 0;
    for (int i = 0; i < k->n; i++) {
        int64_t gi = 0, fi = 0;
        for (int B = 0; B < k->G; B++) gi += tc_nc_row_sum(k, k->S, i, B), fi += tc_nc_row_sum(k, k->R, i, B);
        g[i] = (int)gi, gd[i] = (int)at, at += gi;
        f[i] = (int)fi, fd[i] = (int)atf, atf += fi;
    }
}

/* Buffers from the context's staging workspace (allocating them per call
 * costs page faults every call): pre bytes (pk), then two of `bytes`. */
int tc_nc_root_buffers(const tc_nc_comp *k, size_t pre, size_t bytes, char **pk, char **g, char **o)
{
    size_t a = (pre + 63) / 64 * 64, b = (bytes + 1 + 63) / 64 * 64;
    int rc = tc_workspace_stage(&k->x->ws, a + 2 * b + 64);
    if (rc != MPI_SUCCESS) return rc;
    char *base = k->x->ws.stage + (64 - (uintptr_t)k->x->ws.stage % 64) % 64;
    *pk = base, *g = base + a, *o = base + a + b;
    return MPI_SUCCESS;
}

/* ---- the composition (alltoallv "bridge", src/algo/alltoallv/bridge.c) ---- */

/* The packing composition: the shared part and my sides. */
typedef struct comp {
    tc_nc_comp k;
    const side *s, *r;
} comp;

/* Pack (dir 0: my parts, node-sorted, into buf) or unpack (dir 1: buf,
 * node-sorted by source, to my parts). */
static void pack_parts(const comp *k, char *buf, int dir)
{
    const side *sd = dir ? k->r : k->s;
    char *base = side_base(sd);
    int64_t at = 0;
    for (int B = 0; B < k->k.G; B++) {
        const int *m = tc_topo_node_members(k->k.x->topo, B);
        for (int y = 0; y < tc_topo_node_size(k->k.x->topo, B); y++) {
            int j = m[y];
            if (dir) memcpy(base + sd->dsp[j], buf + at, (size_t)sd->cnt[j]);
            else memcpy(buf + at, base + sd->dsp[j], (size_t)sd->cnt[j]);
            at += sd->cnt[j];
        }
    }
}

/* Root: the int layout, counts and displacements in bytes: gathered rows
 * (g, gd: [n]), bundles out and in (bo, bod, bi, bid: [G]), chunks (f, fd: [n]). */
static void root_layout(const tc_nc_comp *k, int *g, int *gd, int *bo, int *bod, int *bi, int *bid, int *f, int *fd)
{
    int64_t ato = 0, ati = 0;
    tc_nc_root_rows(k, g, gd, f, fd);
    for (int B = 0; B < k->G; B++) {
        int64_t o = 0, in = 0;
        for (int i = 0; i < k->n; i++) o += tc_nc_row_sum(k, k->S, i, B), in += tc_nc_row_sum(k, k->R, i, B);
        bo[B] = (int)o, bod[B] = (int)ato, ato += o;
        bi[B] = (int)in, bid[B] = (int)ati, ati += in;
    }
}

/* Root: gathered rows [i][B][j] to bundles [B][j of B][i] (dir 0), or
 * received bundles [B][j of A][i of B] to chunks [j][B][i] (dir 1). */
static void reorder(const tc_nc_comp *k, const char *from, char *to, const int *rowd, int dir)
{
    int64_t *cur = malloc((size_t)k->n * sizeof *cur + 1), at = 0;
    if (!cur) return;
    for (int i = 0; i < k->n; i++) cur[i] = rowd[i];
    for (int B = 0; B < k->G; B++) {
        const int *m = tc_topo_node_members(k->x->topo, B);
        int nB = tc_topo_node_size(k->x->topo, B);
        for (int y = 0; y < (dir ? k->n : nB); y++)
            for (int z = 0; z < (dir ? nB : k->n); z++) {
                int i = dir ? y : z;   /* the member of my node whose row or chunk it is */
                int64_t len = dir ? k->R[(size_t)y * k->p + m[z]] : k->S[(size_t)z * k->p + m[y]];
                if (dir) memcpy(to + cur[i], from + at, (size_t)len);
                else memcpy(to + at, from + cur[i], (size_t)len);
                cur[i] += len;
                at += len;
            }
    }
    free(cur);
}

/* Root: reorder, exchange the bundles over the bridge, reorder. */
static int root_exchange(const tc_nc_comp *k, char *g, char *o, const int *L)
{
    int n = k->n, G = k->G;
    const int *gd = L + n, *bo = L + 2 * n, *bod = bo + G, *bi = bod + G, *bid = bi + G,
        *fd = bid + G + n;
    reorder(k, g, o, gd, 0);
    int rc = PMPI_Alltoallv(o, bo, bod, MPI_BYTE, g, bi, bid, MPI_BYTE, k->nc->bridge);
    if (rc == MPI_SUCCESS) reorder(k, g, o, fd, 1);
    return rc;
}

/* The gather, the root's exchange, the scatter; L: the root's int layout
 * (NULL elsewhere), pk: my pack buffer, g and o: the root's two buffers. */
static int compose(comp *c, int *L, char *pk, char *g, char *o, int64_t mine, int64_t theirs)
{
    const tc_nc_comp *k = &c->k;
    int n = k->n, G = k->G, root = L != NULL, rc;
    pack_parts(c, pk, 0);
    rc = PMPI_Gatherv(pk, (int)mine, MPI_BYTE, g, L, root ? L + n : NULL, MPI_BYTE, 0, k->nc->local);
    if (rc != MPI_SUCCESS) return rc;
    /* a failed exchange (counts that do not match between nodes: the
     * user's error) still scatters, so that the node's ranks return as they
     * would from the library's own; the root reports the error, and sends
     * the other ranks of its node one byte more than they expect, so that
     * their receives fail with MPI_ERR_TRUNCATE too (their parts may have
     * come through the failed exchange; the byte lies inside o's
     * allocation).  Not its own part: MPICH's MPI_Scatterv stops at a failed
     * local copy before it sends to the others. */
    int xrc = root ? root_exchange(k, g, o, L) : MPI_SUCCESS;
    for (int i = 1; xrc != MPI_SUCCESS && i < n; i++)
        if (L[2 * n + 4 * G + i] > 0 && L[2 * n + 4 * G + i] < INT_MAX) L[2 * n + 4 * G + i]++;
    rc = PMPI_Scatterv(o, root ? L + 2 * n + 4 * G : NULL, root ? L + 3 * n + 4 * G : NULL, MPI_BYTE, pk,
                       (int)theirs, MPI_BYTE, 0, k->nc->local);
    if (rc == MPI_SUCCESS && xrc == MPI_SUCCESS) pack_parts(c, pk, 1);
    return xrc != MPI_SUCCESS ? xrc : rc;
}

static int run_composed(tc_ctx *x, const side *s, const side *r, const int64_t *S, const int64_t *R,
                        const tc_node_call *nc)
{
    comp c = { .s = s, .r = r };
    tc_nc_comp *k = &c.k;
    int rc = tc_nc_comp_init(k, x, S, R), all = 0;
    if (rc == MPI_SUCCESS) rc = tc_nc_roots_fit(k, &all);
    if (rc != MPI_SUCCESS) return rc;
    if (!all) return tc_nc_native(k, nc);   /* some root's buffer passes MPI's int counts */
    int64_t mine = 0, theirs = 0;
    for (int B = 0; B < k->G; B++) mine += tc_nc_row_sum(k, S, k->ia, B), theirs += tc_nc_row_sum(k, R, k->ia, B);
    int n = k->n, G = k->G, *L = k->ia == 0 ? malloc((4 * (size_t)n + 4 * (size_t)G) * sizeof *L) : NULL;
    char *pk = NULL, *g = NULL, *o = NULL;
    if (k->ia == 0 && !L) return MPI_ERR_NO_MEM;
    if (L) root_layout(k, L, L + n, L + 2 * n, L + 2 * n + G, L + 2 * n + 2 * G, L + 2 * n + 3 * G,
                       L + 2 * n + 4 * G, L + 3 * n + 4 * G);
    int64_t out = 0, in = 0;
    for (int i = 0; L && i < n; i++) out += L[i], in += L[2 * n + 4 * G + i];
    rc = tc_nc_root_buffers(k, (size_t)(mine > theirs ? mine : theirs), (size_t)(out > in ? out : in), &pk, &g, &o);
    if (rc == MPI_SUCCESS) rc = compose(&c, L, pk, g, o, mine, theirs);
    free(L);
    return rc;
}

/* Counts that do not match inside my node (the user's error) are in the
 * node's rows: where my receive from a member is shorter than its send,
 * I report MPI_ERR_TRUNCATE, as the library's own MPI_Alltoallv would (the
 * schedules copy inside the node at most what both sides count). */
static int own_node_truncated(tc_ctx *x, const int64_t *S, const int64_t *R)
{
    int p = x->size, A = x->topo->node_of[x->rank], ia = x->topo->node_idx[x->rank];
    const int *m = tc_topo_node_members(x->topo, A);
    for (int i = 0; i < tc_topo_node_size(x->topo, A); i++)
        if (S[(size_t)i * p + x->rank] > R[(size_t)ia * p + m[i]]) return 1;
    return 0;
}

/* The composition or the schedule, on the byte sides and the node's rows. */
static int run_on_rows(tc_ctx *x, const tc_algo *al, const tc_args *a, const tc_node_call *c, side *s, side *r,
                       const int64_t *node_sc, const int64_t *node_rc)
{
    tc_vcounts v = { s->cnt, s->dsp, r->cnt, r->dsp };
    tc_args b = *a;
    b.v = &v;
    b.node_sc = node_sc;
    b.node_rc = node_rc;
    if (!(al->req & TC_REQ_COMPOSED)) return run_bytes(x, al, &b, s, r);
    if (!is_dt(al)) return run_composed(x, s, r, node_sc, node_rc, c);
    tc_nc_comp k;
    int rc = tc_nc_comp_init(&k, x, node_sc, node_rc);
    return rc == MPI_SUCCESS ? tc_node_counts_dt(&k, c) : rc;
}

int tc_node_counts_run(tc_ctx *x, const tc_algo *al, const tc_args *a, const tc_node_call *c)
{
    int p = x->size, n = tc_topo_node_size(x->topo, x->topo->node_of[x->rank]);
    int stage = !is_dt(al);   /* the zero-copy one reads the user's layout */
    int64_t *mem = malloc((8 + 2 * (size_t)n) * (size_t)p * sizeof *mem);
    if (!mem) return MPI_ERR_NO_MEM;
    side s = { .cnt = mem, .dsp = mem + p }, r = { .cnt = mem + 2 * p, .dsp = mem + 3 * p };
    int64_t *node_sc = mem + 8 * (size_t)p, *node_rc = node_sc + (size_t)n * p;
    const int *scnt = c->in_place ? c->rcounts : c->scounts, *sdsp = c->in_place ? c->rdispls : c->sdispls;
    int rc = side_make(&r, p, c->rbuf, c->rtype, c->rcounts, c->rdispls, stage);
    if (rc == MPI_SUCCESS) {
        if (c->in_place) s = r;   /* SEND is RECV (the schedule reads RECV) */
        else rc = side_make(&s, p, (void *)c->sbuf, c->stype, scnt, sdsp, stage);
    }
    if (rc == MPI_SUCCESS && s.stage && !c->in_place) rc = side_copy(&s, p, scnt, sdsp, 1, x->comm);
    if (rc == MPI_SUCCESS && c->in_place && r.stage) rc = side_copy(&r, p, c->rcounts, c->rdispls, 1, x->comm);
    if (rc == MPI_SUCCESS) rc = exchange(x, &s, &r, node_sc, node_rc);
    if (rc == MPI_SUCCESS) rc = run_on_rows(x, al, a, c, &s, &r, node_sc, node_rc);
    if (rc == MPI_SUCCESS && own_node_truncated(x, node_sc, node_rc)) rc = MPI_ERR_TRUNCATE;
    if (rc == MPI_SUCCESS && r.stage) rc = side_copy(&r, p, c->rcounts, c->rdispls, 0, x->comm);
    if (!c->in_place) free(s.stage);
    free(r.stage);
    free(mem);
    return rc;
}
