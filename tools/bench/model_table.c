/*
 * topocoll-model: the one-node allreduce memory model on this machine (MPI).
 * Calibrates on MPI_COMM_WORLD (or takes TOPOCOLL_SHM_MODEL), prints the
 * values, and writes the model's prediction for every shared-memory entry
 * and for native at each size, plus the predicted crossover and the entry the
 * model would choose.  Data as in topocoll-bench's reductions: MPI_INT32_T,
 * MPI_SUM, sizes in bytes per rank.
 *
 * Usage: mpiexec -np P topocoll-model [-t TOPOLOGY] [-s LO:HI] [--csv FILE]
 * CSV columns: entry,bytes,np,nsockets,predicted_us,chosen (chosen: 1 on the
 * row of the entry the model picks at that size, native included).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/shm_calibrate.h"
#include "topocoll.h"

static const char *const entries[] = {
    "native", "shm_tiled_naive", "shm_rb2_1s", "shm_rb4_1s", "shm_rb8_1s", "shm_rb2_2s", "shm_rb4_2s",
    "shm_rb8_2s", "shm_tiled_cyclic_256", "shm_tiled_cyclic_2k", "shm_tiled_cyclic_16k",
    "shm_tiled_cyclic_128k", "shm_tiled_hier_256", "shm_tiled_hier_2k", "shm_tiled_hier_16k",
    "shm_tiled_hier_128k", "shm_dissemination",
    "shm_tiled_naive_cma", "shm_tiled_cyclic_256_cma", "shm_tiled_cyclic_2k_cma", "shm_tiled_cyclic_16k_cma",
    "shm_tiled_cyclic_128k_cma", "shm_rb2_1s_cma", "shm_rb4_1s_cma", "shm_rb8_1s_cma", "shm_rb2_2s_cma",
    "shm_rb4_2s_cma", "shm_rb8_2s_cma", "shm_dissemination_cma", "shm_tiled_hier_256_cma", "shm_tiled_hier_2k_cma",
    "shm_tiled_hier_16k_cma", "shm_tiled_hier_128k_cma",
};
#define NENTRIES ((int)(sizeof entries / sizeof entries[0]))

static long size_arg(const char *s)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (*end == 'K') v <<= 10;
    else if (*end == 'M') v <<= 20;
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *topo = NULL, *csv_path = NULL;
    long lo = 8, hi = 16L << 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-t")) topo = argv[i + 1];
        else if (!strcmp(argv[i], "--csv")) csv_path = argv[i + 1];
        else if (!strcmp(argv[i], "-s") && strchr(argv[i + 1], ':')) {
            lo = size_arg(argv[i + 1]);
            hi = size_arg(strchr(argv[i + 1], ':') + 1);
        }
    }
    if (topo && (rc = topocoll_set_topology(MPI_COMM_WORLD, topo)) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
    tc_ctx *x = NULL;
    if ((rc = tc_ctx_get(MPI_COMM_WORLD, &x)) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
    tc_args a = { .coll = TOPOCOLL_ALLREDUCE, .rank = rank, .size = x->size, .scount = 2, .rcount = 2,
                  .commutative = 1, .node_shm = x->node_shm, .cma = x->shm.cma.ok };
    const tc_shm_model *m = tc_shm_model_for(x, &a, &rc);
    if (!m) {
        if (rank == 0) fprintf(stderr, "topocoll-model: the model does not apply here (one node, shared memory, "
                                       "np > 1, nothing forced, no tuning file)\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        char line[600];
        tc_shm_model_format(m, line, sizeof line);
        printf("# %s\n# np %d, %d socket(s), %s\n", line, x->size, x->topo->nsockets, x->topo->desc);
        FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
        if (csv) fprintf(csv, "# %s\nentry,bytes,np,nsockets,predicted_us,chosen\n", line);
        for (long n = lo; n <= hi; n *= 2) {
            a.scount = a.rcount = n / 4 > 0 ? n / 4 : 1;
            tc_shm_shape sh = tc_shm_shape_of(&a, x->topo, n);
            const tc_algo *pick = tc_shm_model_select(m, &a, x->topo, n, NULL, 0);
            printf("%9ld  %-22s", n, pick->name);
            for (int e = 0; e < NENTRIES; e++) {
                const tc_algo *al = tc_catalog_find(TOPOCOLL_ALLREDUCE, entries[e]);
                const char *why = NULL;
                if (e > 0 && (!al || !tc_algo_accepts(al, &a, x->topo, &why))) continue;
                double us = e == 0 ? tc_shm_model_native(m, n) : tc_shm_model_predict(m, entries[e], &sh);
                if (csv)
                    fprintf(csv, "%s,%ld,%d,%d,%.4f,%d\n", entries[e], n, x->size, x->topo->nsockets, us,
                            al == pick);
                if (e == 0 || al == pick) printf(" %s %.2f", entries[e], us);
            }
            printf("\n");
        }
        a.scount = a.rcount = 2;
        printf("# predicted crossover (doubles): %lld B\n",
               (long long)tc_shm_model_crossover(m, &a, x->topo, 8, 1 << 24));
        if (csv) fclose(csv);
    }
    MPI_Finalize();
    return 0;
}
