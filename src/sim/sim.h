/*
 * The simulator engine: runs a catalog algorithm's generator for every rank
 * of a placement on a network, ONE RANK AT A TIME (a schedule is freed --
 * its buffers reused -- before the next rank's is built), routes every SEND
 * over the network's links and accumulates bytes per link, per tier and per
 * step (the round index of the sending rank's schedule), plus the bytes each
 * rank reduces.  From the loads, the bandwidth model of Jain, Lau, Kale,
 * "Collectives on Two-tier Direct Networks" (2012), section 3
 * (beta per byte on a link, gamma per reduced byte) gives two estimates:
 *
 *   total-load:   max over links of load x beta(tier)
 *                 + gamma x (reduced bytes of the busiest rank)
 *   step-by-step: sum over steps s of [ max over links of load_s x beta(tier)
 *                 + gamma x (reduced bytes of the busiest rank in step s) ]
 *
 * Bytes = element count x element size (one element size for all buffers).
 * Sends inside a node are counted but not routed (the paper ignores them).
 * Sends are aggregated per (source node, round, destination node) before
 * routing; the loads are those of routing every send (docs/simulator.md).
 * Cost: time O(total ops + routed flows x hops); memory O(links + nodes +
 * ranks (checks) + one schedule + steps x used links (bounded by a budget;
 * past it, the generators are re-run over windows of steps)).
 * No MPI anywhere in src/sim.
 */
#ifndef TC_SIM_SIM_H
#define TC_SIM_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "algo/catalog.h"
#include "sim/net.h"
#include "sim/place.h"

/* Sums of link loads (tier totals, routed bytes) can pass 2^64 where every
 * single load still fits in 64 bits: they are kept in 128 bits (gcc and
 * clang).  Every count kept in 64 bits (a link's load, a step's load, a
 * rank's bytes, the bytes sent by all ranks) is bounded by the bytes sent by
 * all ranks, which the engine sums in 128 bits and refuses past
 * TC_SIM_BYTES_MAX (the run fails with a message naming the limit). */
__extension__ typedef unsigned __int128 tc_u128;
#define TC_SIM_BYTES_MAX UINT64_MAX

/* Exact decimal of v in buf (40 bytes hold any value); returns buf. */
const char *tc_sim_u128_str(tc_u128 v, char *buf, size_t len);

struct tc_sim_progress;

typedef struct tc_sim_params {
    double bw[TC_NET_MAX_TIERS]; /* link bandwidth per tier, bytes per second */
    double gamma;                /* seconds per reduced byte */
    int esize;                   /* bytes per element, every buffer */
    int steps;                   /* compute the step-by-step estimate */
    int keep_steps;              /* keep the per-step table in the result */
    int keep_links;              /* keep every link's load in the result */
    int check;                   /* byte-conservation and routing checks */
    size_t step_mem;             /* bytes allowed for per-step loads */
    int chunk_ops;               /* ops a schedule holds before the engine consumes
                                    them (>= 2; 0: SIM_CHUNK_OPS); tests use 2 */
    int generic;                 /* run the generators even where an algorithm has a
                                    shift form (the fast path, sim/shift.c) */
    uint64_t mem_limit;          /* bytes the run may use (sim/memory.h); 0: no limit.
                                    Past it the run fails with the estimate and the
                                    option that lowers it; the per-step budget is
                                    lowered to what the limit leaves */
    /* Progress on long runs: called at most once a second once a run has
     * taken a second (NULL: silent). */
    void (*progress)(void *ctx, const struct tc_sim_progress *pg);
    void *progress_ctx;
} tc_sim_params;

/* Where a long run stands. */
typedef struct tc_sim_progress {
    const char *algo;            /* the algorithm's name */
    int pass;                    /* 1: the first pass; > 1: a re-run over a window of steps */
    int npass;                   /* passes known so far (1 during the first) */
    int rank, p;                 /* ranks done of p in this pass */
    double elapsed_s;            /* since the run started */
    double left_s;               /* estimate for what is left (negative: unknown) */
} tc_sim_progress;

