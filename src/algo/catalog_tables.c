/*
 * The catalog's declaration: one table per collective, in listing order
 * (benchmark columns, docs).  A row is one algorithm (its tc_algo, defined in
 * src/algo/<coll>/<name>.c) or one family (its tc_family: named parameters
 * and their value sets, expanded into one instance per valid combination by
 * catalog.c).  Adding an algorithm: define its entry in its own file, declare
 * it below and list it in its collective's table.
 */
#include "algo/catalog.h"

#define ALGO(x) { &(x), NULL }
#define FAMILY(x) { NULL, &(x) }
#define END { NULL, NULL }

extern const tc_algo tc_allgather_linear, tc_allgather_gather_bcast, tc_allgather_ring,
    tc_allgather_recursive_doubling, tc_allgather_recursive_halving, tc_allgather_bruck,
    tc_allgather_neighbor_exchange, tc_allgather_native;
extern const tc_family tc_allgather_twotier, tc_allgather_hierarchical;

extern const tc_algo tc_bcast_binomial, tc_bcast_linear, tc_bcast_scatter_allgather, tc_bcast_native;
extern const tc_family tc_bcast_twotier;

extern const tc_algo tc_scatter_binomial, tc_scatter_native;
extern const tc_family tc_scatter_twotier;

extern const tc_algo tc_gather_binomial, tc_gather_native;
extern const tc_family tc_gather_twotier;

extern const tc_algo tc_reduce_binomial, tc_reduce_rabenseifner, tc_reduce_native;
extern const tc_family tc_reduce_twotier;

extern const tc_algo tc_reduce_scatter_block_pairwise, tc_reduce_scatter_block_native;
extern const tc_family tc_reduce_scatter_block_twotier;

extern const tc_algo tc_allreduce_recursive_doubling, tc_allreduce_reduce_scatter_allgather,
    tc_allreduce_ring, tc_allreduce_reduce_bcast, tc_allreduce_native;
extern const tc_family tc_allreduce_shm_reduce_bcast, tc_allreduce_shm_tiled, tc_allreduce_shm_dissemination,
    tc_allreduce_hierarchical;
/* Small one-node vectors: sequence numbers in the data's lines (run by the MPI layer). */
extern const tc_algo tc_allreduce_shm_inline;

/* One-node shared-memory reduce and bcast (Li, Hoefler, Snir 2013). */
extern const tc_family tc_reduce_shm_tree, tc_reduce_shm_tiled, tc_bcast_shm;
extern const tc_family tc_reduce_hierarchical, tc_bcast_hierarchical;
/* Small one-node allgather, bcast and reduce: the inline protocol of allreduce shm_inline. */
extern const tc_algo tc_allgather_shm_inline, tc_bcast_shm_inline, tc_reduce_shm_inline;

static const tc_catalog_row allgather[] = {
    ALGO(tc_allgather_linear),
    ALGO(tc_allgather_gather_bcast),
    ALGO(tc_allgather_ring),
    ALGO(tc_allgather_recursive_doubling),
    ALGO(tc_allgather_recursive_halving),
    ALGO(tc_allgather_bruck),
    ALGO(tc_allgather_neighbor_exchange),
    FAMILY(tc_allgather_twotier),          /* twotier:units=ranks|sockets */
    ALGO(tc_allgather_native),
    FAMILY(tc_allgather_hierarchical),     /* hierarchical:leaders=..,agg=..,x=..,dist=.. */
    ALGO(tc_allgather_shm_inline),         /* no schedule: src/exec/shm_inline.c */
    END,
};

static const tc_catalog_row bcast[] = {
    ALGO(tc_bcast_binomial),
    ALGO(tc_bcast_linear),
    ALGO(tc_bcast_scatter_allgather),
    FAMILY(tc_bcast_twotier),              /* twotier:units=ranks|sockets,chunked=no|yes */
    ALGO(tc_bcast_native),
    FAMILY(tc_bcast_shm),                  /* shm:stages=1|2,chunk=all|64k|512k (one node) */
    ALGO(tc_bcast_shm_inline),             /* no schedule: src/exec/shm_inline.c */
    FAMILY(tc_bcast_hierarchical),         /* hierarchical:x=binomial|scatter_allgather|chain_16k|chain_64k,node=shm1|shm2|p2p */
    END,
};

static const tc_catalog_row scatter[] = {
    ALGO(tc_scatter_binomial),
    FAMILY(tc_scatter_twotier),
    ALGO(tc_scatter_native),
    END,
};

static const tc_catalog_row gather[] = {
    ALGO(tc_gather_binomial),
    FAMILY(tc_gather_twotier),
    ALGO(tc_gather_native),
    END,
};

