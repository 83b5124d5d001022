/*
 * The memory model of the one-node shared-memory allreduce (see
 * shm_model.h): Li, Hoefler, Snir, "NUMA-Aware Shared-Memory Collective
 * Communication for MPI" (2013, "Performance Model"), applied to our copy-in
 * schedules (processes, not threads: every rank first copies its vector
 * into the node-shared window) and to the single-copy ones (every rank reads
 * its peers' buffers with process_vm_readv, paying a system call per read).
 *
 * Notation: n bytes per rank, p ranks, s sockets, q ranks in the largest
 * socket, h[l] = flag round trip / 2 (one signal; also a barrier, in which
 * every rank raises its flags at once and waits for the last: one signal on
 * the critical path), C[l] copy and R[l]
 * reduction bandwidth, l = intra (0) or cross (1) socket; any step that
 * reads another socket's memory when s > 1 uses the cross values.  o is the
 * executor's fixed cost of one copy or reduction operation (not
 * calibrated: 0.02 us, override "op=").  Every rank works at once, which is
 * how the bandwidths are measured; the time of the call is that of its
 * slowest rank.
 *
 *   copy-in (every entry)   n / C0
 *   shm_tiled naive          copy-in + h + (n/p) ((q-1)/R0 + (p-q)/R1) + (p-1) o + h + n / Cx
 *   shm_tiled cyclic S       as naive with the busiest rank's share k S e
 *                            (k = ceil(ceil(n / S e) / p) tiles) and k (p-1) o
 *   shm_tiled hier S         copy-in + h0 + share_q (q-1)/R0 + k (q-1) o
 *                            + ceil(log2 s) (h1 + share_q / R1 + k o) + h + n / Cx
 *                            (share_q: the busiest socket rank's share of the
 *                            tiles dealt among q; one group: as cyclic)
 *   shm_reduce_bcast F, B    copy-in + per tree level (m nodes -> ceil(m/F)):
 *                            h + (min(F, m) - 1) (n/R + o), inside the groups
 *                            then across them; broadcast 1stage: h + n / Cx;
 *                            2stage (s > 1): h1 + n / C1 + h0 + n / C0
 *   shm_dissemination        copy-in + ceil(log2 p) rounds of h + n / C0 + n / R + 2 o
 *                            (a round is cross-socket once its blocks span
 *                            more than q ranks)
 *   shm_inline               n / C0 + h + per peer n / Cx + n / Rx + (n / 56) l + o
 *                            (x cross for the other sockets' ranks; l the
 *                            cost of one 56-byte line: its wait and copy,
 *                            not calibrated: 0.004 us)
 *   shm_tiled_naive_cma,     single copy (shm_tiled.c, copy=cma), no copy-in: three
 *   shm_tiled_cyclic_S_cma   barriers 3 h + step 2: the busiest rank's share
 *                            (as naive or cyclic above) read from every peer by
 *                            process_vm_readv and reduced,
 *                            share ((q-1)/M0 + (p-q)/M1) + share (p-1)/R0
 *                            + c (p-1) (m + 2 o), c the chunks of the own tiles
 *                            (k tiles of ceil(min(S, share/e) / 32768) chunks)
 *                            + step 3: every peer's result tiles read back,
 *                            (n/p) ((q-1)/M0 + (p-q)/M1)
 *                            + (p-1) ceil(k / 64) m + (p-1) k o
 *                            (M[l] the process_vm_readv bandwidth, m the
 *                            fixed cost of one such system call: one per
 *                            peer and chunk in step 2, one per peer and 64
 *                            tiles in step 3, where the executor batches;
 *                            the staged chunk is local, so reductions go at R0)
 *   shm_tiled_hier_S_cma     single copy (shm_tiled.c, copy=cma), several groups:
 *                            (3 + L) h1 (L = ceil(log2 s) tree levels, a
 *                            barrier each) + step 2 inside the socket:
 *                            share_q (q-1) (1/M0 + 1/R0) + c (q-1) (m + 2 o)
 *                            (share_q, k tiles: the busiest rank's of the
 *                            tiles dealt among q; c their chunks) + L levels
 *                            of share_q (1/M1 + 1/R0) + c (m + 2 o) + step 4:
 *                            n / M1 + q ceil(k / 64) m + q k o (a reader in
 *                            another socket than the result); one group: as
 *                            shm_tiled_cyclic_S_cma
 *   shm_rbF_Bs_cma           single copy (shm_reduce_bcast.c, copy=cma), no copy-in:
 *                            an inner node's n / C0 + o, then per tree level
 *                            (as shm_reduce_bcast): h + (min(F, m) - 1)
 *                            (n / Ml + n / R0 + c (m + 2 o)), c = ceil(elements
 *                            / 32768) the chunks (one system call each);
 *                            broadcast 1stage: 2 hx + n / Mx + m (the read, and
 *                            the readers' flags back to R); 2stage (s > 1):
 *                            h1 + n / M1 + 2 h0 + n / M0 + 2 m
 *   shm_dissemination_cma    ceil(log2 p) rounds of h + n / C0 + n / Ml + n / R0
 *                            + o + c (m + 2 o) (the upper rank of a pair copies
 *                            its partial, then reads the other's chunk by
 *                            chunk; l as shm_dissemination), + h at the end
 *                            (the last round's readers' flags)
 *   native                   piecewise linear through the measured times
 *
 * Every shm entry adds the fixed cost of a call (call_us): measured as one
 * 8 B shm_dissemination call less its formula (the checks, the schedule
 * lookup and the executor's set-up, which the formulas do not see).
 *
 * Cx is C1 when s > 1 (the result lives in one socket), else C0.
 */
