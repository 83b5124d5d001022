/* The collective descriptors against hand-written expectations: for every
 * collective, communicator size, root, rank and MPI_IN_PLACE choice, which
 * arguments are significant, where MPI_IN_PLACE is allowed, the normalised
 * counts, the buffer sizes and the aliasing.  The expectations are MPI's
 * rules written out per collective, the slow way.  Ends with "N passed,
 * M failed". */
#include <stdio.h>
#include <string.h>

#include "coll/desc.h"

static long passed, failed;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (cond) passed++;                                \
        else {                                             \
            failed++;                                      \
            if (failed < 20) { printf("FAIL %s:%d: ", __FILE__, __LINE__); \
                printf(__VA_ARGS__); printf("\n"); }       \
        }                                                  \
    } while (0)

enum { AG = TOPOCOLL_ALLGATHER, BC = TOPOCOLL_BCAST, SC = TOPOCOLL_SCATTER, GA = TOPOCOLL_GATHER,
       RE = TOPOCOLL_REDUCE, RSB = TOPOCOLL_REDUCE_SCATTER_BLOCK };
enum { AA = TOPOCOLL_ALLTOALL, AAV = TOPOCOLL_ALLTOALLV, AAW = TOPOCOLL_ALLTOALLW };
enum { AR = TOPOCOLL_ALLREDUCE };
enum { AGV = TOPOCOLL_ALLGATHERV };
enum { BA = TOPOCOLL_BARRIER };
enum { RS = TOPOCOLL_REDUCE_SCATTER };
enum { GAV = TOPOCOLL_GATHERV, SCV = TOPOCOLL_SCATTERV };
enum { SCN = TOPOCOLL_SCAN, EXS = TOPOCOLL_EXSCAN };

/* What one rank sees: user counts in, everything the descriptor says out. */
typedef struct expect {
    int ip_allowed, use_send, use_recv;
    int64_t scount, rcount;              /* normalised */
    int64_t send, recv;                  /* elements */
    int alias_from, alias_to;
    int64_t alias_off;
} expect;

/* The user's counts: SEND s, RECV r elements (one-count collectives: r twice),
 * RECV elements of 4 bytes. */
