/*
 * TOPOCOLL_LEARN_FILE: the first read (warm start) and the write at
 * MPI_Finalize.
 *
 * Finalize: every process encodes its outcomes (tc_learn_encode: the
 * file's rule format as compact JSON), rank 0 of MPI_COMM_WORLD gathers the
 * lengths, then the texts (one MPI_Gather and one MPI_Gatherv), decodes
 * them, keeps one outcome per key (the most calls) and merges them into the
 * file (tc_learn_file_write: same keys replaced, the rest kept, one rename).
 * Cost: two gathers over MPI_COMM_WORLD of a few hundred bytes per outcome,
 * once per run.
 */
#define _POSIX_C_SOURCE 200809L
#include "api/learn_file_mpi.h"

#include "select/learn_file.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t started = PTHREAD_ONCE_INIT;

static const char *learn_path(void)
{
    const char *p = getenv("TOPOCOLL_LEARN_FILE");
    return p && *p ? p : NULL;
}

static int world_rank(void)
{
    int r = 0;
    if (PMPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS) r = 0;
    return r;
}

int tc_learn_file_load(const char *path)
{
    tc_learn_outcome *o = malloc(TC_LEARN_FILE_MAX * sizeof *o);
    char err[512];
    int missing = 0, n = o ? tc_learn_file_read(path, o, TC_LEARN_FILE_MAX, &missing, err, sizeof err) : -1;
    if (n < 0 && world_rank() == 0)
        fprintf(stderr, "topocoll: TOPOCOLL_LEARN_FILE %s; learning starts cold (the file is rewritten at "
                "MPI_Finalize)\n", o ? err : "out of memory");
    if (n > 0) tc_learn_preload(o, n);
    free(o);
    return n;
}

static void start_once(void)
{
    const char *path = learn_path();
    if (path) (void)tc_learn_file_load(path);
}

void tc_learn_file_start(void) { (void)pthread_once(&started, start_once); }

/* Rank 0: decodes the gathered texts into all[], returns the count kept. */
static int decode_all(const char *buf, const int *lens, int np, tc_learn_outcome *all)
{
    int n = 0, off = 0;
    char err[512];
    for (int r = 0; r < np; off += lens[r], r++) {
        if (lens[r] <= 1) continue;
        int k = tc_learn_decode(buf + off, all + n, TC_LEARN_FILE_MAX - n, err, sizeof err);
        if (k < 0) fprintf(stderr, "topocoll: TOPOCOLL_LEARN_FILE: rank %d's outcomes: %s\n", r, err);
        else n = tc_learn_unique(all, n + k);
    }
    return n;
}

static void write_file(const char *path, tc_learn_outcome *all, int n, const char *about)
{
    char err[512];
    int replaced = 0;
    if (tc_learn_file_write(path, all, n, about, &replaced, err, sizeof err) != 0)
        fprintf(stderr, "topocoll: TOPOCOLL_LEARN_FILE %s\n", err);
    else if (replaced)
        fprintf(stderr, "topocoll: TOPOCOLL_LEARN_FILE %s was not a valid learn file: replaced\n", path);
}

/* Rank 0: the receive buffer and displacements for lens[0..np); 0 without memory. */
static int receive_space(const int *lens, int np, int **displs, char **buf)
{
    long total = 0;
    *displs = calloc((size_t)np, sizeof **displs);
    for (int r = 0; *displs && r < np; r++) (*displs)[r] = (int)total, total += lens[r];
    *buf = *displs && total < (1L << 30) ? malloc((size_t)total) : NULL;
    return *buf != NULL;
}

int tc_learn_file_save(const char *path, const char *about)
{
    int rank, np, rc = PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_size(MPI_COMM_WORLD, &np);
    if (rc != MPI_SUCCESS) return rc;
    tc_learn_outcome *mine = malloc(TC_LEARN_FILE_MAX * sizeof *mine);
    int n = mine ? tc_learn_outcomes(mine, TC_LEARN_FILE_MAX) : 0;
    char *text = n > 0 ? tc_learn_encode(mine, n) : NULL, *buf = NULL;
    int len = text ? (int)strlen(text) + 1 : 1, *displs = NULL, ok = 0;
    int *lens = rank == 0 ? calloc((size_t)np, sizeof *lens) : NULL;
    /* every process takes part in the same calls, whatever memory rank 0 has */
    rc = PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) ok = rc == MPI_SUCCESS && lens && mine && receive_space(lens, np, &displs, &buf);
    if (rc == MPI_SUCCESS) rc = PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && ok)
        rc = PMPI_Gatherv(text ? text : "", len, MPI_CHAR, buf, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && rank == 0 && ok) {
        n = decode_all(buf, lens, np, mine);
        if (n > 0) write_file(path, mine, n, about);
    } else if (rc == MPI_SUCCESS && rank == 0) {
        fprintf(stderr, "topocoll: TOPOCOLL_LEARN_FILE %s: out of memory, not written\n", path);
    }
    free(buf), free(displs), free(lens), free(text), free(mine);
    return rc;
}

int tc_learn_file_finalize(void)
{
    const char *path = learn_path();
    return path ? tc_learn_file_save(path, "the run-time learner at MPI_Finalize") : MPI_SUCCESS;
}