#include "select/shm_model.h"

#include <errno.h>
#include <math.h>   /* INFINITY, isfinite: macros */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fp_env.h"

#define OP_US_DEFAULT 0.02
#define CMA_GBS_DEFAULT 15.0   /* process_vm_readv, development machine (docs/allreduce.md) */
#define CMA_CALL_DEFAULT 1.25

const int64_t tc_shm_model_native_bytes[TC_SHM_MODEL_NNATIVE] = { 8, 2048, 16384, 262144 };

/* The uncalibrated per-operation cost lives beside the table (not in the
 * struct the MPI layer agrees on): one value per process, set by "op=". */
static double op_us = OP_US_DEFAULT;

void tc_shm_model_defaults(tc_shm_model *m)
{
    /* AMD EPYC, 2 cores, one socket, Open MPI 4.1.4 (docs/allreduce.md) */
    *m = (tc_shm_model){ .flag_us = { 0.2, 0.2 }, .copy_gbs = { 10.0, 10.0 },
                         .reduce_gbs = { 5.0, 5.0 }, .call_us = 0.15, .native_us = { 0.36, 0.9, 6.0, 33.5 },
                         .cma_gbs = { CMA_GBS_DEFAULT, CMA_GBS_DEFAULT }, .cma_call_us = CMA_CALL_DEFAULT,
                         .cma_calibrated = 0, .one_socket = 1, .cost_ms = 0, .source = "defaults" };
}

/* ---- TOPOCOLL_SHM_MODEL --------------------------------------------------- */

typedef struct key_def {
    const char *key;
    size_t off[2];         /* the fields it sets (off[1] == off[0]: one) */
} key_def;

#define F(f) offsetof(tc_shm_model, f)
static const key_def keys[] = {
    { "flag", { F(flag_us[0]), F(flag_us[1]) } },
    { "copy", { F(copy_gbs[0]), F(copy_gbs[1]) } },
    { "reduce", { F(reduce_gbs[0]), F(reduce_gbs[1]) } },
    { "flag_x", { F(flag_us[1]), F(flag_us[1]) } },
    { "copy_x", { F(copy_gbs[1]), F(copy_gbs[1]) } },
    { "reduce_x", { F(reduce_gbs[1]), F(reduce_gbs[1]) } },
    { "call", { F(call_us), F(call_us) } },
    { "native8", { F(native_us[0]), F(native_us[0]) } },
    { "native2k", { F(native_us[1]), F(native_us[1]) } },
    { "native16k", { F(native_us[2]), F(native_us[2]) } },
    { "native256k", { F(native_us[3]), F(native_us[3]) } },
    { "cma", { F(cma_gbs[0]), F(cma_gbs[1]) } },
    { "cma_x", { F(cma_gbs[1]), F(cma_gbs[1]) } },
    { "cma_call", { F(cma_call_us), F(cma_call_us) } },
};
#undef F
#define NKEYS ((int)(sizeof keys / sizeof keys[0]))
#define KEY_LIST "flag, copy, reduce, flag_x, copy_x, reduce_x, call, native8, native2k, native16k, " \
                 "native256k, cma, cma_x, cma_call, op"

