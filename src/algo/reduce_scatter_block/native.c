/*
 * reduce_scatter_block "native": the MPI library's own MPI_Reduce_scatter_block (called as PMPI_Reduce_scatter_block, so the
 * interposer cannot recurse).  In the catalog so that the benchmark, the
 * tests and selection treat it like any other algorithm.
 */
#include "algo/catalog.h"
#include "algo/cost_walk.h"

const tc_algo tc_reduce_scatter_block_native = {
    .coll = TOPOCOLL_REDUCE_SCATTER_BLOCK, .name = "native",
    .desc = "the MPI library's own MPI_Reduce_scatter_block (PMPI_Reduce_scatter_block)",
    .req = TC_REQ_NATIVE, .generate = NULL, .source = __FILE__,
};

/* The libraries' recursive halving (power-of-two p; MPICH's and Open MPI's
 * choice there), for the cost model's prediction of native only: no
 * schedule, not in the catalog.  Step d = p/2, .., 1 with rank XOR d:
 * d blocks sent and reduced (Thakur, Rabenseifner, Gropp 2005). */
static int halving_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c)
{
    (void)al;
    (void)a;
    int p = t->size;
    if (p & (p - 1)) return -1;
    for (int d = p / 2; d >= 1; d >>= 1) {
        tc_cw_step(c, t, tc_cw_xor, NULL, d, n * d);
        c->reduced += n * d;
    }
    return 0;
}

const tc_algo tc_reduce_scatter_block_library_halving = {
    .coll = TOPOCOLL_REDUCE_SCATTER_BLOCK, .name = "recursive_halving",
    .desc = "the MPI libraries' recursive halving (cost model only)",
    .req = TC_REQ_POW2_P, .generate = NULL, .source = __FILE__, .cost = halving_cost,
};
