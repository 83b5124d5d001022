/*
 * Running a gatherv or scatterv entry with a schedule (desc vroot, see
 * src/algo/rootedv.h for the layout the schedules read).
 *
 * Counts.  Only the root knows the vector.  An entry that reads it at every
 * rank (TC_REQ_ROOT_COUNTS) gets it first by one allreduce (max) of p + 2
 * numbers: the root's counts in bytes (0 elsewhere), the largest and the
 * negated smallest element size of the ranks' block types (the root's
 * vector type, the others' one-block type).  Where the sizes differ, a
 * rank's scratch could not count another rank's block in its elements: every
 * rank sees the same sizes and runs "linear" instead, which needs no counts
 * away from the root.  Otherwise every rank counts the blocks in elements of
 * that one size, packed in rank order.
 *
 * Buffers.  The root's vector buffer is the user's where its displacements
 * are the packed layout (every non-empty block at the prefix sum of the
 * counts before it), else a staging buffer in that layout: filled block by
 * block before a scatterv, emptied block by block after a gatherv.  In
 * place, the root's own block is the user's block at its displacement.
 */
#include <stdlib.h>

#include "algo/rootedv.h"
#include "api/call.h"

static int vec_buf(const tc_call *c) { return c->d->vroot == TC_VROOT_GATHER ? TC_BUF_RECV : TC_BUF_SEND; }

/* The root's counts at every rank, packed (see above): cnt and dsp [p];
 * *same 0 when the element sizes differ. */
static int spread_counts(tc_ctx *x, const tc_call *c, int64_t *cnt, int64_t *dsp, int *same)
{
    int p = c->size, vec = vec_buf(c), root = c->rank == c->root;
    int64_t *in = malloc(2 * ((size_t)p + 2) * sizeof *in), *out = in + p + 2, at = 0;
    if (!in) return MPI_ERR_NO_MEM;
    int64_t esz = root ? c->tsize[vec] : c->tsize[1 - vec];
    for (int j = 0; j < p; j++) in[j] = root && c->v64 ? c->v64[j] * c->tsize[vec] : 0;
    in[p] = esz;
    in[p + 1] = -esz;
    int rc = PMPI_Allreduce(in, out, p + 2, MPI_INT64_T, MPI_MAX, x->comm);
    *same = rc == MPI_SUCCESS && out[p] == -out[p + 1] && out[p] > 0;
    for (int j = 0; j < p; j++) {
        cnt[j] = *same ? out[j] / out[p] : 0;
        dsp[j] = at;
        at += cnt[j];
    }
    free(in);
    return rc;
}

/* Copies block j between the user's layout and the staging (to_user: from
 * the staging). */
static int stage_block(const tc_call *c, const tc_bind *st, const tc_bind *user, int j, int to_user)
{
    int vec = vec_buf(c), n = c->vcnt[vec][j];
    if (n <= 0) return MPI_SUCCESS;
    char *s = st->base + (MPI_Aint)c->v64[c->size + j] * st->extent;
    char *u = user->base + (MPI_Aint)c->vdispl[vec][j] * user->extent;
    MPI_Datatype t = tc_call_type(c, vec);
    return PMPI_Sendrecv(to_user ? s : u, n, t, 0, 0, to_user ? u : s, n, t, 0, 0, MPI_COMM_SELF,
                         MPI_STATUS_IGNORE);
}

static int stage_all(const tc_call *c, const tc_bind *st, const tc_bind *user, int to_user)
{
    int rc = MPI_SUCCESS;
    for (int j = 0; j < c->size && rc == MPI_SUCCESS; j++)
        if (!(to_user && c->in_place && j == c->rank)) rc = stage_block(c, st, user, j, to_user);
    return rc;
}

/* The bindings: the vector buffer (the user's, the staging at *mem, or at
 * other ranks typed like their block) and the own block (in place: the
 * user's block of the vector). */
static int bind(const tc_call *c, tc_bind b[TC_NBUF], tc_bind *user, char **mem)
{
    int vec = vec_buf(c), own = 1 - vec, rc;
    *mem = NULL;
    if (c->rank != c->root) {
        if ((rc = tc_bind_type(&b[own], (void *)tc_call_buf(c, own), tc_call_type(c, own))) != MPI_SUCCESS)
            return rc;
        b[vec] = b[own];
        b[vec].base = NULL;
        return MPI_SUCCESS;
    }
    if ((rc = tc_bind_type(user, (void *)tc_call_buf(c, vec), tc_call_type(c, vec))) != MPI_SUCCESS) return rc;
    b[vec] = *user;
    if (c->staged) {
        int64_t total = c->v64[2 * c->size - 1] + c->v64[c->size - 1];
        if (user->extent <= 0) return MPI_ERR_TYPE;   /* no staging layout for it */
        size_t bytes = (size_t)((total - 1) * user->extent + user->true_extent);
        if (!(*mem = malloc(bytes + 1))) return MPI_ERR_NO_MEM;
        b[vec].base = *mem - user->true_lb;
    }
    if (c->in_place) {
        b[own] = *user;
        b[own].base = user->base + (MPI_Aint)c->vdispl[vec][c->rank] * user->extent;
        return MPI_SUCCESS;
    }
    return tc_bind_type(&b[own], (void *)tc_call_buf(c, own), tc_call_type(c, own));
}

static int run_with(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a)
{
    tc_bind b[TC_NBUF], user;
    char *mem = NULL;
    tc_sched s;
    int rc, gather = c->d->vroot == TC_VROOT_GATHER;
    tc_sched_init(&s);
    rc = tc_algo_generate(al, &s, a, x->topo);
    if (rc == 0) rc = tc_sched_finish(&s);
    if (rc) {
        tc_sched_free(&s);
        return MPI_ERR_NO_MEM;
    }
    rc = bind(c, b, &user, &mem);
    if (rc == MPI_SUCCESS && mem && !gather) rc = stage_all(c, &b[TC_BUF_SEND], &user, 0);
    if (rc == MPI_SUCCESS) {
        tc_exec_env env = tc_ctx_env(x, MPI_OP_NULL);
        rc = tc_exec(&s, b, &env);
    }
    if (rc == MPI_SUCCESS && mem && gather) rc = stage_all(c, &b[TC_BUF_RECV], &user, 1);
    free(mem);
    tc_sched_free(&s);
    return rc;
}

int tc_run_rootedv(tc_ctx *x, const tc_algo *al, const tc_call *c, const tc_args *a)
{
    if (!(al->req & TC_REQ_ROOT_COUNTS)) return run_with(x, al, c, a);
    int p = c->size, same = 0;
    int64_t *mem = malloc(2 * (size_t)p * sizeof *mem + 1);
    if (!mem) return MPI_ERR_NO_MEM;
    int rc = spread_counts(x, c, mem, mem + p, &same);
    if (rc == MPI_SUCCESS) {
        tc_args b = *a;
        tc_vcounts v = { mem, mem + p, NULL, NULL };
        if (c->d->vroot == TC_VROOT_GATHER) v = (tc_vcounts){ NULL, NULL, mem, mem + p };
        b.v = &v;
        const tc_algo *linear = tc_catalog_find(c->d->coll, "linear");
        rc = same ? run_with(x, al, c, &b) : linear ? run_with(x, linear, c, a) : MPI_ERR_INTERN;
    }
    free(mem);
    return rc;
}