static int set_key(tc_shm_model *m, const char *key, size_t klen, double v)
{
    if (klen == 2 && strncmp(key, "op", 2) == 0) {
        op_us = v;
        return 0;
    }
    for (int i = 0; i < NKEYS; i++) {
        if (strlen(keys[i].key) != klen || strncmp(keys[i].key, key, klen) != 0) continue;
        for (int l = 0; l < 2; l++) *(double *)((char *)m + keys[i].off[l]) = v;
        if (klen > 2 && key[klen - 2] == '_') m->one_socket = 0;
        return 0;
    }
    return -1;
}

/* One "key=value" of length len at item. */
static int parse_item(const char *item, size_t len, tc_shm_model *m, char *err, size_t errlen)
{
    const char *eq = memchr(item, '=', len);
    if (len == 0) {
        snprintf(err, errlen, "TOPOCOLL_SHM_MODEL: empty entry (expected key=value, keys " KEY_LIST ")");
        return -1;
    }
    if (!eq) {
        snprintf(err, errlen, "TOPOCOLL_SHM_MODEL: '%.*s' has no '=' (expected key=value)", (int)len, item);
        return -1;
    }
    size_t klen = (size_t)(eq - item), vlen = len - klen - 1;
    char num[64];
    if (vlen == 0 || vlen >= sizeof num) {
        snprintf(err, errlen, "TOPOCOLL_SHM_MODEL: '%.*s' needs a positive number", (int)klen, item);
        return -1;
    }
    memcpy(num, eq + 1, vlen);
    num[vlen] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(num, &end);
    int zero_ok = (klen == 4 && strncmp(item, "call", 4) == 0) || (klen == 8 && strncmp(item, "cma_call", 8) == 0);
    if (errno || *end != '\0' || !isfinite(v) || v < 0 || (v == 0 && !zero_ok)) {
        snprintf(err, errlen, "TOPOCOLL_SHM_MODEL: '%.*s' needs a positive number, got '%s'", (int)klen, item,
                 num);
        return -1;
    }
    if (set_key(m, item, klen, v) != 0) {
        snprintf(err, errlen, "TOPOCOLL_SHM_MODEL: unknown key '%.*s' (keys: " KEY_LIST ")", (int)klen, item);
        return -1;
    }
    return 0;
}

int tc_shm_model_parse(const char *text, tc_shm_model *m, char *err, size_t errlen)
{
    tc_shm_model work = *m;
    double op_before = op_us;
    if (!text || !*text) {
        snprintf(err, errlen, "TOPOCOLL_SHM_MODEL is empty (expected key=value,...; keys " KEY_LIST ")");
        return -1;
    }
    for (const char *p = text;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (parse_item(p, len, &work, err, errlen) != 0) {
            op_us = op_before;
            return -1;
        }
        if (!comma) break;
        p = comma + 1;
    }
    work.source = "TOPOCOLL_SHM_MODEL";
    work.cost_ms = 0;
    *m = work;
    return 0;
}

void tc_shm_model_format(const tc_shm_model *m, char *buf, size_t len)
{
    int n = snprintf(buf, len,
                     "shm model (%s): flag round trip %.3f us intra, %.3f us cross; copy %.2f / %.2f GB/s; "
                     "reduce %.2f / %.2f GB/s; call %.3f us; native allreduce",
                     m->source, m->flag_us[0], m->flag_us[1], m->copy_gbs[0], m->copy_gbs[1], m->reduce_gbs[0],
                     m->reduce_gbs[1], m->call_us);
    for (int i = 0; i < TC_SHM_MODEL_NNATIVE && n > 0 && (size_t)n < len; i++)
        n += snprintf(buf + n, len - (size_t)n, " %lld B %.2f us%s", (long long)tc_shm_model_native_bytes[i],
                      m->native_us[i], i + 1 < TC_SHM_MODEL_NNATIVE ? "," : "");
    if (n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "; cma %.2f / %.2f GB/s, %.3f us per call%s", m->cma_gbs[0],
                      m->cma_gbs[1], m->cma_call_us, m->cma_calibrated ? "" : " (not measured)");
    if (n > 0 && (size_t)n < len && m->cma_calibrated && m->cma_cost_ms > 0)
        n += snprintf(buf + n, len - (size_t)n, " (measured in %.2f ms)", m->cma_cost_ms);
    if (n > 0 && (size_t)n < len && m->one_socket)
        n += snprintf(buf + n, len - (size_t)n, "; one socket: cross = intra");
    if (n > 0 && (size_t)n < len && m->cost_ms > 0)
        snprintf(buf + n, len - (size_t)n, "; calibrated in %.2f ms", m->cost_ms);
}

