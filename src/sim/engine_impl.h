/*
 * Engine state shared by engine.c (the passes), check.c (conservation and
 * routing checks) and model.c (statistics and estimates).  Internal.
 */
#ifndef TC_SIM_ENGINE_IMPL_H
#define TC_SIM_ENGINE_IMPL_H

#include "sim/sim.h"
#include "sim/steps.h"

/* Check state (only with prm->check): per-rank byte sums and a multiset
 * hash of (source, destination, bytes) over sends and over receives. */
typedef struct sim_check {
    uint64_t *sent_to;      /* [p] bytes sent to r by everybody */
    uint64_t *recv_from;    /* [p] bytes everybody expects from r */
    uint64_t *sent_own;     /* [p] bytes r sends */
    uint64_t *recv_own;     /* [p] bytes r expects */
    uint64_t hash_send, hash_recv;
    int64_t nsend, nrecv;
    tc_u128 hops_bytes;     /* sum over flows of hops x bytes */
    uint64_t flow_bytes;    /* sum over flows of bytes */
    int failed;
} sim_check;

typedef struct sim_flow {
    int32_t round, dst;
    uint64_t bytes;
} sim_flow;

/* What one rank's consumed rounds add up to. */
typedef struct rank_sums {
    int64_t msgs, netm;
    tc_u128 bytes;          /* exact: checked against TC_SIM_BYTES_MAX */
    uint64_t intra, red;
} rank_sums;

/* What one round of it adds up to (consumed in pieces when a drain splits it). */
typedef struct round_sums {
    int64_t msgs, netm;
    tc_u128 bytes;          /* exact */
    uint64_t intra, rd;
} round_sums;

/* Ops the reused schedule holds before it is drained (14 KiB of tc_op:
 * generation and scan stay in the first-level caches). */
#define SIM_CHUNK_OPS 256

typedef struct sim_eng {
    const tc_algo *al;
    tc_args args;
    const tc_net *net;
    const tc_sim_place *pl;
    const tc_sim_params *prm;
    tc_sim_result *res;
    tc_sched s;             /* the one schedule (buffers and hooks reused: tc_sched_reset) */
    int pass;               /* 0: everything; > 0: step windows only */
    uint64_t *load;         /* [nlinks] */
    uint64_t *agg;          /* [nnodes] bytes of this round to each node */
    int *touched;           /* [nnodes] nodes with agg != 0 */
    int ntouched;           /* entries of touched */
    int agg_src;            /* node the aggregates leave from */
    int cur_rank;           /* the rank being generated */
    rank_sums cur_sum;      /* its closed rounds */
    round_sums open;        /* its open round, consumed so far */
    int open_d0;            /* its first destination node and bytes (scan_state) */
    uint64_t open_b0;
    /* with the step estimate: bytes of the current source node per (round,
     * destination node), routed when the node changes: two slots per round
     * (rounds rb_lo .. rb_hi-1 in use), the rest in an open-addressing table */
    sim_flow *rb;           /* [2 * st_cap], bytes == 0: empty */
    int rb_lo, rb_hi;
    sim_flow *ftab;         /* [fcap], bytes == 0: empty */
    int32_t *fused;         /* [fcap] occupied slots, in insertion order */
    uint32_t fcap, fn;
    /* per round index */
    int st_cap;
    int64_t *st_msgs;
    uint64_t *st_bytes, *st_red;
    uint64_t *st_max;       /* [st_cap * TC_NET_MAX_TIERS] */
    sim_steps sl;
    sim_check ck;
    tc_u128 sent_all;       /* bytes sent by all ranks, exact (first pass) */
    uint64_t mem_fixed;     /* estimated bytes besides per-step data (sim/memory.h) */
    double t0, t_report;    /* run start; last progress line (0: none yet) */
    unsigned drains;        /* drains since the last look at the clock */
    int npass_left;
    int rounds_prefix;      /* shift form: steps the prefix pass recorded */
    int *rank_rounds;       /* [p] when set: rounds of each rank's schedule (first pass) */         /* re-runs over windows of steps (known after the first pass) */
} sim_eng;

/* engine.c */
int eng_fail(sim_eng *e, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

int eng_grow_rounds(sim_eng *e, int n);
int eng_run_pass(sim_eng *e);             /* every rank's schedule, in rank order */   /* per-round arrays (step estimate) cover 0 .. n-1 */

/* shift.c: the shift-form fast path; 1 when it ran (0: use the generator
 * passes; -1: failed, e->res says why). */
int shift_run(sim_eng *e);

/* check.c */
int check_init(sim_eng *e);
void check_free(sim_eng *e);
void check_path(sim_eng *e, int src, int dst, const int32_t *links, int nh, uint64_t bytes);
void check_pair(sim_eng *e, int from, int to, uint64_t bytes, int is_send);
void check_finish(sim_eng *e);
void check_step_sums(sim_eng *e, const uint64_t *colsum);

/* model.c */
void model_tiers(sim_eng *e);
void model_step_max(sim_eng *e, int lo, int hi, uint64_t *colsum);
void model_estimates(sim_eng *e);
void model_fill_steps(sim_eng *e);

#endif
