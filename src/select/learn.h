/*
 * Learning during the run: the learner's state machine and its
 * process-wide record of outcomes.  MPI-free: the MPI layer
 * (src/api/learn_call.c) times the runs, carries the one reduction that
 * agrees on the timings and hooks the learner into the call path and the
 * fast path; everything that decides lives here and is unit-tested alone.
 *
 * Key.  One learner per communicator (context), collective, size class and
 * op class.  The size class is the bit length of the call's bytes per rank
 * (a class holds [2^(k-1), 2^k) bytes); alltoallv, whose selection bytes
 * differ between ranks (tc_select_size_per_rank), has one class for the
 * communicator.  The op class (reductions only) tells a predefined op from
 * a user op, a commutative from a non-commutative one, and the element
 * size: all the same on every rank by MPI's rules.  Roots and MPI_IN_PLACE
 * are not in the key: a candidate that declines a call is skipped for that
 * call (the default choice serves it, uncounted).
 *
 * Schedule.  Every rank makes the same calls on a communicator, so a per-key
 * call counter is the same on all ranks, and every step below happens at a
 * call index, never at a time.  Candidates run in blocks of consecutive
 * calls, round-robin: a block's first `warmup` calls are not timed (they
 * absorb the schedule's making, the shared windows, and what the previous
 * candidate left unfinished at other ranks), its next `block` calls are,
 * and the block's sample is their mean.  Blocks, not single calls, and
 * means, not medians of calls: an entry whose calls return early at some
 * ranks (a root that publishes and leaves) pays at its next call, which a
 * block of consecutive calls sees and a median of single calls does not.
 * Round 1 gives each candidate `round1` blocks; at the round's end each
 * rank starts one reduction (MAX over the ranks of each candidate's least
 * block mean: other work on the machine only adds time to a block, and a
 * collective is as slow as its slowest rank) and
 * waits for it `lag` calls later, while the best choice known so far
 * serves.  Candidates slower than
 * `race` times the best are dropped (racing); the survivors run round 2
 * (`round2` timed calls each), a second reduction, and every rank takes the
 * same winner (ties: the earlier candidate) at the same call.  Only the run
 * is timed, not the selection or the call path, so candidates compare
 * fairly.
 *
 * Settled.  The winner serves on the fast path.  Every `check` calls (128,
 * doubling up to `check_max`) `check_block` calls of the winner are timed
 * on the full path; after `check_samples` such blocks a reduction agrees
 * on the winner's re-checked median, and when it exceeds `drift` times the agreed winner time the key
 * explores again.  So drift too is decided from agreed numbers, at an
 * agreed call.
 *
 * Patience.  A key's first `patience` calls (TOPOCOLL_LEARN_PATIENCE) are
 * served by the selection table's choice, on the fast path: the learner only
 * counts them (no candidates made, nothing timed, no reduction, nothing
 * published); the call of index `patience` makes the candidates
 * (tc_learn_begin) and learning starts there.  A key called a few dozen
 * times in a run cannot win back what exploring costs; one called more than
 * `patience` times spends `patience` table-served calls before the usual
 * schedule.  The count is a call index, the same on every rank.
 *
 * Worth it.  Exploring has a cost of its own: the candidates' schedules and
 * node-shared windows (about a millisecond on a node) and the slower
 * candidates' calls (about `explore_calls` calls of the key's time).  A key
 * whose calls are short and few never wins that back: 128 calls of a 0.5 us
 * allreduce take 64 us in all, and exploring them took 2 ms.  So where
 * `payback` is set, the call of index `patience` does not begin learning
 * but gauges: it times `block` calls of the table's choice (on the full
 * path), agrees on their mean t with one reduction (MAX over the ranks,
 * waited `lag` calls later), and learning begins only where the time the
 * key's calls have taken so far, calls x t, reaches payback x (explore_setup_s
 * + explore_calls x t): the calls so far predict the calls to come, and the
 * gain a candidate brings (10 to 40 % of a call) must win the cost back
 * several times.  Otherwise the key stays patient up to the call count
 * where that would hold (at least twice the calls so far) and gauges again
 * there.  Every number is agreed or a call index: every rank decides alike.
 *
 * Warm start.  A preloaded outcome (tc_learn_preload) whose winner is a
 * candidate is agreed on first (one reduction carrying each rank's choice:
 * the files may differ between ranks); if every rank names the same winner
 * the key settles on it without exploring, else it explores.
 *
 * Cost.  With 6 candidates, blocks of 1 + 4 calls, 2 blocks per candidate
 * and round, lag 4, a key explores for 60 + 4 + (survivors x 10) + 4
 * calls, about 90 with 2 survivors; a loop of 10^4 calls spends the excess of the
 * slower candidates over those calls (under 1 % unless a candidate is an
 * order of magnitude slower) plus 2 full-path calls per re-check.  All of
 * it after the patience: a key's first `patience` calls cost what the
 * table's choice costs, a counter on the fast path included.
 */