/* ---- the shape ------------------------------------------------------------ */

tc_shm_shape tc_shm_shape_of(const tc_args *a, const tc_topo *t, int64_t bytes)
{
    tc_shm_shape sh = { .p = a->size, .s = t->nsockets > 0 ? t->nsockets : 1, .q = 1, .bytes = bytes };
    for (int i = 0; i < t->nsockets; i++)
        if (tc_topo_sock_size(t, i) > sh.q) sh.q = tc_topo_sock_size(t, i);
    if (sh.s == 1) sh.q = sh.p;
    sh.groups = a->commutative ? sh.s : 1;
    sh.esize = a->scount > 0 ? bytes / a->scount : 1;
    if (sh.esize < 1) sh.esize = 1;
    return sh;
}

/* ---- the formulas --------------------------------------------------------- */

static double xfer(double bytes, double gbs) { return bytes / (gbs * 1e3); }   /* GB/s = 1e3 B/us */
static int cross(const tc_shm_shape *sh) { return sh->s > 1 ? TC_SHM_CROSS : TC_SHM_INTRA; }
static double half_rt(const tc_shm_model *m, int l) { return m->flag_us[l] / 2; }

static int ceil_log(int base, int m)
{
    int levels = 0;
    for (int64_t k = 1; k < m; k *= base) levels++;
    return levels;
}

static double copy_in(const tc_shm_model *m, const tc_shm_shape *sh)
{
    return xfer((double)sh->bytes, m->copy_gbs[TC_SHM_INTRA]);
}

/* Result copy-out and the two barriers around the reduction (tiled). */
static double tiled_ends(const tc_shm_model *m, const tc_shm_shape *sh)
{
    int x = cross(sh);
    return copy_in(m, sh) + 2 * half_rt(m, x) + xfer((double)sh->bytes, m->copy_gbs[x]);
}

static int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The busiest rank's tiles and bytes when tiles of S elements are dealt
 * over k ranks (no libm: the library does not link it). */
static void dealt(const tc_shm_shape *sh, int64_t S, int k, double *tiles, double *share)
{
    int64_t tb = S * sh->esize, mine = div_up(div_up(sh->bytes, tb), k);
    *tiles = (double)mine;
    *share = (double)(mine * tb < sh->bytes ? mine * tb : sh->bytes);
}

/* naive (S = 0) and cyclic: every rank reduces its share over all p. */
static double tiled_flat(const tc_shm_model *m, const tc_shm_shape *sh, int64_t S)
{
    double n = (double)sh->bytes, share = n / sh->p, tiles = 1;
    if (S > 0) dealt(sh, S, sh->p, &tiles, &share);
    int q = sh->s > 1 ? sh->q : sh->p;
    double red = share * ((q - 1) / (m->reduce_gbs[0] * 1e3) + (sh->p - q) / (m->reduce_gbs[1] * 1e3));
    return tiled_ends(m, sh) + red + tiles * (sh->p - 1) * op_us;
}

static double tiled_hier(const tc_shm_model *m, const tc_shm_shape *sh, int64_t S)
{
    if (sh->groups <= 1) return tiled_flat(m, sh, S);
    double tiles, share;
    dealt(sh, S, sh->q, &tiles, &share);
    double t = tiled_ends(m, sh) - half_rt(m, TC_SHM_CROSS) + half_rt(m, TC_SHM_INTRA);
    t += xfer(share * (sh->q - 1), m->reduce_gbs[0]) + tiles * (sh->q - 1) * op_us;
    int levels = ceil_log(2, sh->groups);
    t += levels * (half_rt(m, TC_SHM_CROSS) + xfer(share, m->reduce_gbs[1]) + tiles * op_us);
    return t;
}

/* One fan-in tree over m members at level l. */
static double tree(const tc_shm_model *mo, const tc_shm_shape *sh, int F, int m, int l)
{
    double t = 0;
    while (m > 1) {
        int k = m < F ? m : F;
        t += half_rt(mo, l) + (k - 1) * (xfer((double)sh->bytes, mo->reduce_gbs[l]) + op_us);
        m = (m + F - 1) / F;
    }
    return t;
}