static expect expected(int coll, int p, int root, int rank, int ip, int64_t s, int64_t r)
{
    expect e;
    int me = rank == root;
    memset(&e, 0, sizeof e);
    e.alias_from = e.alias_to = -1;
    switch (coll) {
    case BA:   /* no buffers */
        break;
    case AGV:  /* without per-peer vectors (tc_args.v NULL): as allgather */
    case AG:
        e.ip_allowed = 1, e.use_send = !ip, e.use_recv = 1;
        e.scount = ip ? r : s, e.rcount = r, e.send = e.scount, e.recv = p * r;
        if (ip) e.send = r, e.alias_from = TC_BUF_SEND, e.alias_to = TC_BUF_RECV, e.alias_off = rank * r;
        break;
    case BC:
        e.use_recv = 1, e.rcount = 4 * r, e.recv = 4 * r;
        break;
    case SCV:  /* without per-rank vectors (tc_args.v NULL): as scatter */
    case SC:
        e.ip_allowed = me, e.use_send = me, e.use_recv = !(me && ip);
        e.scount = me ? s : r, e.rcount = me && ip ? s : r;
        e.send = me ? p * s : 0, e.recv = e.rcount;
        if (me && ip) e.alias_from = TC_BUF_RECV, e.alias_to = TC_BUF_SEND, e.alias_off = root * s;
        break;
    case GAV:  /* without per-rank vectors (tc_args.v NULL): as gather */
    case GA:
        e.ip_allowed = me, e.use_send = !(me && ip), e.use_recv = me;
        e.scount = me && ip ? r : s, e.rcount = me ? r : s;
        e.send = e.scount, e.recv = me ? p * r : 0;
        if (me && ip) e.alias_from = TC_BUF_SEND, e.alias_to = TC_BUF_RECV, e.alias_off = root * r;
        break;
    case RE:
        e.ip_allowed = me, e.use_send = !(me && ip), e.use_recv = me;
        e.scount = e.rcount = r, e.send = r, e.recv = me ? r : 0;
        if (me && ip) e.alias_from = TC_BUF_SEND, e.alias_to = TC_BUF_RECV, e.alias_off = 0;
        break;
    case RS:   /* without per-rank counts (tc_args.v NULL): as reduce_scatter_block */
    case RSB:
        e.ip_allowed = 1, e.use_send = !ip, e.use_recv = 1;
        e.scount = p * r, e.rcount = r, e.send = p * r, e.recv = ip ? p * r : r;
        if (ip) e.alias_from = TC_BUF_SEND, e.alias_to = TC_BUF_RECV, e.alias_off = 0;
        break;
    case AAV:  /* without per-peer vectors (tc_args.v NULL): as alltoall */
    case AAW:  /* the same, in blocks */
    case AA:   /* p blocks each way; in place, SEND is the whole of RECV */
        e.ip_allowed = 1, e.use_send = !ip, e.use_recv = 1;
        e.scount = ip ? r : s, e.rcount = r, e.send = p * e.scount, e.recv = p * r;
        if (ip) e.alias_from = TC_BUF_SEND, e.alias_to = TC_BUF_RECV, e.alias_off = 0;
        break;
    case SCN:   /* scan and exscan: allreduce's arguments */
    case EXS:
    case AR:
        e.ip_allowed = 1, e.use_send = !ip, e.use_recv = 1;
        e.scount = e.rcount = r, e.send = r, e.recv = r;
        if (ip) e.alias_from = TC_BUF_SEND, e.alias_to = TC_BUF_RECV, e.alias_off = 0;
        break;
    }
    return e;
}

static void one_rank(const tc_coll_desc *d, int p, int root, int rank, int ip_asked)
{
    int64_t s = 3, r = d->one_count ? 5 : 7;
    int allowed = tc_coll_in_place_allowed(d, rank, root), ip = ip_asked && allowed;
    expect e = expected((int)d->coll, p, root, rank, ip, d->one_count ? r : s, r);
    const char *n = d->name;
    CHECK(allowed == e.ip_allowed, "%s p=%d root=%d rank=%d: in place allowed %d", n, p, root, rank, allowed);
    CHECK(tc_coll_significant(d, TC_BUF_SEND, rank, root, ip) == e.use_send,
          "%s p=%d root=%d rank=%d ip=%d: send significance", n, p, root, rank, ip);
    CHECK(tc_coll_significant(d, TC_BUF_RECV, rank, root, ip) == e.use_recv,
          "%s p=%d root=%d rank=%d ip=%d: recv significance", n, p, root, rank, ip);
    tc_args a;
    memset(&a, 0, sizeof a);
    a.coll = d->coll, a.rank = rank, a.size = p, a.root = root, a.in_place = ip;
    tc_coll_normalize(d, &a, d->one_count ? r : s, r, 4);
    CHECK(a.scount == e.scount && a.rcount == e.rcount, "%s p=%d root=%d rank=%d ip=%d: counts %lld %lld, "
          "expected %lld %lld", n, p, root, rank, ip, (long long)a.scount, (long long)a.rcount,
          (long long)e.scount, (long long)e.rcount);
    /* the verifier's view: in_place asked everywhere, applied where allowed */
    a.in_place = ip_asked;
    tc_coll_layout l = tc_coll_layout_of(d, &a, rank);
    CHECK(l.elems[TC_BUF_SEND] == e.send && l.elems[TC_BUF_RECV] == e.recv,
          "%s p=%d root=%d rank=%d ip=%d: elems %lld %lld, expected %lld %lld", n, p, root, rank, ip,
          (long long)l.elems[0], (long long)l.elems[1], (long long)e.send, (long long)e.recv);
    CHECK(l.alias_from == e.alias_from && l.alias_to == e.alias_to && l.alias_off == e.alias_off,
          "%s p=%d root=%d rank=%d ip=%d: alias %d->%d @%lld", n, p, root, rank, ip, l.alias_from,
          l.alias_to, (long long)l.alias_off);
}

