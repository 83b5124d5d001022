/*
 * TOPOCOLL_LEARN_FILE written at MPI_Finalize (docs/learning.md), np >= 4:
 * the two halves of MPI_COMM_WORLD learn different collectives (allgather
 * on the half with rank 0, bcast on the other: an outcome rank 0 never
 * learns itself), the whole world learns allreduce; rank 0 gathers every
 * process's outcomes and writes the file.  After MPI_Finalize rank 0 reads
 * the file back (tc_learn_file_read: the tuning-file reader's checks
 * included) and finds the three keys with the learner's evidence, each once.
 *
 *   test_learn_file PATH              the file is removed first: a cold start
 *   test_learn_file PATH malformed    the file holds garbage first: the run
 *                                     goes on cold (a message), the file is
 *                                     replaced by a valid one
 *   test_learn_file PATH warm         the file of a cold run is kept: a warm
 *                                     start, every key settles from the file
 *                                     (nothing explored: the outcomes say
 *                                     from_file on every rank) and the file's
 *                                     rules are the same after the run
 *
 * Rank 0 prints "N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topocoll.h"
#include "common/harness.h"
#include "select/learn_file.h"

#define CALLS 200   /* per collective: enough to explore and settle */

static int rank, size;

/* Calls of one collective on comm; 0 when every result was right. */
static int run(topocoll_coll coll, MPI_Comm comm)
{
    int r, n, wrong = 0;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int in[4], *out = malloc((size_t)n * 4 * sizeof *out);
    for (int c = 0; out && c < CALLS; c++) {
        for (int k = 0; k < 4; k++) in[k] = r * 4 + k + c;
        int rc = MPI_SUCCESS;
        if (coll == TOPOCOLL_ALLGATHER) {
            rc = topocoll_allgather(in, 4, MPI_INT, out, 4, MPI_INT, comm);
            for (int i = 0; rc == MPI_SUCCESS && i < n * 4; i++) wrong += out[i] != i + c;
        } else if (coll == TOPOCOLL_BCAST) {
            if (r != 0) memset(in, 0, sizeof in);
            rc = topocoll_bcast(in, 4, MPI_INT, 0, comm);
            for (int k = 0; rc == MPI_SUCCESS && k < 4; k++) wrong += in[k] != k + c;
        } else {
            rc = topocoll_allreduce(in, out, 4, MPI_INT, MPI_SUM, comm);
            for (int k = 0; rc == MPI_SUCCESS && k < 4; k++) wrong += out[k] != 4 * n * (n - 1) / 2 + n * (k + c);
        }
        wrong += rc != MPI_SUCCESS;
    }
    free(out);
    return out ? wrong : 1;
}

static const tc_learn_outcome *find(const tc_learn_outcome *o, int n, topocoll_coll coll, int np, int *count)
{
    const tc_learn_outcome *f = NULL;
    *count = 0;
    for (int i = 0; i < n; i++)
        if (o[i].coll == coll && o[i].np == np && o[i].min_bytes <= 16 && 16 < o[i].max_bytes) f = &o[i], ++*count;
    return f;
}

/* Every key this rank learned settled from the file (warm start). */
static void check_warm(void)
{
    static tc_learn_outcome o[64];
    int n = tc_learn_outcomes(o, 64), mine = rank < size / 2 ? size / 2 : size - size / 2, count;
    const tc_learn_outcome *h = find(o, n, rank < size / 2 ? TOPOCOLL_ALLGATHER : TOPOCOLL_BCAST, mine, &count);
    const tc_learn_outcome *w = find(o, n, TOPOCOLL_ALLREDUCE, size, &count);
    CHECK(h && h->from_file && w && w->from_file, "rank %d: the keys did not settle from the file (%s, %s)", rank,
          h ? (h->from_file ? "from file" : "explored") : "none", w ? (w->from_file ? "from file" : "explored") : "none");
}

/* Rank 0, after MPI_Finalize: the file holds the three keys. */
static void check_file(const char *path)
{
    static tc_learn_outcome o[64];
    char err[512] = "";
    int n = tc_learn_file_read(path, o, 64, NULL, err, sizeof err);
    CHECK(n >= 3, "%s: %d outcomes (%s)", path, n, err);
    const struct { topocoll_coll coll; int np; } want[] = {
        { TOPOCOLL_ALLGATHER, size / 2 }, { TOPOCOLL_BCAST, size - size / 2 }, { TOPOCOLL_ALLREDUCE, size } };
    for (int i = 0; i < 3; i++) {
        int count = 0;
        const tc_learn_outcome *f = find(o, n, want[i].coll, want[i].np, &count);
        CHECK(f && count == 1, "%s np %d at 16 B: %d outcomes in the file", topocoll_coll_name(want[i].coll),
              want[i].np, count);
        if (!f) continue;
        int native = 0;
        for (int k = 0; k < f->ntried; k++) native |= !strcmp(f->tried[k], "native");
        CHECK(f->winner && f->ntried > 0 && native && f->calls > 0 && f->winner_s > 0,
              "%s np %d: winner %s, %d tried (native among them: %d), %llu calls", topocoll_coll_name(want[i].coll),
              want[i].np, f->winner ? f->winner : "-", f->ntried, native, (unsigned long long)f->calls);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_learn_file PATH [malformed]\n");
        return 2;
    }
    const char *path = argv[1];
    int malformed = argc > 2 && !strcmp(argv[2], "malformed"), warm = argc > 2 && !strcmp(argv[2], "warm");
    static tc_learn_outcome before[64];
    char err[512] = "";
    int nbefore = warm ? tc_learn_file_read(path, before, 64, NULL, err, sizeof err) : 0;
    setenv("TOPOCOLL_LEARN_FILE", path, 1);
    /* the calls here are short: every key learns at its patience's end
     * whatever exploring costs (docs/learning.md, "Worth it") */
    setenv("TOPOCOLL_LEARN_PAYBACK", "0", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (warm) CHECK(nbefore >= 3, "warm: %s holds %d outcomes (%s)", path, nbefore, err);
    if (rank == 0 && !warm) {
        remove(path);
        FILE *f = malformed ? fopen(path, "w") : NULL;
        if (f) fputs("{\"allgather\": [{\"np\": [2, 2], \"origin\": \"learned\"", f), fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);   /* before anyone's first topocoll call reads it */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
    int wrong = run(rank < size / 2 ? TOPOCOLL_ALLGATHER : TOPOCOLL_BCAST, half);
    wrong += run(TOPOCOLL_ALLREDUCE, MPI_COMM_WORLD);
    CHECK(wrong == 0, "rank %d: %d wrong results", rank, wrong);
    if (warm) check_warm();
    int failed = (int)tc_test_counts_global.failed, anyfail = 0;
    MPI_Allreduce(&failed, &anyfail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&half);
    int all = 0;
    MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();   /* the file is written here */
    if (rank != 0) return all != 0 || failed != 0;
    if (anyfail) CHECK(0, "a check failed on another rank");
    check_file(path);
    if (warm) {
        static tc_learn_outcome after[64];
        int nafter = tc_learn_file_read(path, after, 64, NULL, err, sizeof err), same = nafter == nbefore;
        for (int i = 0; same && i < nafter; i++)
            same = tc_learn_same_key(&before[i], &after[i]) && before[i].calls == after[i].calls &&
                   !strcmp(before[i].winner, after[i].winner) && before[i].winner_s == after[i].winner_s;
        CHECK(same, "warm: the file's rules changed (%d outcomes before, %d after)", nbefore, nafter);
    }
    if (all) CHECK(0, "%d wrong results over the ranks", all);
    return tc_test_summary();
}
