/*
 * The built-in selection table.  Rules are tried in order; see select.h.
 *
 * Several nodes: the integrated design of Kandalla, Subramoni,
 * Santhanaraman, Koop, Panda, "Designing Multi-Leader-Based Allgather
 * Algorithms for Multi-Core Clusters" (2009, Table 1): hierarchical
 * with point-to-point aggregation and recursive doubling among leaders for
 * small messages, shared-memory aggregation/distribution with recursive
 * doubling for medium ones, the flat ring for large ones.  Rules only where
 * measured: topocoll-bench on a virtual 2 nodes x 2 sockets x 2 ranks
 * topology (np 8, oversubscribed on 2 cores) and scripts/main.sh's layout, 2 x 2
 * (np 4; results/dev_2core_2x2, docs/performance.md).  One leader per node measured faster than one per
 * (virtual) socket on these 2-core machines, so the rules use h1_*.
 *
 * One node, np <= 8: measured with topocoll-bench on the development
 * machines (2 cores, Open MPI 4.1.4, np 2, 3, 4, 8, 8 B .. 2 MiB; the table in
 * docs/selection.md, "The built-in table").  Inside one shared-memory node
 * the direct exchange wins small messages (0.44-0.85x of native at np 3-8,
 * up to 8 KiB), recursive doubling wins medium ones at power-of-two p
 * (0.84-0.98x at np 4 and 8), the direct exchange keeps winning at np 3.
 * Everything else (np > 8, several nodes outside the measured layouts,
 * other collectives): no rule here; the cost model (cost_model.c) names an
 * entry where it predicts a gain over native beyond its margin, else native.
 *
 * allreduce, one node: the calibrated memory model (src/select/shm_model.h)
 * chooses in the MPI layer wherever no built-in allreduce rule serves the
 * call (the built-in table in force, nothing forced); the one rule here
 * covers what the model cannot see: vectors beyond the caches at np 2
 * (single copy).  Several nodes: from 1 MiB the hierarchical entry of the
 * emulated cluster's measurements (the last rule).
 *
 * reduce and bcast, one node, np 2 (same conditions, 8 B .. 16 MiB, three
 * or four runs on a machine at load average 13-23): the shared-memory
 * broadcast in 64 KiB chunks takes 0.39-0.61x native's time from 4 KiB to
 * 1 MiB, the shared-memory reduce tree 0.38-0.91x from 4 KiB to 256 KiB;
 * below 4 KiB native wins, above the ranges the runs disagree.
 *
 * Load conditions (tc_rule.load; the MPI layer detects per communicator
 * whether some node runs more ranks than the processing units its ranks may
 * use, src/detect/load.c).  A rule serves only the kind of machine it was
 * measured on:
 *   TC_LOAD_OVERSUBSCRIBED: the allgather rules for several nodes (np 4 and
 *     8, virtual 2x2 and 2x2x2 on 2 cores) and for one node (np 2-8,
 *     measured at np 3, 4 and 8 on 2 cores; on a 16-core machine without
 *     oversubscription the 2 x 2 rules took 0.94-1.51x native's time,
 *     results/node16/main_2x2.csv);
 *   TC_LOAD_DEDICATED: allreduce, reduce and bcast at np 2 (`--bind-to core`
 *     on 2 cores), reduce and bcast at np 4-8 (16 cores, bound to cores), and
 *     allgather on one node at np 2 (2 ranks on 2 cores: the np 2 rows of the
 *     one-node measurements);
 *   TC_LOAD_ANY: one rank (a local copy).
 * Where a rule is set aside the next matching rule, then the cost model,
 * then native serve.
 */
#include "select/select.h"

#define KiB 1024
#define MiB (1024 * 1024)
#define ALLGATHER .coll = TOPOCOLL_ALLGATHER
#define OVERSUB .load = TC_LOAD_OVERSUBSCRIBED
#define DEDICATED .load = TC_LOAD_DEDICATED

