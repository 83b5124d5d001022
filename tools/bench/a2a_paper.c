/*
 * topocoll-a2a-paper: the experiments of Träff, Rougier, "MPI Collectives
 * and Datatypes for Hierarchical All-to-all Communication" (2014), section 3:
 *
 *   Figure 4  creation of the node-local and bridge communicators and the
 *             node-sorted rank map, against p (communicators of the first
 *             1, 2, ... nodes), made fresh per repetition;
 *   Figure 5  the regular problem on MPI_COMM_WORLD (a duplicate of it):
 *             MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw, the p-round
 *             send-receive (topocoll's pairwise) and the hierarchical
 *             entries (hierarchical instances, the bridge compositions);
 *   Figure 6  the same on a random permutation of it (MPI_Comm_split with
 *             keys from a fixed seed);
 *   Figure 7  the composition with MPI_Alltoall, MPI_Alltoallv (explicit
 *             pack) and MPI_Alltoallw over the bridge (rows copied from the
 *             Figure 5 measurements when both are run);
 *   Figure 8  an irregular communicator: the even nodes with all their
 *             ranks, the odd nodes with one (world order and permuted).
 *
 * Total problem sizes p*m are given (default 8 B .. 2 MiB, factor 2); the
 * block m is the total over p (sizes whose block would be 0 are left out).
 * With TOPOCOLL_TOPOLOGY set (a virtual topology of MPI_COMM_WORLD) every
 * derived communicator takes its ranks' nodes from it, and Figure 4 splits
 * by the virtual node instead of MPI_Comm_split_type.
 *
 * Exit status: 0; 1 a wrong result, a failed call or an unknown algorithm;
 * 2 bad options.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_paper.h"
#include "bench.h"
#include "topocoll.h"

static const char *const REGULAR[] = {"MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "pairwise",
                                      "auto", "h1_p2p", "h1_shm", "h2_p2p", "h2_shm", "bridge",
                                      "bridge_a2a", "bridge_w", "bridge_pack"};
static const char *const FIG7[] = {"bridge", "bridge_pack", "bridge_w"};
static const char *const IRREGULAR[] = {"MPI_Alltoall", "pairwise", "auto", "h1_p2p", "h2_p2p",
                                        "h2_shm", "bridge_w", "bridge_pack"};
#define NELEM(a) ((int)(sizeof(a) / sizeof(a)[0]))

static void usage(FILE *f)
{
    fprintf(f,
"Usage: mpirun [...] " A2AP_PROG " [options]\n"
"The alltoall experiments of Träff, Rougier (2014), Figures 4-8, as CSV.\n"
"\n"
"  -s, --sizes SPEC      total problem sizes p*m in bytes (default 8:2M: 8 B to 2 MiB,\n"
"                        factor 2; as topocoll-bench's -s)\n"
"  -i, --iters N         timed iterations (default 100)\n"
"  -w, --warmup N        untimed calls first (default 5)\n"
"  -r, --reps N          Figure 4: fresh creations per p (default 50)\n"
"  -f, --figures LIST    figures to run, e.g. 4,5,8 (default 4,5,6,7,8)\n"
"  -a, --algos LIST      algorithms for Figures 5, 6, 8 (default: the paper's set)\n"
"      --csv FILE        write the CSV there (default standard output)\n"
"      --label TEXT      the setup column (default np<p>)\n"
"      --seed N          seed of the random permutation (default 1)\n"
"      --inject-wrong A  corrupt one byte of A's verified result (tests)\n"
"  -v, --verbose         progress on stderr\n"
"  -h, --help            this text\n"
"\n"
"Names: MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw (the library's, through PMPI),\n"
"auto (topocoll_alltoall), any alltoall entry of topocoll's catalog.\n"
"Every (communicator, algorithm, size) is verified once before it is timed.\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

static int parse_list(a2ap_opts *o, const char *s)
{
    free(o->algos_buf);
    o->algos_buf = strdup(s);
    o->nalgos = 0;
    if (!o->algos_buf) return -1;
    for (char *save = NULL, *tok = strtok_r(o->algos_buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (o->nalgos == A2AP_MAX_ALGOS) return -1;
        o->algos[o->nalgos++] = tok;
    }
    return o->nalgos > 0 ? 0 : -1;
}

static int parse_figures(a2ap_opts *o, const char *s)
{
    memset(o->fig, 0, sizeof o->fig);
    for (const char *q = s; *q; q++) {
        if (*q == ',') continue;
        if (*q < '4' || *q > '8' || (q[1] != ',' && q[1] != '\0')) return -1;
        o->fig[*q - '0'] = 1;
    }
    return 0;
}

static void set_label(a2ap_opts *o, const char *s)
{
    snprintf(o->label, sizeof o->label, "%s", s);
    for (char *q = o->label; *q; q++)
        if (*q == ',' || *q == '\n' || *q == '"') *q = ';';
}

/* 0 ok, 1 help, 2 error (message in err). */
static int parse_options(int argc, char **argv, a2ap_opts *o, char *err, size_t errlen)
{
    static const struct option lo[] = {
        {"sizes", 1, 0, 's'}, {"iters", 1, 0, 'i'}, {"warmup", 1, 0, 'w'}, {"reps", 1, 0, 'r'},
        {"figures", 1, 0, 'f'}, {"algos", 1, 0, 'a'}, {"csv", 1, 0, 'C'}, {"label", 1, 0, 'L'},
        {"seed", 1, 0, 'S'}, {"inject-wrong", 1, 0, 'I'}, {"verbose", 0, 0, 'v'},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    int ch, bad = 0;
    opterr = 0;
    while (!bad && (ch = getopt_long(argc, argv, "s:i:w:r:f:a:vh", lo, NULL)) != -1) {
        switch (ch) {
        case 's':
            free(o->sizes);
            o->sizes = NULL;
            if (bench_parse_sizes(optarg, &o->sizes, &o->nsizes, err, errlen) != 0) return 2;
            break;
        case 'i': bad = parse_int(optarg, 1, 100000, &o->iters); break;
        case 'w': bad = parse_int(optarg, 0, 100000, &o->warmup); break;
        case 'r': bad = parse_int(optarg, 1, 100000, &o->reps); break;
        case 'f': bad = parse_figures(o, optarg); break;
        case 'a': bad = parse_list(o, optarg); break;
        case 'C': o->csv_path = optarg; break;
        case 'L': set_label(o, optarg); break;
        case 'S': o->seed = strtoull(optarg, NULL, 10); break;
        case 'I': o->inject = optarg; break;
        case 'v': o->verbose = 1; break;
        case 'h': return 1;
        default: bad = 1; break;
        }
    }
    if (bad || optind != argc) {
        snprintf(err, errlen, "bad option or value near '%s' (--help lists them)",
                 optind - 1 < argc && optind > 0 ? argv[optind - 1] : "");
        return 2;
    }
    if (o->sizes == NULL && bench_parse_sizes("8:2M", &o->sizes, &o->nsizes, err, errlen) != 0) return 2;
    return 0;
}

/* ---- communicators ------------------------------------------------------- */

/* A permutation of 0..p-1 from seed (the same on every rank). */
static void permutation(int *perm, int p, unsigned long long seed)
{
    uint64_t x = seed ? seed : 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < p; i++) perm[i] = i;
    for (int i = p - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int j = (int)((x >> 11) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* Fills k from comm (MPI_COMM_NULL on ranks outside it: k->comm stays so). */
static int comm_info(a2ap_ctx *c, a2ap_comm *k, const char *name, MPI_Comm comm)
{
    int ns, rc, mine;
    k->name = name;
    k->comm = comm;
    k->root = 0;
    if (comm == MPI_COMM_NULL) return MPI_SUCCESS;
    if ((rc = MPI_Comm_size(comm, &k->p)) != MPI_SUCCESS || (rc = MPI_Comm_rank(comm, &k->rank)) != MPI_SUCCESS)
        return rc;
    mine = c->wrank == 0 ? k->rank : -1;
    if ((rc = MPI_Allreduce(&mine, &k->root, 1, MPI_INT, MPI_MAX, comm)) != MPI_SUCCESS) return rc;
    return topocoll_topology_counts(comm, &k->nnodes, &ns);
}

/* A permuted copy of comm (keys from the seed's permutation). */
static int permuted(a2ap_ctx *c, MPI_Comm comm, MPI_Comm *out)
{
    int p, r, rc;
    *out = MPI_COMM_NULL;
    if (comm == MPI_COMM_NULL) return MPI_SUCCESS;
    if ((rc = MPI_Comm_size(comm, &p)) != MPI_SUCCESS || (rc = MPI_Comm_rank(comm, &r)) != MPI_SUCCESS)
        return rc;
    int *perm = malloc((size_t)p * sizeof *perm);
    if (!perm) return MPI_ERR_NO_MEM;
    permutation(perm, p, c->o.seed);
    rc = MPI_Comm_split(comm, 0, perm[r], out);
    free(perm);
    return rc;
}

static void comm_free(a2ap_comm *k)
{
    if (k->comm != MPI_COMM_NULL) (void)MPI_Comm_free(&k->comm);
}

/* ---- figures -------------------------------------------------------------- */

static int virtual_topology(void)
{
    const char *e = getenv("TOPOCOLL_TOPOLOGY");
    return e != NULL && *e != '\0';
}

/* Figure 4: the communicators of the first 1, 2, ..., N nodes of world. */
static int figure4(a2ap_ctx *c, const a2ap_comm *world, const topocoll_rank_place *me)
{
    int rc = MPI_SUCCESS;
    for (int k = 1; k <= world->nnodes && rc == MPI_SUCCESS; k++) {
        MPI_Comm sc;
        a2ap_comm sub;
        rc = MPI_Comm_split(world->comm, me->node < k ? 0 : MPI_UNDEFINED, world->rank, &sc);
        if (rc == MPI_SUCCESS) rc = comm_info(c, &sub, "first_nodes", sc);
        if (rc == MPI_SUCCESS && sc != MPI_COMM_NULL)
            rc = a2ap_creation(c, &sub, virtual_topology(), me->node);
        if (sc != MPI_COMM_NULL) (void)MPI_Comm_free(&sc);
        /* every rank learns of a failure (ranks outside sub would wait) */
        int bad = rc != MPI_SUCCESS, anybad = 1;
        if (MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, world->comm) != MPI_SUCCESS || anybad)
            rc = rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
    }
    return rc;
}

static int regular(a2ap_ctx *c, const a2ap_comm *world)
{
    const char *const *l = c->o.nalgos ? c->o.algos : REGULAR;
    int n = c->o.nalgos ? c->o.nalgos : NELEM(REGULAR), rc = 0;
    if (c->o.fig[5]) rc = a2ap_measure(c, world, 5, l, n, c->o.fig[7], FIG7, NELEM(FIG7));
    else if (c->o.fig[7]) rc = a2ap_measure(c, world, 7, FIG7, NELEM(FIG7), 0, NULL, 0);
    if (rc == 0 && c->o.fig[6]) {
        a2ap_comm k;
        MPI_Comm pc;
        if (permuted(c, world->comm, &pc) != MPI_SUCCESS || comm_info(c, &k, "permuted", pc) != MPI_SUCCESS)
            return -1;
        rc = a2ap_measure(c, &k, 6, l, n, 0, NULL, 0);
        comm_free(&k);
    }
    return rc;
}

/* Figure 8: even nodes whole, odd nodes one rank; world order and permuted. */
static int irregular(a2ap_ctx *c, const a2ap_comm *world, const topocoll_rank_place *me)
{
    const char *const *l = c->o.nalgos ? c->o.algos : IRREGULAR;
    int n = c->o.nalgos ? c->o.nalgos : NELEM(IRREGULAR), rc = 0;
    a2ap_comm k[2];
    MPI_Comm ic, pc;
    if (world->nnodes < 2) {
        if (c->wrank == 0) fprintf(stderr, A2AP_PROG ": figure 8 needs 2 nodes or more: left out\n");
        return 0;
    }
    int keep = me->node % 2 == 0 || me->node_index == 0;
    if (MPI_Comm_split(world->comm, keep ? 0 : MPI_UNDEFINED, world->rank, &ic) != MPI_SUCCESS ||
        comm_info(c, &k[0], "irregular", ic) != MPI_SUCCESS || permuted(c, ic, &pc) != MPI_SUCCESS ||
        comm_info(c, &k[1], "irregular_permuted", pc) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < 2 && rc == 0; i++)
        if (k[i].comm != MPI_COMM_NULL) rc = a2ap_measure(c, &k[i], 8, l, n, 0, NULL, 0);
    comm_free(&k[0]);
    comm_free(&k[1]);
    return rc;
}

/* ---- main ----------------------------------------------------------------- */

static int run(a2ap_ctx *c)
{
    a2ap_comm world;
    topocoll_rank_place me;
    MPI_Comm wc;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &wc);
    if (rc == MPI_SUCCESS) rc = comm_info(c, &world, "world", wc);
    if (rc == MPI_SUCCESS) rc = topocoll_topology_place(wc, world.rank, &me);
    if (rc != MPI_SUCCESS) return -1;
    if (c->wrank == 0) {
        char desc[256];
        if (topocoll_topology_describe(wc, desc, (int)sizeof desc) == MPI_SUCCESS)
            fprintf(stderr, A2AP_PROG ": %d ranks, topology: %s\n", c->wsize, desc);
    }
    a2ap_csv_head(c);
    if (c->o.fig[4]) rc = figure4(c, &world, &me);
    if (rc == 0 && (c->o.fig[5] || c->o.fig[6] || c->o.fig[7])) rc = regular(c, &world);
    if (rc == 0 && c->o.fig[8]) rc = irregular(c, &world, &me);
    if (rc == 0) rc = MPI_Barrier(world.comm);
    comm_free(&world);
    return rc == 0 ? 0 : -1;
}

static int setup(a2ap_ctx *c, int argc, char **argv)
{
    char err[256] = "";
    memset(c, 0, sizeof *c);
    c->o.iters = 100;
    c->o.warmup = 5;
    c->o.reps = 50;
    c->o.seed = 1;
    for (int f = 4; f <= 8; f++) c->o.fig[f] = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->wsize);
    snprintf(c->o.label, sizeof c->o.label, "np%d", c->wsize);
    int prc = parse_options(argc, argv, &c->o, err, sizeof err);
    if (prc == 1) {
        if (c->wrank == 0) usage(stdout);
        return 1;
    }
    if (prc != 0) {
        if (c->wrank == 0) fprintf(stderr, A2AP_PROG ": %s\n", err[0] ? err : "bad options");
        return 2;
    }
    c->csv = stdout;
    if (c->wrank == 0 && c->o.csv_path && !(c->csv = fopen(c->o.csv_path, "w"))) {
        fprintf(stderr, A2AP_PROG ": cannot write %s\n", c->o.csv_path);
        c->csv = NULL;
    }
    int ok = c->wrank != 0 || c->csv != NULL, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all ? 0 : 2;
}

int main(int argc, char **argv)
{
    a2ap_ctx c;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = setup(&c, argc, argv);
    if (rc == 0) {
        rc = run(&c) != 0 || c.wrong > 0 || c.failed > 0;
        if (c.wrank == 0)
            fprintf(stderr, A2AP_PROG ": %ld rows; verified %ld results before timing: %ld wrong, %ld failed\n",
                   c.rows, c.verified, c.wrong, c.failed);
    } else if (rc == 1) {
        rc = 0;
    }
    if (c.wrank == 0 && c.csv && c.csv != stdout) fclose(c.csv);
    free(c.o.sizes);
    free(c.o.algos_buf);
    MPI_Finalize();
    return rc;
}