/* Flags and the result description, one line per collective. */
static void rows(void)
{
    static const struct {
        int coll; const char *name, *env; int rooted, red, bytes, one, sig, tmp;
        int in_buf, in_at, in_p, in_first, res_at, res_p, res_ids;
    } want[] = {
        { AG, "allgather", "TOPOCOLL_ALLGATHER", 0, 0, 0, 0, 1, TC_BUF_RECV,
          TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_RANK, TC_AT_ALL, 1, TC_IDS_SAME },
        { BC, "bcast", "TOPOCOLL_BCAST", 1, 0, 1, 1, 0, TC_BUF_RECV,
          TC_BUF_RECV, TC_AT_ROOT, 0, TC_INDEX_ZERO, TC_AT_ALL, 0, TC_IDS_SAME },
        { SC, "scatter", "TOPOCOLL_SCATTER", 1, 0, 0, 0, 1, TC_BUF_RECV,
          TC_BUF_SEND, TC_AT_ROOT, 1, TC_INDEX_ZERO, TC_AT_ALL, 0, TC_IDS_RANK_BLOCK },
        { GA, "gather", "TOPOCOLL_GATHER", 1, 0, 0, 0, 1, TC_BUF_SEND,
          TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_RANK, TC_AT_ROOT, 1, TC_IDS_SAME },
        { RE, "reduce", "TOPOCOLL_REDUCE", 1, 1, 0, 1, 0, TC_BUF_SEND,
          TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_ZERO, TC_AT_ROOT, 0, TC_IDS_SAME },
        { RSB, "reduce_scatter_block", "TOPOCOLL_REDUCE_SCATTER_BLOCK", 0, 1, 0, 1, 0, TC_BUF_SEND,
          TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_ZERO, TC_AT_ALL, 0, TC_IDS_RANK_BLOCK },
        { AA, "alltoall", "TOPOCOLL_ALLTOALL", 0, 0, 0, 0, 1, TC_BUF_RECV,
          TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_RANK, TC_AT_ALL, 1, TC_IDS_TRANSPOSED },
        { AAV, "alltoallv", "TOPOCOLL_ALLTOALLV", 0, 0, 0, 0, 0, TC_BUF_RECV,
          TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_RANK, TC_AT_ALL, 1, TC_IDS_TRANSPOSED },
        { AR, "allreduce", "TOPOCOLL_ALLREDUCE", 0, 1, 0, 1, 0, TC_BUF_SEND,
          TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_ZERO, TC_AT_ALL, 0, TC_IDS_SAME },
        { AGV, "allgatherv", "TOPOCOLL_ALLGATHERV", 0, 0, 0, 0, 0, TC_BUF_RECV,
          TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_RANK, TC_AT_ALL, 1, TC_IDS_SAME },
        { BA, "barrier", "TOPOCOLL_BARRIER", 0, 0, 0, 0, 0, TC_BUF_RECV,
          TC_BUF_SEND, TC_AT_NONE, 0, TC_INDEX_ZERO, TC_AT_NONE, 0, TC_IDS_SAME },
        { RS, "reduce_scatter", "TOPOCOLL_REDUCE_SCATTER", 0, 1, 0, 1, 0, TC_BUF_SEND,
          TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_ZERO, TC_AT_ALL, 0, TC_IDS_RANK_BLOCK },
        { GAV, "gatherv", "TOPOCOLL_GATHERV", 1, 0, 0, 0, 0, TC_BUF_SEND,
          TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_RANK, TC_AT_ROOT, 1, TC_IDS_SAME },
        { SCV, "scatterv", "TOPOCOLL_SCATTERV", 1, 0, 0, 0, 0, TC_BUF_RECV,
          TC_BUF_SEND, TC_AT_ROOT, 1, TC_INDEX_ZERO, TC_AT_ALL, 0, TC_IDS_RANK_BLOCK },
        { SCN, "scan", "TOPOCOLL_SCAN", 0, 1, 0, 1, 0, TC_BUF_SEND,
          TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_ZERO, TC_AT_ALL, 0, TC_IDS_SAME },
        { EXS, "exscan", "TOPOCOLL_EXSCAN", 0, 1, 0, 1, 0, TC_BUF_SEND,
          TC_BUF_SEND, TC_AT_ALL, 0, TC_INDEX_ZERO, TC_AT_ALL, 0, TC_IDS_SAME },
        { AAW, "alltoallw", "TOPOCOLL_ALLTOALLW", 0, 0, 0, 0, 0, TC_BUF_RECV,
          TC_BUF_SEND, TC_AT_ALL, 1, TC_INDEX_RANK, TC_AT_ALL, 1, TC_IDS_TRANSPOSED },
    };
    CHECK(sizeof want / sizeof want[0] == TOPOCOLL_NCOLL, "a row per collective");
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const tc_coll_desc *d = tc_coll_desc_of((topocoll_coll)want[i].coll);
        CHECK(d && d->coll == (topocoll_coll)want[i].coll, "row %zu", i);
        if (!d) continue;
        CHECK(strcmp(d->name, want[i].name) == 0 && strcmp(d->env, want[i].env) == 0, "%s names", d->name);
        CHECK(tc_coll_from_name(want[i].name) == want[i].coll, "%s from name", d->name);
        CHECK(d->rooted == want[i].rooted && d->reduction == want[i].red && d->counts_bytes == want[i].bytes &&
              d->one_count == want[i].one && d->same_signature == want[i].sig, "%s flags", d->name);
        CHECK(d->tmp_like == want[i].tmp, "%s tmp_like", d->name);
        CHECK(d->input.buf == want[i].in_buf && (int)d->input.at == want[i].in_at &&
              d->input.blocks_p == want[i].in_p && (int)d->input.first == want[i].in_first,
              "%s input", d->name);
        CHECK((int)d->result.at == want[i].res_at && d->result.blocks_p == want[i].res_p &&
              (int)d->result.ids == want[i].res_ids, "%s result", d->name);
        int elementwise = want[i].coll == TOPOCOLL_BCAST || want[i].coll == TOPOCOLL_REDUCE ||
                          want[i].coll == TOPOCOLL_ALLREDUCE || want[i].coll == SCN || want[i].coll == EXS;
        CHECK(tc_coll_elementwise(d) == elementwise, "%s element-wise %d", d->name, elementwise);
    }
    /* the prefix reductions: what a result unit of rank 3 of 8 combines */
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        const tc_coll_desc *d = tc_coll_desc_of((topocoll_coll)c);
        int lo, hi, want = c == SCN ? 4 : c == EXS ? 3 : 8;
        tc_coll_contributors(d, 3, 8, &lo, &hi);
        CHECK(lo == 0 && hi == want, "%s: contributors [%d,%d), expected [0,%d)", d->name, lo, hi, want);
        CHECK((d->prefix != TC_PREFIX_NONE) == (c == SCN || c == EXS), "%s prefix", d->name);
    }
    CHECK(tc_coll_desc_of(TOPOCOLL_NCOLL) == NULL && tc_coll_desc_of((topocoll_coll)-1) == NULL,
          "unknown collectives");
    CHECK(tc_coll_from_name("allreducex") == -1 && tc_coll_from_name(NULL) == -1, "unknown names");
}

int main(void)
{
    rows();
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) {
        const tc_coll_desc *d = tc_coll_desc_of((topocoll_coll)c);
        for (int p = 1; p <= 6; p++)
            for (int root = 0; root < p; root++)
                for (int rank = 0; rank < p; rank++)
                    for (int ip = 0; ip <= 1; ip++) one_rank(d, p, root, rank, ip);
    }
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