static const tc_rule rules[] = {
    { ALLGATHER, .min_np = 1, .max_np = 1, .candidates = { "ring", NULL },
      .note = "one rank: a local copy" },
    /* several nodes, where measured (np 4 and 8, oversubscribed on 2 cores):
     * Kandalla et al. 2009, Table 1 */
    { ALLGATHER, OVERSUB, .min_np = 4, .max_np = 4, .min_nodes = 2, .max_nodes = 2, .max_bytes = 4 * KiB,
      .candidates = { "linear", NULL },
      .note = "np 4 on 2 nodes, < 4 KiB: direct exchange (4 ranks as virtual 2x2 on 2 cores: 0.42-0.67x native "
              "from 256 B, 0.60-1.09x below; the hierarchical ones 0.78-1.75x)" },
    { ALLGATHER, OVERSUB, .min_np = 4, .max_np = 4, .min_nodes = 2, .max_nodes = 2, .min_bytes = 4 * KiB,
      .max_bytes = 64 * KiB, .candidates = { "h1_shm_rd_shm", NULL },
      .note = "np 4 on 2 nodes, 4 - 64 KiB: shared-memory aggregation and distribution, recursive "
              "doubling (Table 1; 4 ranks as virtual 2x2 on 2 cores, five launches: median 0.55-0.69x native, at most 1.04x)" },
    /* np 4 on 2 nodes from 64 KiB: over five launches of scripts/main.sh the hierarchical
     * entry's median was 0.60-0.63x native at 64-256 KiB but 1.10-1.31x in one launch, and
     * at 512 KiB - 1 MiB (where the cost model had chosen) 1.00-1.14x; the direct
     * exchange's median was 0.54-0.78x and its worst 1.00x */
    { ALLGATHER, OVERSUB, .min_np = 4, .max_np = 4, .min_nodes = 2, .max_nodes = 2, .min_bytes = 64 * KiB,
      .max_bytes = 2 * MiB, .candidates = { "linear", NULL },
      .note = "np 4 on 2 nodes, 64 KiB - 2 MiB: direct exchange (4 ranks as virtual 2x2 on 2 cores, five launches: median "
              "0.54-0.78x native, at most 1.00x)" },
    { ALLGATHER, OVERSUB, .min_np = 8, .max_np = 8, .min_nodes = 2, .max_nodes = 2, .min_bytes = 256,
      .max_bytes = 1 * MiB, .candidates = { "h1_shm_rd_shm", "h1_gather_rd_bcast", NULL },
      .note = "np 8 on 2 nodes, 256 B - 1 MiB: shared-memory aggregation and distribution, recursive "
              "doubling (Table 1; 0.12-0.71x native at 2x2x2 from 256 B to 512 KiB)" },
    /* one node (np 3, 4, 8 oversubscribed on 2 cores; np 2 not: the rule at the end) */
    { ALLGATHER, OVERSUB, .min_np = 2, .max_np = 8, .max_nodes = 1, .max_bytes = 8 * KiB, .candidates = { "linear", NULL },
      .note = "np <= 8, < 8 KiB: direct exchange measured fastest (0.44-0.85x native)" },
    { ALLGATHER, OVERSUB, .min_np = 2, .max_np = 8, .max_nodes = 1, .pow2_only = 1, .max_bytes = 1 * MiB,
      .candidates = { "recursive_doubling", NULL },
      .note = "np <= 8 power of two, 8 KiB - 1 MiB: recursive doubling measured fastest (0.84-0.98x)" },
    { ALLGATHER, OVERSUB, .min_np = 2, .max_np = 8, .max_nodes = 1, .max_bytes = 1 * MiB,
      .candidates = { "linear", NULL },
      .note = "np <= 8 other p, 8 KiB - 1 MiB: direct exchange measured fastest (0.62-0.73x at np 3)" },
    { ALLGATHER, OVERSUB, .min_np = 2, .max_np = 8, .max_nodes = 1, .min_bytes = 1 * MiB,
      .candidates = { "ring", "linear", NULL },
      .note = "np <= 8, >= 1 MiB: ring (0.49-1.0x at np 2-4)" },
    /* allreduce, one node, np 2: vectors beyond the caches, where the memory model (which
     * calibrates its bandwidths in cache) keeps the copy-in tiled reduce at 1.03-1.07x native:
     * single copy reads each vector once (topocoll-bench, np 2 bound to cores, two runs on the
     * 2-core development machine: 0.71-0.78x native at 2 and 8 MiB; the fastest entry from
     * 256 KiB at np 2 on a 16-core machine).  Below 2 MiB, and where cross-memory attach is
     * unavailable (the entry declines), the model chooses. */
    /* allreduce, one node, dedicated, small vectors: the inline shared-memory lines (the
     * call's sequence number inside the data's line: one line transfer per peer) below
     * 256 B (np 2: 1 KiB), then to 4 KiB (np 2) the dissemination rounds or (np 4-16) the
     * socket-aware fan-in-4 tree with a reader per socket.  topocoll-bench bound to cores,
     * Open MPI: on the 2-core development machine (np 2) shm_inline 0.56-0.92x native at
     * 8-128 B (median of eight runs 0.61-0.66x), dissemination 0.56-0.68x at 512 B - 2 KiB;
     * on a 16-core machine (Open MPI 4.1.6, one socket; two runs of 5 repetitions at np 2,
     * 4, 8, 16; results/node16) shm_inline 0.45-0.79x at 8 B (np 2-16), dissemination
     * 0.71-0.82x (np 2) and shm_rb4_2s 0.49-0.79x (np 4-16) at 256 B - 2 KiB, where the
     * memory model's per-context choice (the entries' predictions within a few tens of
     * nanoseconds of each other) gave 1.07-1.29x (np 2, development machine) and 1.01-1.05x
     * (np 8, 16) at 8-64 B and up to 0.96x at 1 KiB (np 16) where the tree took 0.61x. */
    { .coll = TOPOCOLL_ALLREDUCE, DEDICATED, .min_np = 2, .max_np = 16, .max_nodes = 1, .max_bytes = 256,
      .candidates = { "shm_inline", NULL },
      .note = "one node, np 2-16, < 256 B: inline shared-memory lines (0.56-0.92x native at np 2 on 2 cores; "
              "0.48-0.94x at np 2-16 on 16 cores)" },
    /* np 2, 256 B - 1 KiB: the inline lines still (five to nineteen lines per rank), once
     * the call's own path was shortened: on the 2-core development machine, three runs,
     * shm_inline 0.61-0.74x native at 256 B and 0.48-0.64x at 512 B, dissemination
     * 0.84-0.96x and 0.55-0.64x; from 1 KiB dissemination (0.55-0.73x, inline 0.59-0.93x). */
    { .coll = TOPOCOLL_ALLREDUCE, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1, .min_bytes = 256,
      .max_bytes = 1 * KiB, .candidates = { "shm_inline", NULL },
      .note = "one node, np 2, 256 B - 1 KiB: inline shared-memory lines (0.48-0.74x native on 2 cores, "
              "dissemination 0.55-0.96x)" },
    { .coll = TOPOCOLL_ALLREDUCE, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1, .min_bytes = 1 * KiB,
      .max_bytes = 4 * KiB, .candidates = { "shm_dissemination", NULL },
      .note = "one node, np 2, 1 - 4 KiB: dissemination through node-shared memory (0.56-0.68x native at "
              "512 B - 2 KiB on 2 cores, 0.71-0.82x on 16 cores)" },
    { .coll = TOPOCOLL_ALLREDUCE, DEDICATED, .min_np = 4, .max_np = 16, .max_nodes = 1, .min_bytes = 256,
      .max_bytes = 4 * KiB, .candidates = { "shm_rb4_2s", NULL },
      .note = "one node, np 4-16, 256 B - 4 KiB: socket-aware fan-in-4 tree, a reader per socket (0.49-0.79x "
              "native at np 4, 8 and 16 on 16 cores)" },
    { .coll = TOPOCOLL_ALLREDUCE, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1, .min_bytes = 2 * MiB,
      .candidates = { "shm_tiled_naive_cma", NULL },
      .note = "one node, np 2, >= 2 MiB: single-copy tiled reduce, one tile per rank (0.71-0.78x native "
              "at 2-8 MiB, two runs)" },
    /* reduce and bcast, one node, np 4-8: measured at np 8 bound to cores on a 16-core
     * machine without oversubscription (Open MPI 4.1.6, one socket; results/node16); np 2 keeps the rules above */
    { .coll = TOPOCOLL_BCAST, DEDICATED, .min_np = 4, .max_np = 8, .max_nodes = 1, .min_bytes = 512,
      .candidates = { "shm_2stage_64k", NULL },
      .note = "one node, np 4-8, >= 512 B: shared-memory broadcast in 64 KiB chunks, a reader per "
              "socket (np 8: 0.85x native at 512 B, 0.23-0.35x from 4 KiB to 16 MiB)" },
    { .coll = TOPOCOLL_REDUCE, DEDICATED, .min_np = 4, .max_np = 8, .max_nodes = 1, .min_bytes = 512,
      .max_bytes = 1 * MiB, .candidates = { "shm_tree2", NULL },
      .note = "one node, np 4-8, 512 B - 1 MiB: shared-memory reduce tree (np 8: 0.22-0.73x native)" },
    { .coll = TOPOCOLL_REDUCE, DEDICATED, .min_np = 4, .max_np = 8, .max_nodes = 1, .min_bytes = 1 * MiB,
      .candidates = { "shm_tiled_naive", NULL },
      .note = "one node, np 4-8, >= 1 MiB: shared-memory tiled reduce, one tile per rank (np 8: "
              "0.14-0.18x native from 1 to 16 MiB)" },
    /* alltoall and alltoallv: no rule.  The hierarchical schedule through node-shared
     * memory won at 2-64 KiB on the 2-core development machine (oversubscribed at np 4-8),
     * but on a 16-core machine without oversubscription (Open MPI 4.1.6, np 2, 8 and 16
     * bound to cores) it took 1.5-9.5x native's time from 4 KiB up, and no flat entry
     * beat the library by more than noise: native (results/node16). */
    /* reduce and bcast, one node, np 2 (shared-memory entries of Li, Hoefler, Snir 2013;
     * docs/allreduce.md "Shared-memory reduce and bcast") */
    { .coll = TOPOCOLL_BCAST, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1, .min_bytes = 4 * KiB,
      .max_bytes = 2 * MiB, .candidates = { "shm_1stage_64k", NULL },
      .note = "one node, np 2, 4 KiB - 2 MiB: shared-memory broadcast in 64 KiB chunks (0.39-0.61x native "
              "in three runs on a loaded machine)" },
    { .coll = TOPOCOLL_REDUCE, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1, .min_bytes = 4 * KiB,
      .max_bytes = 512 * KiB, .candidates = { "shm_tree2", NULL },
      .note = "one node, np 2, 4 KiB - 512 KiB: shared-memory reduce tree, the root accumulating in its "
              "buffer (0.38-0.91x native in three runs on a loaded machine)" },
    /* allgather, one node, np 2 without oversubscription (2 ranks on 2 cores, the np 2 rows
     * of the one-node measurements; docs/selection.md): recursive doubling 0.58-0.75x
     * native from 8 KiB to 512 KiB; below and above, every entry within 5 % of native */
    { ALLGATHER, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1, .min_bytes = 8 * KiB,
      .max_bytes = 1 * MiB, .candidates = { "recursive_doubling", NULL },
      .note = "one node, np 2, 8 KiB - 1 MiB: recursive doubling (0.58-0.75x native, 2 ranks on 2 cores)" },
    /* bcast, reduce and allgather across nodes, where the links decide: the emulated cluster
     * (4 hosts x 2 ranks, 1 Gbit/s links, TCP cubic, Open MPI 4.1.4; results/cluster_4x2_tuned
     * and results/cluster_4x2_builtin, docs/performance.md).  A 20-minute topocoll-tune chose
     * these entries at these sizes (ratio to native in its batches), and topocoll-bench with
     * its table measured them against Open MPI's tuned component and against HAN:
     * - bcast from 64 KiB: the leaders' pipelined chain in 16k-element chunks, node phase
     *   through shared memory with a reader per socket (tune 0.17-0.35x; bench 0.20-0.25x
     *   tuned, 0.40-0.45x HAN at 64 KiB - 1 MiB; over TCP BBR 0.17-0.26x
     *   tuned and HAN from 256 KiB);
     * - reduce from 256 KiB: node reduction through shared memory to one leader, the
     *   leaders' pipelined chain in 4k-element chunks (tune 0.51-0.57x; bench 0.43-0.48x
     *   tuned, 0.66-0.73x HAN; over BBR 0.47-0.61x);
     * - allgather from 256 KiB blocks: the two-tier algorithm (tune 0.36-0.37x; bench
     *   0.32-0.41x tuned, 0.55-0.62x HAN).
     * Real nodes only (virtual nodes have no links to spare); any load, since the links are
     * the bottleneck at these sizes. */
    { .coll = TOPOCOLL_BCAST, .min_np = 4, .min_nodes = 2, .min_bytes = 64 * KiB, .real_nodes = 1,
      .candidates = { "h_chain16k_shm2", "h_chain16k_p2p", NULL },
      .note = "several nodes, >= 64 KiB: leaders' pipelined chain, node broadcast through shared memory "
              "(emulated cluster 4x2: 0.20-0.25x Open MPI tuned, 0.40-0.45x HAN)" },
    { .coll = TOPOCOLL_REDUCE, .min_np = 4, .min_nodes = 2, .min_bytes = 256 * KiB, .real_nodes = 1,
      .candidates = { "h1_shm_chain4k", "h1_p2p_chain4k", NULL },
      .note = "several nodes, >= 256 KiB: node reduction through shared memory, leaders' pipelined chain "
              "(emulated cluster 4x2: 0.43-0.48x Open MPI tuned, 0.66-0.73x HAN)" },
    { ALLGATHER, .min_np = 4, .min_nodes = 2, .min_bytes = 256 * KiB, .real_nodes = 1,
      .candidates = { "twotier", NULL },
      .note = "several nodes, blocks >= 256 KiB: two-tier allgather (emulated cluster 4x2: 0.32-0.41x "
              "Open MPI tuned, 0.55-0.62x HAN)" },
    /* allreduce across nodes: the emulated cluster (4 hosts x 2 ranks, 1 Gbit/s links, TCP
     * cubic, Open MPI 4.1.4; results/cluster_4x2_tuned): node reduction through
     * shared memory, then the leaders' exchange.  Runs against Open MPI's tuned component and
     * against HAN, ratio to native:
     * - 2 - 32 KiB, one leader per node, recursive doubling: 0.83-0.98x tuned at 2-4 KiB and
     *   0.51-0.68x at 8-16 KiB (four to eight runs), 0.42-0.64x HAN.  Measured on the emulated
     *   cluster only, which is an oversubscribed machine (8 ranks on 2 cores), where the node
     *   phases' waits yield: oversubscribed machines only.  At 512 B it took 0.92-1.07x tuned
     *   (0.38-0.48x HAN), below no entry beat native beyond the noise (0.90-1.26x).
     * - 32 - 64 KiB, two leaders, recursive doubling: 0.50-0.61x tuned and HAN (six runs),
     *   where Rabenseifner took 0.62-0.86x.
     * - From 64 KiB, two leaders, Rabenseifner, each leader carrying half of the vector
     *   across (six runs): 0.70-1.06x tuned at 64-128 KiB, where tuned itself runs near the
     *   link bound, 0.82-0.92x at 256-512 KiB, 0.73-0.76x at 1 MiB, 0.64-0.68x at 2-4 MiB, at
     *   90-104 % of the link bound from 256 KiB; 0.33-0.47x HAN.  One leader per node was
     *   level or slower at every size (earlier runs over TCP BBR, whose pacing made
     *   exchanges of 128-256 KiB messages erratic, had favoured it at 512 KiB - 2 MiB);
     *   recursive doubling, which sends the whole vector every round, 1.1-1.5x tuned there.
     * From 32 KiB the links are the bottleneck whatever the load, so no load condition.
     * Commutative ops only (the entries decline the others, which then get native).  Real
     * nodes only: on a 16-core machine with the virtual topology 2x2x2 (no links between its
     * virtual nodes) the one-leader Rabenseifner entry took 1.60x native at 4 MiB. */
    { .coll = TOPOCOLL_ALLREDUCE, OVERSUB, .min_np = 4, .min_nodes = 2, .min_bytes = 2 * KiB, .max_bytes = 32 * KiB,
      .real_nodes = 1, .candidates = { "h1_shm_rd", "h2_shm_rd", NULL },
      .note = "several nodes, oversubscribed, 2 - 32 KiB: hierarchical, one leader per node, node "
              "reduction in shared memory, recursive doubling among the leaders (emulated cluster 4x2: "
              "0.51-0.98x Open MPI tuned, 0.42-0.64x HAN)" },
    { .coll = TOPOCOLL_ALLREDUCE, .min_np = 4, .min_nodes = 2, .min_bytes = 32 * KiB, .max_bytes = 64 * KiB,
      .real_nodes = 1, .candidates = { "h2_shm_rd", "h1_shm_rd", NULL },
      .note = "several nodes, 32 - 64 KiB: hierarchical, two leaders per node, node reduction in shared "
              "memory, recursive doubling among the leaders (emulated cluster 4x2: 0.50-0.61x Open MPI "
              "tuned and HAN)" },
    { .coll = TOPOCOLL_ALLREDUCE, .min_np = 4, .min_nodes = 2, .min_bytes = 64 * KiB, .max_bytes = 256 * KiB,
      .real_nodes = 1, .candidates = { "h2_shm_rsa", "h1_shm_rsa", NULL },
      .note = "several nodes, 64 - 256 KiB: hierarchical, two leaders per node, node reduction in shared "
              "memory, Rabenseifner among the leaders (emulated cluster 4x2: 0.64-1.06x Open MPI tuned, "
              "0.33-0.47x HAN)" },
    /* From 256 KiB: the same two leaders in a ring whose messages go in pieces of 32 KiB, under
     * the TCP transport's eager limit (no message waits for the receiver's answer behind the
     * loaded link).  Four runs (two against tuned, two with HAN raised), 4 hosts x 2 ranks:
     * h2_shm_ring32k 3.10-3.18 ms at 256 KiB, 6.40-6.64 at 512 KiB, 13.5-14.1 at 1 MiB,
     * 28.0-28.7 at 2 MiB, 57.4-59.5 at 4 MiB, against 3.18-3.37, 6.67-7.13, 13.8-14.3,
     * 28.2-29.1, 58.1-59.1 for h2_shm_rsa in the same runs: 90-108 % of the link bound; at
     * 64 KiB the ring took 1.2-1.5x Rabenseifner's time. */
    { .coll = TOPOCOLL_ALLREDUCE, .min_np = 4, .min_nodes = 2, .min_bytes = 256 * KiB, .real_nodes = 1,
      .candidates = { "h2_shm_ring32k", "h2_shm_rsa", "h1_shm_rsa", NULL },
      .note = "several nodes, >= 256 KiB: hierarchical, two leaders per node, node reduction in shared "
              "memory, ring among the leaders in pieces of 32 KiB (emulated cluster 4x2: 0.61-0.89x "
              "Open MPI tuned, 0.36-0.44x HAN, 90-108 % of the link bound)" },
    /* barrier, one node, np 2 without oversubscription: the flags' dissemination (one
     * release store and one acquire spin per rank, no message).  topocoll-bench --coll
     * barrier, np 2 bound to cores, two runs on the 2-core development machine (load
     * average 10 from other jobs): shm_flags 0.39-0.43x native (0.26-0.29 against
     * 0.66-0.68 us), hierarchical 0.50-0.51x, dissemination 0.52x.  Oversubscribed
     * (np 2 and 4, unbound, yielding) native was as fast or faster (shm_flags 0.99x at
     * np 2, 2.02x at np 4): no rule there. */
    { .coll = TOPOCOLL_BARRIER, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1,
      .candidates = { "shm_flags", NULL },
      .note = "one node, np 2: dissemination over node-shared flags (0.39-0.43x native on 2 cores)" },
    /* allgather, one node, np 2 without oversubscription, small blocks: the inline
     * shared-memory entry (sequence numbers inside the data's lines), topocoll-bench np 2
     * bound to cores, three runs on the 2-core development machine: 0.87-0.97x native at
     * 8-128 B, 0.66-0.67x at 512 B, 1.00-1.05x at 2 KiB; back-to-back 0.109 against
     * 0.141 us at 8 B and 0.123 against 0.244 us at 512 B */
    { ALLGATHER, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1, .max_bytes = 2 * KiB,
      .candidates = { "shm_inline", NULL },
      .note = "one node, np 2, < 2 KiB: inline shared-memory lines (0.87-0.97x native at 8-128 B, "
              "0.66-0.67x at 512 B)" },
    /* scan and exscan, one node, np 2 without oversubscription, small vectors: the inline
     * shared-memory lines (each rank folds the lines of the ranks below it).  topocoll-bench
     * np 2 bound to cores on the 2-core development machine (load average 10-12 from other
     * jobs), two runs of scan, one of exscan: scan 0.51-0.55x native at 8 B, 0.62-0.66x at
     * 512 B, 0.74-0.78x at 2 KiB; exscan 0.49x, 0.54x, 0.74x (docs/scan.md) */
    { .coll = TOPOCOLL_SCAN, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1, .max_bytes = 4 * KiB,
      .candidates = { "shm_inline", NULL },
      .note = "one node, np 2, < 4 KiB: inline shared-memory lines (0.51-0.78x native at 8 B - 2 KiB)" },
    { .coll = TOPOCOLL_EXSCAN, DEDICATED, .min_np = 2, .max_np = 2, .max_nodes = 1, .max_bytes = 4 * KiB,
      .candidates = { "shm_inline", NULL },
      .note = "one node, np 2, < 4 KiB: inline shared-memory lines (0.49-0.74x native at 8 B - 2 KiB)" },
    /* scan, exscan and reduce_scatter across nodes: the emulated cluster (4 hosts x 2 ranks,
     * 1 Gbit/s links, TCP cubic, Open MPI 4.1.4; results/cluster_4x2_newer), topocoll-bench
     * 8 B, 4 KiB and 256 KiB per rank, 3 repetitions, one run against Open MPI's tuned
     * component and one with HAN raised:
     * - scan, hierarchical (node-local scan through shared memory, the leaders' exclusive
     *   scan, the node fix-up): 0.70x, 0.82x, 0.85x tuned; 0.76x, 0.64x, 0.83x HAN;
     * - exscan, hierarchical: 0.65x, 0.63x, 0.90x tuned; 1.10x, 0.92x, 0.91x HAN;
     * - reduce_scatter, recursive halving: 0.82x, 0.65x, 0.87x tuned; 0.96x, 0.61x, 0.86x
     *   HAN (the hierarchical entry 0.90x, 0.62x, 0.97x and 1.13x, 0.61x, 0.96x).
     * Real nodes only: the node phases save link crossings, which virtual nodes do not have. */
    { .coll = TOPOCOLL_SCAN, .min_np = 4, .min_nodes = 2, .real_nodes = 1,
      .candidates = { "hierarchical", NULL },
      .note = "several nodes: hierarchical scan, node scan through shared memory, leaders' exclusive "
              "scan (emulated cluster 4x2: 0.70-0.85x Open MPI tuned, 0.64-0.83x HAN)" },
    { .coll = TOPOCOLL_EXSCAN, .min_np = 4, .min_nodes = 2, .real_nodes = 1,
      .candidates = { "hierarchical", NULL },
      .note = "several nodes: hierarchical exscan, node scan through shared memory, leaders' exclusive "
              "scan (emulated cluster 4x2: 0.63-0.90x Open MPI tuned, 0.91-1.10x HAN)" },
    { .coll = TOPOCOLL_REDUCE_SCATTER, .min_np = 4, .min_nodes = 2, .real_nodes = 1,
      .candidates = { "recursive_halving", "hierarchical", NULL },
      .note = "several nodes: recursive halving (emulated cluster 4x2: 0.65-0.87x Open MPI tuned, "
              "0.61-0.96x HAN)" },
    /* alltoall across nodes, small blocks: the emulated cluster (4 hosts x 2 ranks, 1 Gbit/s,
     * Open MPI 4.1.4, idle 2-core machine: 8 ranks on 2 cores, but each emulated host sees
     * both cores, so per-node detection calls it dedicated: no load condition),
     * topocoll-bench, two runs: h2_p2p 0.52-0.86x native from 8 B to 2 KiB, h1_p2p
     * 0.49-0.95x; from 4 KiB both lose (1.06-1.15x) and at 64 KiB all tie */
    /* alltoall across nodes on an oversubscribed machine (the emulated cluster: 8 or 6 ranks on
     * 2 cores, its hosts counted as the one machine they are, shared-memory waits that yield):
     * two leaders per node, node phases through node-shared memory.  topocoll-a2a-paper, the
     * paper's regular problem, mean of 200 after Tukey's filter, four runs on each of two
     * layouts (4 hosts x 2, and 2,1,2,1), world and permuted: h2_shm 0.37-0.85x native up
     * to 32 KiB total (p m, blocks up to 5.3 KiB), h1_shm 0.35-1.17x; at 64 KiB total
     * h2_shm took 0.64-0.95x with blocks of 8 KiB (4 x 2) but 0.77-1.18x with blocks of
     * 10.7 KiB (2,1,2,1), and under MPICH 4.0.2 (4 x 2, two runs) 1.31-1.65x with blocks of
     * 8 KiB where it took 0.34-0.67x up to 4 KiB blocks, so the rule ends below blocks of
     * 8 KiB (max_bytes is exclusive) */
    { .coll = TOPOCOLL_ALLTOALL, OVERSUB, .min_np = 4, .min_nodes = 2, .max_bytes = 8 * KiB, .real_nodes = 1,
      .candidates = { "h2_shm", "h1_shm", NULL },
      .note = "several nodes, oversubscribed, blocks below 8 KiB: hierarchical, two leaders per node, "
              "node phases through shared memory (emulated cluster, 4x2 and 2,1,2,1: 0.37-0.85x native "
              "up to 32 KiB total)" },
    { .coll = TOPOCOLL_ALLTOALL, .min_np = 4, .min_nodes = 2, .max_bytes = 4 * KiB, .real_nodes = 1,
      .candidates = { "h2_p2p", "h1_p2p", NULL },
      .note = "several nodes, blocks < 4 KiB: hierarchical, two leaders per node, point-to-point "
              "(emulated cluster 4x2: 0.52-0.86x native)" },
    /* alltoall across nodes, large blocks, where the links decide (any load): at most two
     * partners in flight per rank, blocks above 32 KiB in pieces of 32 KiB, under the TCP
     * transport's eager limit, so no message waits for the receiver's answer behind a loaded
     * link.  The emulated cluster (4 hosts x 2 ranks, 1 Gbit/s, TCP cubic, Open MPI 4.1.4,
     * idle machine), topocoll-bench -s 16K:1M -r 3, two runs against Open MPI's tuned alltoall
     * and two with HAN raised (HAN has no alltoall of its own): linear_w2_pieces32k 0.72-0.84x
     * native at 64 KiB, 0.55-0.73x from 128 KiB to 1 MiB at 97-102 % of the link bound (whole
     * blocks, linear_w2: 80-88 %); 0.91-1.01x at 32 KiB (where it sends whole blocks, as
     * linear_w2) and 0.94-1.09x at 16 KiB, so the rule starts at 32 KiB */
    { .coll = TOPOCOLL_ALLTOALL, .min_np = 4, .min_nodes = 2, .min_bytes = 32 * KiB, .real_nodes = 1,
      .candidates = { "linear_w2_pieces32k", "linear_w2", "pairwise", NULL },
      .note = "several nodes, blocks >= 32 KiB: direct exchange, two partners in flight per rank, "
              "pieces of 32 KiB (emulated cluster 4x2: 0.72-0.84x native at 64 KiB, 0.55-0.73x "
              "from 128 KiB at 97-102 % of the link bound)" },
};

static const tc_table table = { rules, (int)(sizeof rules / sizeof rules[0]), "built-in", NULL, 0 };

const tc_table *tc_default_table(void)
{
    return &table;
}