#ifndef TC_SELECT_LEARN_H
#define TC_SELECT_LEARN_H

#include <stdint.h>

#include "algo/catalog.h"
#include "topocoll_types.h"

/* ---- the process-wide record of outcomes ---------------------------------- */

typedef struct tc_learn_outcome {
    topocoll_coll coll;
    int np, nnodes, ppn;            /* communicator shape (ppn: largest node) */
    int64_t min_bytes, max_bytes;   /* the size class [min, max) */
    int op_class;                   /* 0: any; else tc_learn_op_class's value */
    const char *winner;             /* catalog name (static storage) */
    double winner_s, native_s;      /* median seconds per call, agreed over ranks (0: unknown) */
    int ntried;
    const char *tried[8];
    double tried_s[8];              /* < 0: dropped early (racing), its agreed time negated */
    double explore_s;               /* time spent exploring beyond the winner's time */
    uint64_t calls;
    int from_file;                  /* warm start from TOPOCOLL_LEARN_FILE */
} tc_learn_outcome;

/* Snapshot of every outcome so far (this process); returns count (at most
 * max written; the total when out is NULL). */
int tc_learn_outcomes(tc_learn_outcome *out, int max);
/* Warm start: outcomes read from a file, consulted before exploring a key
 * (their names are copied: the caller's strings need not outlive the call;
 * a winner not in the catalog is ignored then). */
void tc_learn_preload(const tc_learn_outcome *in, int n);
/* The preloaded outcome for a key, or NULL. */
const tc_learn_outcome *tc_learn_preloaded(topocoll_coll coll, int np, int nnodes, int ppn, int64_t bytes,
                                           int op_class);
/* Record (or replace: same shape, collective, class) an outcome. */
void tc_learn_publish(const tc_learn_outcome *o);
/* Forget everything (MPI_Finalize; tests). */
void tc_learn_reset(void);

/* ---- keys ----------------------------------------------------------------- */

/* The size class of bytes (0 for 0 bytes; k: [2^(k-1), 2^k)); -1 for a
 * collective whose selection size differs between ranks (one class). */
int tc_learn_size_class(topocoll_coll coll, int64_t bytes);
/* The bytes [min, max) of a class (class -1: [0, INT64_MAX)). */
void tc_learn_class_bounds(int cls, int64_t *min_bytes, int64_t *max_bytes);
/* The op class of a call: 0 for a collective that does not reduce, else
 * 1 + predefined op (0/1) * 2 + commutative (0/1) + 4 * log2 of the element
 * size (capped at 15).  Every input is the same on every rank. */
int tc_learn_op_class(int reduction, int predefined_op, int commutative, int elem_size);

/* ---- the state machine ---------------------------------------------------- */

enum { TC_LEARN_MAX_CAND = 6, TC_LEARN_MAX_SAMPLES = 16 };
/* The reduction's length (doubles, MAX over ranks). */
enum { TC_LEARN_NRED = TC_LEARN_MAX_CAND + 2 };

