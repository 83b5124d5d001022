/* Yield, then sleep, while waiting on node-shared memory (see backoff.h). */
#define _POSIX_C_SOURCE 200809L
#include "exec/backoff.h"

#include <sched.h>
#include <time.h>

#define YIELD_NS 1000000L       /* yield for a millisecond before sleeping */
#define SLEEP_FIRST_NS 1000L    /* the first sleep asked for */
#define SLEEP_MAX_NS 50000L     /* the longest sleep asked for */

static int64_t now_ns(void)
{
    struct timespec t;
    (void)clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void tc_backoff_init(tc_backoff *b, long spins, long every)
{
    b->polls = spins > 0 ? -spins : 0;
    b->every = every < 1 ? 1 : every;
    b->start_ns = 0;
    b->sleep_ns = 0;
}

static void sleep_step(tc_backoff *b)
{
    struct timespec d = { 0, b->sleep_ns };
    (void)nanosleep(&d, NULL);   /* interrupted: the caller polls again anyway */
    b->sleep_ns = b->sleep_ns * 2 > SLEEP_MAX_NS ? SLEEP_MAX_NS : b->sleep_ns * 2;
}

int (*tc_waiting_hook)(void);

/* A yield, or a sleep once the wait has lasted YIELD_NS. */
static void step(tc_backoff *b)
{
    if (b->sleep_ns > 0) {
        sleep_step(b);
        return;
    }
    int64_t t = now_ns();
    if (b->start_ns == 0) b->start_ns = t;
    else if (t - b->start_ns >= YIELD_NS) b->sleep_ns = SLEEP_FIRST_NS;
    (void)sched_yield();
}

/* Is this poll one that takes a step? */
static int step_due(tc_backoff *b)
{
    if (++b->polls < b->every) return 0;
    b->polls = 0;
    return 1;
}

void tc_backoff_poll(tc_backoff *b)
{
    if (!step_due(b)) return;
    if (tc_waiting_hook) (void)tc_waiting_hook();
    step(b);
}

void tc_backoff_pause(tc_backoff *b)
{
    if (step_due(b)) step(b);
}
