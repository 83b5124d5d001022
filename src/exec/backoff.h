/*
 * Waiting for another process of the node once spinning has gone on long
 * enough: yield the processor, and when the wait outlasts YIELD_NS (about a
 * millisecond, hundreds of times what a signal between running ranks
 * takes), sleep in steps growing from about a microsecond to SLEEP_MAX_NS,
 * so that a waiting rank never holds a processing unit for long that the
 * rank it waits for, or another process, needs.
 *
 * A yield alone does not free the processor: with nothing else runnable
 * it returns at once, and where a busy process shares the core the
 * scheduler may run the yielder again before the rank it waits for.  A
 * sleep takes the waiter off the run queue.  Its cost is latency: the
 * waiter sees the signal when the sleep ends (the kernel's timer slack,
 * 50 us by default, comes on top), which after a wait of a millisecond or
 * more adds at most a few per cent.
 *
 * Usage: tc_backoff_init once per wait, then tc_backoff_poll after every
 * poll that found nothing; after the first `spins` polls (the wait's
 * spinning), every `every` polls it takes one step (a yield, or a sleep
 * once the wait has lasted).  No MPI, no allocation.
 */
#ifndef TC_EXEC_BACKOFF_H
#define TC_EXEC_BACKOFF_H

#include <stdint.h>

typedef struct tc_backoff {
    long polls;        /* polls since the last step (negative: spins left) */
    long every;        /* polls per step (>= 1) */
    int64_t start_ns;  /* monotonic time of the first step, 0 before it */
    long sleep_ns;     /* the next sleep (0: still yielding) */
} tc_backoff;

/* spins: polls before the first `every` are counted (a wait's spinning,
 * 0: none); every: polls between steps (1: a step after every poll). */
void tc_backoff_init(tc_backoff *b, long spins, long every);
/* After a poll that found nothing. */
void tc_backoff_poll(tc_backoff *b);
/* The same without tc_waiting_hook: for waits that advance the other
 * operations themselves at every poll. */
void tc_backoff_pause(tc_backoff *b);

/* Called, when set, while a blocking wait of topocoll's finds nothing (the
 * executor's message waits, every step of a backoff): advances other
 * operations (the outstanding nonblocking ones, which a blocking call must
 * not starve: a peer may wait for them before it can answer this call).
 * Returns how many are outstanding. */
extern int (*tc_waiting_hook)(void);

#endif
