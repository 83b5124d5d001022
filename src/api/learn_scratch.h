/*
 * Learning on scratch buffers: what a persistent init (learn_at_init.c)
 * and the nonblocking calls' race (nb_race.c) share.  A call's record is
 * copied with zeroed scratch buffers in the place of the user's (every
 * predefined reduction of zeros is exact and raises no floating-point
 * flag), blocking calls of its shape on them settle its key's learner, and
 * the nonblocking or persistent forms of the key's fastest entries are
 * timed on them, the times agreed by one reduction.
 */
#ifndef TC_API_LEARN_SCRATCH_H
#define TC_API_LEARN_SCRATCH_H

#include "api/call.h"
#include "api/nb_usage.h"
#include "core/fp_env.h"

/* The largest scratch buffer (bytes). */
#define TC_SCRATCH_MAX ((int64_t)16 << 20)

typedef struct tc_scratch {
    tc_call call;    /* the record with the scratch buffers, its checks not yet made */
    void *mem[2];    /* the buffers (NULL: none) */
    tc_fp_saved fp;  /* the caller's floating-point environment, held from begin to free */
} tc_scratch;

/* May the checked call c learn on scratch buffers (learning on for its
 * collective, one count per rank, a predefined op, equal signatures, p x
 * its bytes within TC_SCRATCH_MAX)?  Local; the same on every rank of a
 * correct program. */
int tc_scratch_eligible(const tc_call *c);
/* Collective over the context: the key's learner made where it had none
 * (tc_learn_prepare), and s the scratch record of the checked call c (its
 * significant buffers replaced by zeroed memory of p times the larger count
 * of their datatypes, MPI_IN_PLACE and insignificant arguments kept), where
 * every rank's call is eligible and got its memory (one reduction, MIN).
 * 0 where some rank's did not: nothing to free, the keys as they were.
 * From a successful begin to tc_scratch_free the caller's floating-point
 * environment is held (core/fp_env.h): the calls on scratch buffers are
 * the library's own, and the MPI library may raise flags in them (MPICH
 * over UCX raised inexact in the connection set-up of the first large
 * message between two ranks, which a trial sent). */
int tc_scratch_begin(tc_ctx *x, const tc_call *c, const tc_args *a, tc_scratch *s);
/* The buffers freed, the caller's floating-point environment back. */
void tc_scratch_free(tc_scratch *s);
/* Blocking calls of the scratch record, by selection and left out of the
 * run summary, until the key of c (args a) settles or max calls ran, its
 * patience and gauge skipped; returns the calls run.  Collective: every
 * rank leaves at the same call (the learner decides at call indices). */
int tc_scratch_settle(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_scratch *s, int max);
/* Races cand[0..n) (n <= TC_SCRATCH_RACE_MAX) in the form asked
 * on the scratch record: persistent, a request made once and started and
 * waited; else a nonblocking call by name and its wait, each time (the
 * MPI library's own, "native": its nonblocking collective).  u: how the
 * application runs its calls (nb_usage.h; NULL: back to back, on every
 * rank alike): the computation between a call and its wait (at most
 * TC_NB_USAGE_GAP_MAX; this rank's own, 0 where it waits at once), the
 * test calls spread in it, a barrier before each call (so u must be NULL
 * on every rank or on none), and a call's time is then the time in MPI
 * only (its start, tests and wait), what the computation does not hide.
 * The candidates run in turn, 2 untimed rounds then 4 blocks of 8; a
 * candidate's time is its least block, agreed by one reduction (MAX over
 * the ranks); a later candidate wins only where it is more than a tenth
 * faster, and among those within a tenth of the winner the fewest
 * schedule rounds win (tc_learn_race_pick).  a: c's arguments.  Into
 * out: what was timed and the winner (n 0 and no winner where the race
 * could not run; no winner where none could be timed).  Collective. */
#define TC_SCRATCH_RACE_MAX 5
/* What a race timed: its candidates in order, their agreed times (of a
 * block of calls; TC_RACE_UNTIMED or above: not timed) and schedule rounds
 * (TC_RACE_ROUNDS_UNKNOWN: not known), and the winner (NULL: none). */
typedef struct tc_race_result {
    int n;
    const tc_algo *cand[TC_SCRATCH_RACE_MAX];
    uint64_t ns[TC_SCRATCH_RACE_MAX], rounds[TC_SCRATCH_RACE_MAX];
    const tc_algo *winner;
} tc_race_result;
void tc_scratch_race(tc_ctx *x, const tc_call *c, const tc_args *a, const tc_scratch *s, const tc_algo *const *cand,
                     int n, int persistent, const tc_nb_usage *u, tc_race_result *out);

/* TOPOCOLL_EXPLAIN: one line for what learned on scratch (what: "persistent
 * init" or "nonblocking race"; form: the forms raced; u: the usage they were
 * timed with, NULL: back to back), naming r's winner and, where a race ran
 * (r->n > 0), each candidate's time and rounds. */
void tc_scratch_explain(tc_ctx *x, const tc_call *c, const char *what, const char *form, int calls, int settled,
                        const tc_nb_usage *u, const tc_race_result *r);

#endif