static const tc_catalog_row reduce[] = {
    ALGO(tc_reduce_binomial),
    ALGO(tc_reduce_rabenseifner),
    FAMILY(tc_reduce_twotier),             /* twotier:units=ranks|sockets,landing=no|yes */
    ALGO(tc_reduce_native),
    FAMILY(tc_reduce_shm_tree),            /* shm_tree:fanin=2|4|8 (one node) */
    FAMILY(tc_reduce_shm_tiled),           /* shm_tiled:tiles=naive|cyclic,tile=2k|16k|128k (one node) */
    ALGO(tc_reduce_shm_inline),            /* no schedule: src/exec/shm_inline.c */
    FAMILY(tc_reduce_hierarchical),        /* hierarchical:leaders=1|2|4,node=shm|p2p,inter=binomial|chain_4k|chain_16k */
    END,
};

extern const tc_algo tc_alltoall_pairwise, tc_alltoall_bruck, tc_alltoall_native;
extern const tc_family tc_alltoall_linear, tc_alltoall_hierarchical;
extern const tc_algo tc_alltoall_bridge, tc_alltoall_bridge_a2a, tc_alltoall_bridge_w,
    tc_alltoall_bridge_pack, tc_alltoall_shm_inline;

static const tc_catalog_row reduce_scatter_block[] = {
    ALGO(tc_reduce_scatter_block_pairwise),
    FAMILY(tc_reduce_scatter_block_twotier), /* twotier:units=ranks|sockets,landing=no|yes */
    ALGO(tc_reduce_scatter_block_native),
    END,
};

static const tc_catalog_row alltoall[] = {
    ALGO(tc_alltoall_pairwise),
    FAMILY(tc_alltoall_linear),            /* linear:window=all|1|2|4|8|16|32 */
    ALGO(tc_alltoall_bruck),
    ALGO(tc_alltoall_native),
    FAMILY(tc_alltoall_hierarchical),      /* hierarchical:leaders=1|2|4,intra=p2p|shm */
    /* small blocks, one node: the inline lines; before the member-set rounds,
     * which the learner's unpriced candidates would otherwise fill first */
    ALGO(tc_alltoall_shm_inline),
    ALGO(tc_alltoall_bridge),              /* member-set rounds (bridge_steps.c) */
    ALGO(tc_alltoall_bridge_a2a),
    ALGO(tc_alltoall_bridge_w),
    ALGO(tc_alltoall_bridge_pack),
    END,
};

extern const tc_algo tc_alltoallv_pairwise, tc_alltoallv_linear, tc_alltoallv_native;
extern const tc_family tc_alltoallv_hierarchical;
extern const tc_algo tc_alltoallv_bridge, tc_alltoallv_bridge_dt;

static const tc_catalog_row alltoallv[] = {
    ALGO(tc_alltoallv_pairwise),
    ALGO(tc_alltoallv_linear),
    ALGO(tc_alltoallv_native),
    FAMILY(tc_alltoallv_hierarchical),     /* hierarchical:leaders=1|2|4 (node counts first) */
    ALGO(tc_alltoallv_bridge),             /* member-set rounds (bridge_steps.c) */
    ALGO(tc_alltoallv_bridge_dt),          /* the schedule of "bridge" (zero-copy rounds) */
    END,
};

static const tc_catalog_row allreduce[] = {
    ALGO(tc_allreduce_recursive_doubling),
    ALGO(tc_allreduce_reduce_scatter_allgather),
    ALGO(tc_allreduce_ring),
    ALGO(tc_allreduce_reduce_bcast),
    ALGO(tc_allreduce_native),
    FAMILY(tc_allreduce_shm_reduce_bcast), /* shm_reduce_bcast:fanin=2|4|8,bcast=1stage|2stage,copy=in|cma */
    FAMILY(tc_allreduce_shm_tiled),        /* shm_tiled:tiles=naive|cyclic|hier,tile=..,copy=in|cma */
    FAMILY(tc_allreduce_shm_dissemination), /* shm_dissemination:copy=in|cma */
    ALGO(tc_allreduce_shm_inline),         /* no schedule: src/exec/shm_inline.c */
    FAMILY(tc_allreduce_hierarchical),     /* hierarchical:leaders=1|2|4,node=shm|p2p,x=rd|rsa|ring|ring32k,copy=in|cma */
    END,
};

/* allgatherv: the allgather generators on the allgatherv layout
 * (src/algo/allgatherv/common.h). */
extern const tc_algo tc_allgatherv_linear, tc_allgatherv_gather_bcast, tc_allgatherv_ring,
    tc_allgatherv_recursive_doubling, tc_allgatherv_recursive_halving, tc_allgatherv_bruck,
    tc_allgatherv_neighbor_exchange, tc_allgatherv_native;
extern const tc_family tc_allgatherv_hierarchical;

static const tc_catalog_row allgatherv[] = {
    ALGO(tc_allgatherv_linear),
    ALGO(tc_allgatherv_gather_bcast),
    ALGO(tc_allgatherv_ring),
    ALGO(tc_allgatherv_recursive_doubling),
    ALGO(tc_allgatherv_recursive_halving),
    ALGO(tc_allgatherv_bruck),
    ALGO(tc_allgatherv_neighbor_exchange),
    ALGO(tc_allgatherv_native),
    FAMILY(tc_allgatherv_hierarchical),    /* hierarchical:leaders=..,agg=..,x=..,dist=.. */
    END,
};