typedef struct tc_learn_params {
    int warmup;        /* untimed first calls of every block */
    int block;         /* timed calls of a block (consecutive calls of one candidate) */
    int round1, round2;/* blocks per candidate per round */
    int lag;           /* calls between starting a reduction and waiting for it */
    double race;       /* after round 1: drop candidates slower than race x best */
    int check, check_max;     /* re-check interval, doubling up to check_max */
    int check_block;   /* timed calls of a re-check block (no warm-up: the winner ran just before) */
    int check_samples; /* re-check blocks per agreement */
    double drift;      /* re-explore when the re-checked median exceeds drift x winner */
    /* Native's benefit of the doubt: another candidate wins only where
     * native_margin x its time + native_path_s is below native's time: a
     * tie within the noise keeps the MPI library's own collective, and
     * native settled goes through the pass-through, a schedule through the
     * fast path's checks, which the timed run leaves out.  Those checks
     * cost less than the full path's schedule lookup that the timed run
     * includes (np 2 barrier: shm_flags timed 0.215-0.223 us by the
     * learner, 0.200-0.208 us a whole call on the fast path), so the
     * absolute part is small: 0.02 us. */
    double native_margin, native_path_s;
    /* calls served by the table before a key starts learning (0: from the
     * first call; the run's value: TOPOCOLL_LEARN_PATIENCE) */
    int patience;
    /* learning begins at a patience's end only where calls so far x the
     * agreed time per call reaches payback x (explore_setup_s +
     * explore_calls x that time); 0: always (the file's comment) */
    double payback, explore_setup_s, explore_calls;
} tc_learn_params;

/* The defaults (see the file's comment). */
tc_learn_params tc_learn_default_params(void);

typedef enum {
    TC_LEARN_PRELOAD = 0,  /* agreeing on a preloaded winner */
    TC_LEARN_ROUND1,
    TC_LEARN_ROUND2,
    TC_LEARN_SETTLED,
    TC_LEARN_PATIENT,      /* the table serves; no candidates yet (tc_learn_init_patient) */
    TC_LEARN_GAUGE         /* patient, timing the table's choice: is learning worth it? */
} tc_learn_phase;

typedef struct tc_learner {
    topocoll_coll coll;
    int size_class, op_class;
    tc_learn_params prm;
    int ncand;
    const tc_algo *cand[TC_LEARN_MAX_CAND];
    int native;                          /* index of native among cand (-1: none) */
    tc_learn_phase phase;
    uint64_t calls;                      /* index of the next call of this key */
    uint64_t phase_start;                /* the call the phase's schedule starts at */
    int alive[TC_LEARN_MAX_CAND];        /* in this round */
    int order[TC_LEARN_MAX_CAND], nalive;/* the round's candidates, in order */
    double samp[TC_LEARN_MAX_CAND][TC_LEARN_MAX_SAMPLES];   /* per block: the sum of its timings */
    int scnt[TC_LEARN_MAX_CAND][TC_LEARN_MAX_SAMPLES];      /* and their count */
    int cur_block;                       /* the block of the call planned last */
    double agreed[TC_LEARN_MAX_CAND];    /* last agreed time; < 0 dropped (negated); 0 untried */
    int best;                            /* best so far by agreed times (-1: none yet) */
    int pending;                         /* a reduction is in flight */
    uint64_t wait_at;                    /* the call that waits for it */
    double send[TC_LEARN_NRED];          /* this rank's values for the reduction */
    int winner;                          /* settled: index in cand; -1 otherwise */
    double winner_s;
    int preload;                         /* candidate named by the preloaded outcome (-1: none) */
    int from_file;
    uint64_t next_check;                 /* settled: the next re-check call */
    int check_every;
    double check[TC_LEARN_MAX_SAMPLES];  /* re-check blocks' mean times */
    int ncheck;
    double check_sum;                    /* the re-check block under way */
    int check_cnt;
    int explorations;                    /* how many times it explored */
    double explore_time;                 /* local seconds over the exploring calls */
    uint64_t explore_calls;
    double explore_s;                    /* explore_time beyond the winner's time, last settled */
    double gauge_sum;                    /* gauging: this rank's timings of the table's choice */
    int gauge_cnt;
    double gauged_s;                     /* the last agreed time per call of the table's choice (0: none) */
} tc_learner;