static double reduce_bcast(const tc_shm_model *m, const tc_shm_shape *sh, int F, int two_stage)
{
    int x = cross(sh);
    double t = copy_in(m, sh) + op_us, n = (double)sh->bytes;
    if (sh->groups > 1) {
        t += tree(m, sh, F, sh->q, TC_SHM_INTRA) + tree(m, sh, F, sh->groups, TC_SHM_CROSS);
    } else {
        t += tree(m, sh, F, sh->p, x);
    }
    if (two_stage && sh->s > 1)
        t += half_rt(m, TC_SHM_CROSS) + xfer(n, m->copy_gbs[TC_SHM_CROSS]) + half_rt(m, TC_SHM_INTRA) +
             xfer(n, m->copy_gbs[TC_SHM_INTRA]) + 2 * op_us;
    else
        t += half_rt(m, x) + xfer(n, m->copy_gbs[x]) + op_us;
    return t;
}

static double dissemination(const tc_shm_model *m, const tc_shm_shape *sh)
{
    double t = copy_in(m, sh) + op_us, n = (double)sh->bytes;
    int rounds = ceil_log(2, sh->p);
    for (int k = 0; k < rounds; k++) {
        int l = sh->s > 1 && (2 << k) > sh->q ? TC_SHM_CROSS : TC_SHM_INTRA;
        t += half_rt(m, l) + xfer(n, m->copy_gbs[TC_SHM_INTRA]) + xfer(n, m->reduce_gbs[l]) + 2 * op_us;
    }
    return t;
}

/* shm_inline: every rank reads every vector, line by line, and reduces it. */
#define INLINE_LINE_US 0.004
#define INLINE_PAYLOAD 56

static double inline_reads(const tc_shm_model *m, const tc_shm_shape *sh)
{
    double n = (double)sh->bytes, t = copy_in(m, sh) + half_rt(m, cross(sh)) + op_us;
    int q = sh->s > 1 ? sh->q : sh->p;
    double per_line = (double)((sh->bytes + INLINE_PAYLOAD - 1) / INLINE_PAYLOAD) * INLINE_LINE_US;
    t += (q - 1) * (xfer(n, m->copy_gbs[TC_SHM_INTRA]) + xfer(n, m->reduce_gbs[TC_SHM_INTRA]) + per_line + op_us);
    t += (sh->p - q) * (xfer(n, m->copy_gbs[TC_SHM_CROSS]) + xfer(n, m->reduce_gbs[TC_SHM_INTRA]) + per_line + op_us);
    return t;
}

/* The single-copy tiled entries (shm_tiled.c, copy=cma): step 2 reads chunks of
 * CMA_CHUNK elements, one system call per peer and chunk; step 3 reads every
 * peer's result tiles, up to CMA_BATCH of them per system call. */
#define CMA_CHUNK ((int64_t)32768)
#define CMA_BATCH 64

/* Read share bytes from each of the other p - 1 ranks (q - 1 in the socket). */
static double cma_reads(const tc_shm_model *m, const tc_shm_shape *sh, double share)
{
    int q = sh->s > 1 ? sh->q : sh->p;
    return xfer(share * (q - 1), m->cma_gbs[TC_SHM_INTRA]) + xfer(share * (sh->p - q), m->cma_gbs[TC_SHM_CROSS]);
}

static double tiled_cma(const tc_shm_model *m, const tc_shm_shape *sh, int64_t S)
{
    int64_t elems = div_up(sh->bytes, sh->esize), tile = div_up(elems, sh->p);
    double n = (double)sh->bytes, share = n / sh->p, tiles = 1;
    if (S > 0) {
        dealt(sh, S, sh->p, &tiles, &share);
        tile = S;
    }
    int64_t share_el = S > 0 ? div_up((int64_t)share, sh->esize) : tile;   /* the busiest rank's elements */
    double chunks = tiles * (double)div_up(tile < share_el ? tile : share_el, CMA_CHUNK), peers = sh->p - 1;
    double t = 3 * half_rt(m, cross(sh));
    t += cma_reads(m, sh, share) + xfer(share * peers, m->reduce_gbs[TC_SHM_INTRA]) +
         chunks * peers * (m->cma_call_us + 2 * op_us);
    t += cma_reads(m, sh, n / sh->p) + peers * (double)div_up((int64_t)tiles, CMA_BATCH) * m->cma_call_us +
         peers * tiles * op_us;
    return t;
}