/* Defaults: 10 GB/s (1e10 B/s) on every tier, gamma 0.25 ns per byte
 * (4 GB/s of reduction per core), 1-byte elements, step estimate on,
 * 4 GiB for per-step loads, no checks, no memory limit, no progress. */
void tc_sim_params_default(tc_sim_params *prm);

typedef struct tc_sim_tier {
    int64_t links;               /* links of the tier */
    int64_t used;                /* links with traffic */
    uint64_t min, max;           /* bytes over used links (min 0 when none used) */
    tc_u128 total;               /* their sum (can pass 2^64) */
    double t_load;               /* max x beta */
    double t_steps;              /* sum over steps of this tier's step max x beta */
} tc_sim_tier;

typedef struct tc_sim_step {
    int64_t messages;            /* SENDs of this round, all ranks */
    uint64_t bytes;              /* their bytes */
    uint64_t max[TC_NET_MAX_TIERS]; /* busiest link of each tier in this step */
    uint64_t reduced;            /* busiest rank's reduced bytes in this step */
    double t;                    /* step time */
} tc_sim_step;

typedef enum { TC_SIM_OK = 0, TC_SIM_DECLINED = 1, TC_SIM_ERROR = 2 } tc_sim_status;

typedef struct tc_sim_result {
    tc_sim_status status;
    char msg[400];               /* why declined / failed; check failures */
    int p;                       /* ranks */
    int rounds;                  /* most rounds of any rank (= steps) */
    int64_t ops;                 /* operations generated, all ranks */
    int64_t messages;            /* SENDs */
    int64_t net_messages;        /* SENDs between different nodes */
    int64_t flows;               /* routes taken: the bytes of consecutive ranks of one node
                                    to one node in one round (in all rounds without the
                                    step estimate) are routed once */
    uint64_t bytes;              /* bytes sent */
    uint64_t intra_bytes;        /* of which inside a node */
    tc_u128 routed;              /* sum over links of load (= sum of hops x bytes) */
    uint64_t sent_max;           /* most bytes sent by one rank */
    uint64_t reduced_max;        /* most bytes reduced by one rank */
    int reduced_rank;            /* that rank (-1 when nothing is reduced) */
    uint64_t reduced_total;
    int ntiers;
    tc_sim_tier tier[TC_NET_MAX_TIERS];
    double t_load;               /* total-load estimate, seconds */
    int t_load_tier;             /* the tier that bounds it */
    double t_steps;              /* step-by-step estimate (negative when not computed) */
    int step_passes;             /* generator runs for the step loads (1 = one pass) */
    int nsteps;                  /* entries of steps (keep_steps) */
    tc_sim_step *steps;          /* keep_steps: one entry per round index */
    uint64_t *link_load;         /* keep_links: [nlinks] */
    int checked;                 /* checks ran */
    int64_t check_items;         /* conditions verified */
    double wall_s;               /* time spent in tc_sim_run, wall clock */
    double cpu_s;                /* ... and processor time (clock()) */
} tc_sim_result;

/* The prototype arguments of a collective for the simulator: p ranks, the
 * MPI count argument = bytes / esize for both buffers (scount = rcount),
 * root.  Returns 0, or -1 with one line in err. */
int tc_sim_proto(tc_args *a, topocoll_coll coll, int p, int64_t bytes, int esize, int root,
                 char *err, size_t errlen);

/* Simulates al.  The result is filled in every case (status, msg);
 * release it with tc_sim_result_free. */
tc_sim_status tc_sim_run(const tc_algo *al, const tc_args *proto, const tc_net *net,
                         const tc_sim_place *pl, const tc_sim_params *prm, tc_sim_result *res);
void tc_sim_result_free(tc_sim_result *res);

#endif
