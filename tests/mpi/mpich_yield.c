/*
 * Preloaded into the ranks of the MPICH tests (TOPOCOLL_MPIEXEC_FLAGS in
 * tests/CMakeLists.txt): a rank that waits gives up its processing unit
 * whenever a pass of MPICH's progress engine found nothing to do.
 *
 * MPICH 4.0 (ch4:ucx, as Debian builds it) busy-polls and has no setting
 * to yield (MPIR_CVAR_POLLS_BEFORE_YIELD changes nothing).  With more ranks than
 * processing units (np 3 on a 2-core machine) a rank waiting for a
 * descheduled peer spins out its time slice, so every round of a
 * collective cost milliseconds and each np 3 run took 15 to 60 s (the
 * quick allgather matrix: 15 s, with this 0.6 s).  Every pass
 * of the progress engine calls UCX's ucp_worker_progress, which returns 0
 * when it progressed nothing: this wraps it and then calls sched_yield, as
 * Open MPI does with mpi_yield_when_idle (which its test runs set).  Only
 * the scheduling changes, never what a rank computes or in which order its
 * messages match.  Programs without UCX never call it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

typedef unsigned (*progress_fn)(void *worker);

static progress_fn real_progress;

__attribute__((constructor)) static void find_progress(void)
{
    real_progress = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
}

/* ucp_worker_progress(ucp_worker_h): non-zero when it progressed anything.
 * Exported whatever the build's default visibility (hidden here), or the
 * preload would interpose nothing. */
__attribute__((visibility("default"))) unsigned ucp_worker_progress(void *worker);
__attribute__((visibility("default"))) unsigned ucp_worker_progress(void *worker)
{
    if (!real_progress) find_progress();   /* UCX loaded after start-up (dlopen) */
    unsigned n = real_progress(worker);
    if (n == 0) sched_yield();
    return n;
}