/* shm_tiled_hier_S_cma with several groups (shm_tiled.c, copy=cma): step 2 over
 * the socket's q ranks, the tree's levels across the sockets (the child
 * socket's partial of each own tile read and reduced), step 4 the whole
 * result read from the last socket's q members (the busiest reader is in
 * another socket); a barrier per step and per level.  One group: as cyclic. */
static double tiled_hier_cma(const tc_shm_model *m, const tc_shm_shape *sh, int64_t S)
{
    if (sh->groups <= 1) return tiled_cma(m, sh, S);
    double tiles, share, n = (double)sh->bytes, peers = sh->q - 1;
    dealt(sh, S, sh->q, &tiles, &share);
    int64_t share_el = div_up((int64_t)share, sh->esize);
    double chunks = tiles * (double)div_up(S < share_el ? S : share_el, CMA_CHUNK);
    double per_chunk = m->cma_call_us + 2 * op_us;
    int levels = ceil_log(2, sh->groups);
    double t = (3 + levels) * half_rt(m, TC_SHM_CROSS);
    t += xfer(share * peers, m->cma_gbs[TC_SHM_INTRA]) + xfer(share * peers, m->reduce_gbs[TC_SHM_INTRA]) +
         chunks * peers * per_chunk;
    t += levels * (xfer(share, m->cma_gbs[TC_SHM_CROSS]) + xfer(share, m->reduce_gbs[TC_SHM_INTRA]) +
                   chunks * per_chunk);
    t += xfer(n, m->cma_gbs[TC_SHM_CROSS]) + sh->q * (double)div_up((int64_t)tiles, CMA_BATCH) * m->cma_call_us +
         sh->q * tiles * op_us;
    return t;
}

/* Chunks of CMA_CHUNK elements in one vector: the system calls of a read
 * staged chunk by chunk. */
static double cma_chunks(const tc_shm_shape *sh)
{
    int64_t c = div_up(div_up(sh->bytes, sh->esize), CMA_CHUNK);
    return (double)(c > 0 ? c : 1);
}

/* One fan-in tree level by level over m members, the children's partials
 * read by process_vm_readv at level l (shm_reduce_bcast.c, copy=cma). */
static double tree_cma(const tc_shm_model *mo, const tc_shm_shape *sh, int F, int m, int l)
{
    double t = 0, n = (double)sh->bytes, c = cma_chunks(sh);
    while (m > 1) {
        int k = m < F ? m : F;
        t += half_rt(mo, l) +
             (k - 1) * (xfer(n, mo->cma_gbs[l]) + xfer(n, mo->reduce_gbs[TC_SHM_INTRA]) + c * (mo->cma_call_us + 2 * op_us));
        m = (m + F - 1) / F;
    }
    return t;
}

/* shm_rbF_Bs_cma: an inner node's copy of its input, the trees, and the
 * broadcast's reads of the result with their flags back. */
static double reduce_bcast_cma(const tc_shm_model *m, const tc_shm_shape *sh, int F, int two_stage)
{
    int x = cross(sh);
    double n = (double)sh->bytes, t = copy_in(m, sh) + op_us;
    if (sh->groups > 1) t += tree_cma(m, sh, F, sh->q, TC_SHM_INTRA) + tree_cma(m, sh, F, sh->groups, TC_SHM_CROSS);
    else t += tree_cma(m, sh, F, sh->p, x);
    if (two_stage && sh->s > 1)
        t += half_rt(m, TC_SHM_CROSS) + xfer(n, m->cma_gbs[TC_SHM_CROSS]) + 2 * half_rt(m, TC_SHM_INTRA) +
             xfer(n, m->cma_gbs[TC_SHM_INTRA]) + 2 * m->cma_call_us;
    else
        t += 2 * half_rt(m, x) + xfer(n, m->cma_gbs[x]) + m->cma_call_us;
    return t;
}

/* shm_dissemination_cma: per round, the upper rank of a pair (the slower)
 * copies its partial and reads the other's chunk by chunk; the last round's
 * readers' flags at the end. */