extern const tc_algo tc_barrier_dissemination, tc_barrier_recursive_doubling, tc_barrier_shm_flags,
    tc_barrier_native;
extern const tc_family tc_barrier_hierarchical;

static const tc_catalog_row barrier[] = {
    ALGO(tc_barrier_dissemination),
    ALGO(tc_barrier_recursive_doubling),
    ALGO(tc_barrier_native),
    ALGO(tc_barrier_shm_flags),            /* flags only (one node) */
    FAMILY(tc_barrier_hierarchical),       /* hierarchical:ways=1|3|7|all */
    END,
};

/* reduce_scatter: blocks of any size (src/blocks/rs_blocks.h). */
extern const tc_algo tc_reduce_scatter_pairwise, tc_reduce_scatter_recursive_halving,
    tc_reduce_scatter_ring, tc_reduce_scatter_native, tc_reduce_scatter_hierarchical;

static const tc_catalog_row reduce_scatter[] = {
    ALGO(tc_reduce_scatter_pairwise),
    ALGO(tc_reduce_scatter_recursive_halving),
    ALGO(tc_reduce_scatter_ring),
    ALGO(tc_reduce_scatter_native),
    ALGO(tc_reduce_scatter_hierarchical),  /* node sums in shared memory */
    END,
};

/* gatherv and scatterv: one block per rank between the root and every rank
 * (src/algo/rootedv.h); each gatherv entry is its scatterv entry backwards. */
extern const tc_algo tc_gatherv_linear, tc_gatherv_binomial, tc_gatherv_hierarchical, tc_gatherv_native;

static const tc_catalog_row gatherv[] = {
    ALGO(tc_gatherv_linear),
    ALGO(tc_gatherv_binomial),
    ALGO(tc_gatherv_hierarchical),
    ALGO(tc_gatherv_native),
    END,
};

extern const tc_algo tc_scatterv_linear, tc_scatterv_binomial, tc_scatterv_hierarchical,
    tc_scatterv_native;

static const tc_catalog_row scatterv[] = {
    ALGO(tc_scatterv_linear),
    ALGO(tc_scatterv_binomial),
    ALGO(tc_scatterv_hierarchical),
    ALGO(tc_scatterv_native),
    END,
};

/* scan and exscan: one generator per algorithm serves both (src/algo/scan/). */
extern const tc_algo tc_scan_recursive_doubling, tc_scan_binomial, tc_scan_hierarchical, tc_scan_native;
extern const tc_algo tc_exscan_recursive_doubling, tc_exscan_binomial, tc_exscan_hierarchical,
    tc_exscan_native;
/* Small one-node vectors: the inline lines of allreduce shm_inline. */
extern const tc_algo tc_scan_shm_inline, tc_exscan_shm_inline;

static const tc_catalog_row scan[] = {
    ALGO(tc_scan_recursive_doubling),
    ALGO(tc_scan_binomial),
    ALGO(tc_scan_hierarchical),            /* node-shared memory, block mapping */
    ALGO(tc_scan_native),
    ALGO(tc_scan_shm_inline),              /* one node, small vectors */
    END,
};

static const tc_catalog_row exscan[] = {
    ALGO(tc_exscan_recursive_doubling),
    ALGO(tc_exscan_binomial),
    ALGO(tc_exscan_hierarchical),          /* node-shared memory, block mapping */
    ALGO(tc_exscan_native),
    ALGO(tc_exscan_shm_inline),            /* one node, small vectors */
    END,
};

/* alltoallw: the alltoallv generators in blocks, one per peer
 * (src/algo/alltoallw/linear.c); the hierarchical family in bytes, its
 * parts packed (src/algo/alltoallw/hierarchical.c). */
extern const tc_algo tc_alltoallw_linear, tc_alltoallw_pairwise, tc_alltoallw_native;
extern const tc_family tc_alltoallw_hierarchical;

static const tc_catalog_row alltoallw[] = {
    ALGO(tc_alltoallw_pairwise),
    ALGO(tc_alltoallw_linear),
    ALGO(tc_alltoallw_native),
    FAMILY(tc_alltoallw_hierarchical),     /* hierarchical:leaders=1|2|4,intra=p2p|shm (packed to bytes) */
    END,
};

/* Each collective's table, indexed by the collective: the table named as the
 * row's lower-case name, for every row of the list (include/topocoll_colls.h). */
#define CATALOG_ROW(UPPER, lower, Mpi, SHAPE) [TOPOCOLL_##UPPER] = lower,
static const tc_catalog_row *const tables[TOPOCOLL_NCOLL] = { TOPOCOLL_COLLS(CATALOG_ROW) };

const tc_catalog_row *tc_catalog_table(topocoll_coll coll)
{
    return (int)coll >= 0 && coll < TOPOCOLL_NCOLL ? tables[coll] : NULL;
}
