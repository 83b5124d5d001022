/*
 * How the application uses its nonblocking calls (nb_usage.c): the time
 * between a call and the first wait that reaches its request (the
 * computation it hides behind) and the test calls the application makes
 * meanwhile, sampled per collective over the process's communicators, so
 * that the nonblocking race (nb_race.c) times its candidates the way the
 * application runs them.
 *
 * Why.  A race that times a call and its wait back to back finds the
 * forms' pure times; an application that computes between the two without
 * testing sees only the part of a schedule its wait runs: a form whose
 * messages are all posted at the start (one round) hides behind the
 * computation, one of several rounds does not.  On the virtual 2 x 2 (4
 * ranks on 2 cores), an 8-byte MPI_Ibcast behind computation exposed 5.4 to
 * 9.7 times the MPI library's time with binomial, which the back-to-back
 * race preferred.
 */
#ifndef TC_API_NB_USAGE_H
#define TC_API_NB_USAGE_H

#include <stdint.h>

/* Below this gap a call's computation hides nothing worth timing (ns). */
#define TC_NB_USAGE_GAP_MIN 1000u
/* The race's computation per call, at most (ns): its cost is about 38 times
 * this per candidate. */
#define TC_NB_USAGE_GAP_MAX 1000000u
/* The race's test calls per call, at most. */
#define TC_NB_USAGE_TESTS_MAX 64u

/* What the samples say: the medians of the kept samples of the class most
 * of them have (none: samples 0). */
typedef struct tc_nb_usage {
    uint64_t gap_ns;   /* start to the first wait */
    unsigned tests;    /* the application's test calls in between */
    int samples;
} tc_nb_usage;

/* How a usage runs a call: 0 its wait follows at once (or nothing is
 * known), 1 computation without test calls, 2 computation with them. */
int tc_nb_usage_class(const tc_nb_usage *u);

/* One call's sample (any thread). */
void tc_nb_usage_note(int coll, uint64_t gap_ns, unsigned tests);
/* What coll's kept samples say. */
void tc_nb_usage_get(int coll, tc_nb_usage *u);
/* A race of coll timed usage class cls: the samples start again. */
void tc_nb_usage_raced(int coll, int cls);
/* Do coll's samples since its last race (enough of them) say a class that
 * hides more than the one that race timed?  Local. */
int tc_nb_usage_changed(int coll);

#endif