static double dissemination_cma(const tc_shm_model *m, const tc_shm_shape *sh)
{
    double t = 0, n = (double)sh->bytes, c = cma_chunks(sh);
    int rounds = ceil_log(2, sh->p), l = TC_SHM_INTRA;
    for (int k = 0; k < rounds; k++) {
        l = sh->s > 1 && (2 << k) > sh->q ? TC_SHM_CROSS : TC_SHM_INTRA;
        t += half_rt(m, l) + xfer(n, m->copy_gbs[TC_SHM_INTRA]) + xfer(n, m->cma_gbs[l]) +
             xfer(n, m->reduce_gbs[TC_SHM_INTRA]) + op_us + c * (m->cma_call_us + 2 * op_us);
    }
    return t + half_rt(m, l);
}

/* Tile sizes by their alias suffix (shm_tiled.c: 256, 2k, 16k, 128k elements). */
static int64_t tile_of(const char *suffix)
{
    static const struct { const char *s; int64_t v; } t[] = {
        { "256", 256 }, { "2k", 2048 }, { "16k", 16384 }, { "128k", 131072 } };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(suffix, t[i].s) == 0) return t[i].v;
    return -1;
}

static double formula(const tc_shm_model *m, const char *name, const tc_shm_shape *sh)
{
    int F = 0;
    char st = 0;
    size_t len = strlen(name);
    if (strcmp(name, "shm_tiled_naive_cma") == 0) return tiled_cma(m, sh, 0);
    size_t pre = strncmp(name, "shm_tiled_cyclic_", 17) == 0 ? 17 : strncmp(name, "shm_tiled_hier_", 15) == 0 ? 15 : 0;
    if (pre && len > pre + 4 && strcmp(name + len - 4, "_cma") == 0) {
        char tile[8];
        if (len - pre - 4 >= sizeof tile) return -1;
        memcpy(tile, name + pre, len - pre - 4);
        tile[len - pre - 4] = '\0';
        if (tile_of(tile) <= 0) return -1;
        return pre == 17 ? tiled_cma(m, sh, tile_of(tile)) : tiled_hier_cma(m, sh, tile_of(tile));
    }
    if (strcmp(name, "shm_tiled_naive") == 0) return tiled_flat(m, sh, 0);
    if (strcmp(name, "shm_dissemination") == 0) return dissemination(m, sh);
    if (strcmp(name, "shm_dissemination_cma") == 0) return dissemination_cma(m, sh);
    int used = 0;
    if (sscanf(name, "shm_rb%d_%cs_cma%n", &F, &st, &used) == 2 && used == (int)len && F >= 2 &&
        (st == '1' || st == '2'))
        return reduce_bcast_cma(m, sh, F, st == '2');
    if (strcmp(name, "shm_inline") == 0) return inline_reads(m, sh);
    if (strncmp(name, "shm_tiled_cyclic_", 17) == 0 && tile_of(name + 17) > 0)
        return tiled_flat(m, sh, tile_of(name + 17));
    if (strncmp(name, "shm_tiled_hier_", 15) == 0 && tile_of(name + 15) > 0)
        return tiled_hier(m, sh, tile_of(name + 15));
    used = 0;
    if (sscanf(name, "shm_rb%d_%cs%n", &F, &st, &used) == 2 && used == (int)len && F >= 2 && (st == '1' || st == '2'))
        return reduce_bcast(m, sh, F, st == '2');
    return -1;
}

double tc_shm_model_predict(const tc_shm_model *m, const char *name, const tc_shm_shape *sh)
{
    double us = formula(m, name, sh);
    return us < 0 ? us : us + m->call_us;
}

double tc_shm_model_native(const tc_shm_model *m, int64_t bytes)
{
    const int64_t *x = tc_shm_model_native_bytes;
    const double *y = m->native_us;
    int last = TC_SHM_MODEL_NNATIVE - 1;
    if (bytes <= x[0]) return y[0];
    int i = 0;
    while (i < last - 1 && bytes > x[i + 1]) i++;
    double slope = (y[i + 1] - y[i]) / (double)(x[i + 1] - x[i]);
    if (slope < 0) slope = 0;
    return y[i] + slope * (double)(bytes - x[i]);
}

/* ---- the choice ----------------------------------------------------------- */