/* The call count at which learning pays for itself (the file's comment)
 * for a call time of t seconds. */
double tc_learn_worth_calls(const tc_learn_params *prm, double t);

/* A fresh learner: candidates cand[0..n) (at most TC_LEARN_MAX_CAND kept;
 * the caller puts native among them), preload: index of a preloaded winner
 * among them or -1. */
void tc_learn_init(tc_learner *l, topocoll_coll coll, int size_class, int op_class, const tc_algo *const *cand,
                   int n, int preload, const tc_learn_params *prm);

/* A learner that waits: its first prm->patience calls (>= 1) are the
 * table's; then tc_learn_next's plan says begin. */
void tc_learn_init_patient(tc_learner *l, topocoll_coll coll, int size_class, int op_class,
                           const tc_learn_params *prm);
/* The patience is over (plan.begin): the candidates, as tc_learn_init's;
 * the call count goes on. */
void tc_learn_begin(tc_learner *l, const tc_algo *const *cand, int n, int preload);

/* What to do at the call of index l->calls. */
typedef struct tc_learn_plan {
    int finish;    /* wait for the pending reduction, then tc_learn_agreed, then plan again */
    int start;     /* start the reduction of l->send (MAX over ranks) before running */
    int cand;      /* candidate to run; -1: the default choice (or best so far: see run) */
    int timed;     /* time the run and tc_learn_record it */
    int exploring; /* the call belongs to an exploration (its time counts to its cost) */
    int fast;      /* settled, no re-check due: the fast path may serve the next calls */
    int begin;     /* patient no more: tc_learn_begin with the candidates, then plan again */
} tc_learn_plan;

tc_learn_plan tc_learn_next(tc_learner *l);
/* A timing of candidate k (seconds, this rank). */
void tc_learn_record(tc_learner *l, int k, double seconds);
/* The reduction's result (MAX over ranks of l->send at its start). */
void tc_learn_agreed(tc_learner *l, const double *agreed);
/* The call is done (exploring: its local seconds, for the cost). */
void tc_learn_done(tc_learner *l, int exploring, double seconds);
/* Settled, no reduction in flight, no re-check at this call (or patient):
 * the next call runs the winner (the table's choice) untimed (the learner does no floating-point
 * arithmetic for it). */
int tc_learn_quiet(const tc_learner *l);
/* Settled with no re-check before call index l->next_check, or patient:
 * how many more calls the fast path may serve before the full path must
 * see one. */
uint64_t tc_learn_fast_calls(const tc_learner *l);
/* The outcome of a settled learner (names from its candidates). */
void tc_learn_outcome_of(const tc_learner *l, int np, int nnodes, int ppn, tc_learn_outcome *o);
/* The median of v[0..n) (sorted in place); 0 for n 0. */
double tc_learn_median(double *v, int n);

/* A race of forms (nonblocking or persistent calls timed on scratch
 * buffers, src/api/learn_scratch.h): candidate k, in the learner's order
 * (fastest blocking first), took ns[k] nanoseconds, agreed over the ranks
 * (TC_RACE_UNTIMED or above: not timed), and its schedule has rounds[k]
 * rounds (TC_RACE_ROUNDS_UNKNOWN: the MPI library's own, whose rounds are
 * not known).  The winner:
 *   1. the earliest candidate, replaced by a later one only where that one
 *      is more than a tenth faster (a pure call and wait decides nothing
 *      within the noise, and the learner's order stands);
 *   2. among the candidates within a tenth of that winner's time, the one
 *      with the fewest rounds, where the winner's rounds are known: a
 *      nonblocking form advances a round per progress call at best (a
 *      round's messages must complete before the next is posted), so in an
 *      application that computes between its test calls, fewer rounds
 *      finish sooner; among equal rounds the winner of step 1 stays, else
 *      the earlier candidate.
 * Returns its index, -1 where none was timed. */
#define TC_RACE_UNTIMED (UINT64_MAX - 1)
#define TC_RACE_ROUNDS_UNKNOWN UINT64_MAX
int tc_learn_race_pick(const uint64_t *ns, const uint64_t *rounds, int n);

#endif
