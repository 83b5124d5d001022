/* A watchdog for the MPI test programs: a case that hangs ends the process
 * (exit status 3) with a line naming the case, instead of waiting for the
 * test's time limit.  tc_watchdog_init() once, then tc_watch() before each
 * case (it rearms the alarm). */
#ifndef TC_TEST_WATCHDOG_H
#define TC_TEST_WATCHDOG_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char tc_watch_line[256];
static size_t tc_watch_len;

static void tc_watch_alarm(int sig)
{
    (void)sig;
    if (write(STDERR_FILENO, tc_watch_line, tc_watch_len) < 0) { /* nothing to do */ }
    _exit(3);
}

static inline void tc_watchdog_init(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tc_watch_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
}

/* The case `what` of world rank `rank` starts: at most `seconds` from now. */
static inline void tc_watch(int rank, unsigned seconds, const char *what)
{
    int n = snprintf(tc_watch_line, sizeof tc_watch_line, "rank %d: TIMEOUT after %u s (a hang) in %s\n", rank,
                     seconds, what);
    tc_watch_len = n < 0 ? 0 : (size_t)n >= sizeof tc_watch_line ? sizeof tc_watch_line - 1 : (size_t)n;
    alarm(seconds);
}

#endif
