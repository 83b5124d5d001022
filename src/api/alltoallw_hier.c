/*
 * alltoallw's hierarchical entries (TC_REQ_NODE_COUNTS; the family of
 * src/algo/alltoallw/hierarchical.c) in the MPI layer: per-peer datatypes
 * made bytes, then the hierarchical alltoallv schedule in bytes with the
 * node's count rows (src/api/node_counts.c, tc_node_counts_run_bytes).
 *
 * A part is count j of datatype j at byte displacement j; its bytes are
 * count x type size (zero for a zero count or a zero-size datatype: both
 * ends agree, MPI's matching signatures).  A side (send or receive) whose
 * parts with bytes are each one run of bytes (size equal to the true
 * extent, elements adjacent; any lower bound, resized or not) is bound as
 * bytes where it lies, from its lowest part's first byte; any other side is
 * staged: its parts packed one after another into a byte buffer (send:
 * before the schedule; receive: unpacked after it).  In place the input is
 * the receive side (packed, or read in place by the schedule, which reads
 * every part before it writes any).
 *
 * Errors: MPI error codes to the caller (alltoallw.c raises them); a
 * datatype whose size an int cannot hold (MPI_Type_size's MPI_UNDEFINED)
 * cannot be counted in bytes here: MPI_ERR_TYPE.
 */
#include <stdint.h>
#include <stdlib.h>

#include "api/alltoallw.h"
#include "api/node_counts.h"

/* One side in bytes: where it is bound, its staging buffer (NULL: the
 * user's buffer), bytes and byte displacements per part. */
typedef struct wside {
    char *base;
    char *stage;
    int64_t *cnt, *dsp;   /* [p] */
} wside;

/* Part (n of t): its bytes, and whether it is one run of bytes (*first:
 * where the run starts, from the part's displacement). */
static int part_of(MPI_Datatype t, int n, int64_t *bytes, int *run, MPI_Aint *first)
{
    int size = 0;
    MPI_Aint lb, ext, tlb, text;
    *bytes = 0, *run = 1, *first = 0;
    if (n == 0) return MPI_SUCCESS;
    int rc = PMPI_Type_size(t, &size);
    if (rc != MPI_SUCCESS) return rc;
    if (size < 0) return MPI_ERR_TYPE;   /* MPI_UNDEFINED: beyond an int */
    if (size == 0) return MPI_SUCCESS;
    if ((rc = PMPI_Type_get_extent(t, &lb, &ext)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_true_extent(t, &tlb, &text)) != MPI_SUCCESS)
        return rc;
    *bytes = (int64_t)n * size;
    *run = (MPI_Aint)size == text && (n == 1 || ext == text);
    *first = tlb;
    return MPI_SUCCESS;
}

/* Side b of the call as bytes: bound where it lies, or a staging buffer
 * (filled by side_pack). */
static int side_make(wside *sd, const tc_call *c, int b)
{
    const int *cnt = c->vcnt[b], *dsp = c->vdispl[b];
    const MPI_Datatype *ty = c->vtype[b];
    char *buf = b == TC_BUF_SEND ? (char *)(uintptr_t)c->sbuf : (char *)c->rbuf;
    int p = c->size, runs = 1, any = 0;
    int64_t total = 0;
    MPI_Aint lo = 0;
    sd->stage = NULL;
    for (int j = 0; j < p; j++) {
        int run;
        MPI_Aint first;
        int rc = part_of(ty[j], cnt[j], &sd->cnt[j], &run, &first);
        if (rc != MPI_SUCCESS) return rc;
        sd->dsp[j] = 0;
        if (sd->cnt[j] == 0) continue;
        total += sd->cnt[j];
        if (!run) runs = 0;
        sd->dsp[j] = (int64_t)dsp[j] + first;   /* the run's first byte from buf */
        if (!any || sd->dsp[j] < lo) lo = (MPI_Aint)sd->dsp[j];
        any = 1;
    }
    if (runs) {   /* every part one run of bytes: bound where they lie */
        sd->base = any ? buf + lo : buf;
        for (int j = 0; j < p; j++)
            if (sd->cnt[j] > 0) sd->dsp[j] -= lo;
        return MPI_SUCCESS;
    }
    if (!(sd->stage = malloc((size_t)total + 1))) return MPI_ERR_NO_MEM;
    int64_t at = 0;
    for (int j = 0; j < p; j++) {
        sd->dsp[j] = at;
        at += sd->cnt[j];
    }
    sd->base = sd->stage;
    return MPI_SUCCESS;
}

/* Parts of side b between the user's buffer and the staging buffer
 * (to_stage: pack, else unpack). */
static int side_copy(const wside *sd, const tc_call *c, int b, int to_stage, MPI_Comm comm)
{
    const int *cnt = c->vcnt[b], *dsp = c->vdispl[b];
    const MPI_Datatype *ty = c->vtype[b];
    char *buf = b == TC_BUF_SEND ? (char *)(uintptr_t)c->sbuf : (char *)c->rbuf;
    int rc = MPI_SUCCESS;
    for (int j = 0; j < c->size && rc == MPI_SUCCESS; j++) {
        tc_bind t;
        if (sd->cnt[j] == 0) continue;
        if ((rc = tc_bind_type(&t, NULL, ty[j])) != MPI_SUCCESS) break;
        char *user = buf + dsp[j], *st = sd->stage + sd->dsp[j];
        rc = to_stage ? tc_pack_elems(user, cnt[j], &t, st, comm) : tc_unpack_elems(st, user, cnt[j], &t, comm);
    }
    return rc;
}

int tc_alltoallw_hier_run(tc_ctx *x, const tc_call *c, const tc_algo *al, const tc_args *a)
{
    int p = c->size;
    int64_t *mem = malloc(4 * (size_t)p * sizeof *mem + 1);
    if (!mem) return MPI_ERR_NO_MEM;
    wside s = { NULL, NULL, mem, mem + p }, r = { NULL, NULL, mem + 2 * p, mem + 3 * p };
    int rc = side_make(&r, c, TC_BUF_RECV);
    if (rc == MPI_SUCCESS && !c->in_place) rc = side_make(&s, c, TC_BUF_SEND);
    if (rc == MPI_SUCCESS && c->in_place) s = r;   /* the input is the receive side */
    if (rc == MPI_SUCCESS && s.stage) rc = side_copy(&s, c, c->in_place ? TC_BUF_RECV : TC_BUF_SEND, 1, x->comm);
    if (rc == MPI_SUCCESS) {
        tc_node_bytes nb = { s.base, r.base, s.cnt, s.dsp, r.cnt, r.dsp };
        rc = tc_node_counts_run_bytes(x, al, a, &nb);
    }
    if (rc == MPI_SUCCESS && r.stage) rc = side_copy(&r, c, TC_BUF_RECV, 0, x->comm);
    if (!c->in_place) free(s.stage);
    free(r.stage);
    free(mem);
    return rc;
}