/* The entries the model knows, in the order ties are broken. */
static const char *const entries[] = {
    "shm_tiled_naive", "shm_rb2_1s", "shm_rb4_1s", "shm_rb8_1s", "shm_rb2_2s", "shm_rb4_2s", "shm_rb8_2s",
    "shm_tiled_cyclic_256", "shm_tiled_cyclic_2k", "shm_tiled_cyclic_16k", "shm_tiled_cyclic_128k",
    "shm_tiled_hier_256", "shm_tiled_hier_2k", "shm_tiled_hier_16k", "shm_tiled_hier_128k",
    "shm_dissemination", "shm_inline",
    /* single copy: they decline where cross-memory attach is unavailable */
    "shm_tiled_naive_cma", "shm_tiled_cyclic_256_cma", "shm_tiled_cyclic_2k_cma", "shm_tiled_cyclic_16k_cma",
    "shm_tiled_cyclic_128k_cma", "shm_rb2_1s_cma", "shm_rb4_1s_cma", "shm_rb8_1s_cma", "shm_rb2_2s_cma",
    "shm_rb4_2s_cma", "shm_rb8_2s_cma", "shm_dissemination_cma", "shm_tiled_hier_256_cma",
    "shm_tiled_hier_2k_cma", "shm_tiled_hier_16k_cma", "shm_tiled_hier_128k_cma",
};
#define NENTRIES ((int)(sizeof entries / sizeof entries[0]))

int tc_shm_model_applies(const tc_args *a, const tc_topo *t)
{
    return a->coll == TOPOCOLL_ALLREDUCE && a->size > 1 && t->nnodes == 1 && a->node_shm;
}

typedef struct best {
    const tc_algo *algo;
    double us;
} best;

/* The best accepted entry overall and the best reduce-broadcast tree. */
static void find_best(const tc_shm_model *m, const tc_args *a, const tc_topo *t, const tc_shm_shape *sh,
                      best *all, best *tree_best)
{
    all->algo = tree_best->algo = NULL;
    all->us = tree_best->us = INFINITY;
    for (int i = 0; i < NENTRIES; i++) {
        const tc_algo *al = tc_catalog_find(TOPOCOLL_ALLREDUCE, entries[i]);
        const char *reason = NULL;
        if (!al || !tc_algo_accepts(al, a, t, &reason)) continue;
        double us = tc_shm_model_predict(m, entries[i], sh);
        if (us < 0) continue;
        if (us < all->us) *all = (best){ al, us };
        if (strncmp(entries[i], "shm_rb", 6) == 0 && us < tree_best->us) *tree_best = (best){ al, us };
    }
}

/* The formulas run in a caller's call (the full path of a one-node
 * allreduce): under tc_fp_hold (core/fp_env.h). */
const tc_algo *tc_shm_model_select(const tc_shm_model *m, const tc_args *a, const tc_topo *t, int64_t bytes,
                                   char *why, size_t whylen)
{
    tc_fp_saved env;
    tc_fp_hold(&env);
    tc_shm_shape sh = tc_shm_shape_of(a, t, bytes);
    best all, tb;
    find_best(m, a, t, &sh, &all, &tb);
    double native_us = tc_shm_model_native(m, bytes);
    const tc_algo *native = tc_catalog_find(TOPOCOLL_ALLREDUCE, "native");
    const tc_algo *pick = all.algo && all.us < native_us ? all.algo : native;
    if (why) {
        if (all.algo)
            snprintf(why, whylen, "model (%s): %s predicted %.2f us (best %s %.2f us, tree %s %.2f us, "
                     "native %.2f us)", m->source, pick->name, pick == native ? native_us : all.us,
                     all.algo->name, all.us, tb.algo ? tb.algo->name : "-", tb.algo ? tb.us : 0.0, native_us);
        else
            snprintf(why, whylen, "model (%s): no shared-memory entry accepts the call; native", m->source);
    }
    tc_fp_restore(&env);
    return pick;
}

int64_t tc_shm_model_crossover(const tc_shm_model *m, const tc_args *a, const tc_topo *t, int64_t lo,
                               int64_t hi)
{
    const tc_algo *native = tc_catalog_find(TOPOCOLL_ALLREDUCE, "native");
    tc_args b = *a;
    for (int64_t n = lo; n <= hi; n *= 2) {
        b.scount = b.rcount = n / 8 > 0 ? n / 8 : 1;   /* doubles */
        if (tc_shm_model_select(m, &b, t, n, NULL, 0) != native) return n;
    }
    return -1;
}
