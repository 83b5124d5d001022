/*
 * How the application uses its nonblocking calls (see nb_usage.h).
 *
 * Steps: the nonblocking calls that count towards a key's race, and every
 * TC_NB_USAGE_EVERY-th call after it (nb_race.h), mark their operation;
 * the sample begins when the call returns to the application and ends at
 * the operation's first progress pass inside one of MPI's wait calls, or
 * at its end, whichever comes first (a call that ended in its start: at
 * the thread's next wait or test call): the time in between and the test
 * calls the application made (nb_requests.c).  The last TC_NB_USAGE_KEEP
 * samples of each collective are kept; the race reads the medians of those
 * of the class most of them have, and a later check compares the samples
 * since the race with the class it timed: a class that hides more
 * (computation where the race had none, test calls where it had none)
 * races again; one that hides less does not (an application that
 * alternates, as a benchmark's pure and overlapped phases do, keeps the
 * choice for its overlapped calls, where it matters most).
 * Cost: two clock reads and a lock per sampled call; memory: a few hundred
 * bytes per collective.
 */
#include "api/nb_usage.h"

#include <pthread.h>
#include <stdlib.h>

#include "topocoll_types.h"

#define TC_NB_USAGE_KEEP 9   /* odd: a median is a sample */
/* Samples since a race before its class is compared. */
#define TC_NB_USAGE_ENOUGH 5

typedef struct usage_store {
    uint64_t gap[TC_NB_USAGE_KEEP];
    unsigned tests[TC_NB_USAGE_KEEP];
    unsigned n, next;   /* kept samples, the next slot */
    int raced;          /* 1 + the class the last race timed (0: no race yet) */
} usage_store;

static usage_store store[TOPOCOLL_NCOLL];
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;

/* The class of a computation of gap ns with tests test calls. */
static int class_of(uint64_t gap, unsigned tests)
{
    if (gap < TC_NB_USAGE_GAP_MIN) return 0;
    return tests == 0 ? 1 : 2;
}

int tc_nb_usage_class(const tc_nb_usage *u)
{
    return u->samples == 0 ? 0 : class_of(u->gap_ns, u->tests);
}

void tc_nb_usage_note(int coll, uint64_t gap_ns, unsigned tests)
{
    if (coll < 0 || coll >= TOPOCOLL_NCOLL) return;
    pthread_mutex_lock(&store_lock);
    usage_store *s = &store[coll];
    s->gap[s->next] = gap_ns;
    s->tests[s->next] = tests;
    s->next = (s->next + 1) % TC_NB_USAGE_KEEP;
    if (s->n < TC_NB_USAGE_KEEP) s->n++;
    pthread_mutex_unlock(&store_lock);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_uint(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* What s's samples say (lock held): the class most of them have (a tie:
 * the one that hides more), and the medians of that class's samples, so
 * that calls of two kinds (waited at once, or behind computation) do not
 * mix into a usage that neither has. */
static void medians(const usage_store *s, tc_nb_usage *u)
{
    uint64_t g[TC_NB_USAGE_KEEP];
    unsigned t[TC_NB_USAGE_KEEP], count[3] = { 0, 0, 0 }, n = 0;
    u->samples = (int)s->n;
    u->gap_ns = 0;
    u->tests = 0;
    if (s->n == 0) return;
    for (unsigned i = 0; i < s->n; i++) count[class_of(s->gap[i], s->tests[i])]++;
    int cls = 0;
    for (int k = 1; k < 3; k++)
        if (count[k] >= count[cls]) cls = k;
    for (unsigned i = 0; i < s->n; i++)
        if (class_of(s->gap[i], s->tests[i]) == cls) {
            g[n] = s->gap[i];
            t[n++] = s->tests[i];
        }
    qsort(g, n, sizeof g[0], cmp_u64);
    qsort(t, n, sizeof t[0], cmp_uint);
    u->gap_ns = g[n / 2];
    u->tests = t[n / 2];
}

void tc_nb_usage_get(int coll, tc_nb_usage *u)
{
    u->samples = 0;
    u->gap_ns = 0;
    u->tests = 0;
    if (coll < 0 || coll >= TOPOCOLL_NCOLL) return;
    pthread_mutex_lock(&store_lock);
    medians(&store[coll], u);
    pthread_mutex_unlock(&store_lock);
}

void tc_nb_usage_raced(int coll, int cls)
{
    if (coll < 0 || coll >= TOPOCOLL_NCOLL) return;
    pthread_mutex_lock(&store_lock);
    usage_store *s = &store[coll];
    s->raced = cls + 1;
    s->n = s->next = 0;
    pthread_mutex_unlock(&store_lock);
}

int tc_nb_usage_changed(int coll)
{
    if (coll < 0 || coll >= TOPOCOLL_NCOLL) return 0;
    pthread_mutex_lock(&store_lock);
    usage_store *s = &store[coll];
    tc_nb_usage u;
    medians(s, &u);
    int changed = s->raced && u.samples >= TC_NB_USAGE_ENOUGH && tc_nb_usage_class(&u) > s->raced - 1;
    pthread_mutex_unlock(&store_lock);
    return changed;
}
