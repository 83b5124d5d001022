/* The requests of nonblocking and persistent operations (see nb_requests.h). */
#define _GNU_SOURCE
#include "api/nb_requests.h"
#include "detect/comm_make.h"
#include "api/nb_areas.h"
#include "api/context.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/call.h"
#include "api/error.h"
#include "api/nb_usage.h"
#include "api/stats.h"
#include "core/thread_local.h"
#include "exec/backoff.h"

int tc_nb_interposed;

/* Tags on a channel (MPI guarantees tags up to 32767): a nonblocking
 * operation's is its start's number modulo TC_NB_TAGS, a persistent
 * request's TC_NB_TAGS + its init's number modulo TC_NB_PTAGS, kept for
 * all its starts. */
#define TC_NB_TAGS 16000
#define TC_NB_PTAGS 16000

static pthread_mutex_t lock;
static pthread_once_t lock_once = PTHREAD_ONCE_INIT;
static tc_nb_op *outstanding;     /* running operations */
static tc_nb_op *persistents;     /* persistent requests, active or not */
atomic_int tc_nb_live;            /* running operations + persistent requests (nb_requests.h) */
static atomic_int running_count;
static atomic_int persistent_count;   /* persistent requests (their lookups skipped while 0) */

/* Whether the lists need the lock: only where several threads may call MPI
 * at once (MPI_THREAD_MULTIPLE, which the progress thread also needs); below
 * that, MPI's calls come one at a time and the lock would cost two atomic
 * operations a look (a tenth of an 8-byte nonblocking allreduce). */
static int locking = 1;

static void lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);   /* a freed request's callback locks */
    pthread_mutex_init(&lock, &a);
    pthread_mutexattr_destroy(&a);
    int level = MPI_THREAD_MULTIPLE;
    if (PMPI_Query_thread(&level) == MPI_SUCCESS && level < MPI_THREAD_MULTIPLE) locking = 0;
}

static void take(void)
{
    pthread_once(&lock_once, lock_init);
    if (locking) pthread_mutex_lock(&lock);
}

static void give(void)
{
    if (locking) pthread_mutex_unlock(&lock);
}

/* Add d to a count that other threads read without the lock (lock held).
 * Where one thread at a time calls MPI (no lock), a plain load and store:
 * a locked add first waits for this rank's stores to node-shared memory
 * just made (a publication's lines, a done word) to reach the peers'
 * cores: after a persistent 512-byte bcast's lines it took a fifth of the
 * receiving rank's profile at np 2 (MPICH), and start and wait took
 * 0.004-0.035 us longer with it (on 0.16-0.60 us) in 10 of 11 launches. */
static void count_add(atomic_int *c, int d)
{
    if (locking) atomic_fetch_add(c, d);
    else atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + d, memory_order_release);
}

/* Looks at the operations before a waiting call gives the processor up:
 * where some communicator's ranks have a processing unit each
 * (tc_nb_channel_open), LOOKS_DEDICATED (about as long as the node-shared
 * memory's waits spin before their first yield: a yield is a system call,
 * and a peer's signal usually comes within microseconds), then a yield
 * every LOOKS_BETWEEN_YIELDS looks; otherwise a yield at every look, so
 * that the rank being waited for runs.  Where a busy process shares each
 * rank's core, every yield may hand the core to it for the rest of a time
 * slice: np 2 bound to cores beside two busy loops, MPI_Iallgather + wait
 * of 8 B took 23-86 us per call yielding after 512 looks and every 64th,
 * 0.77-0.82 us with these counts (the MPI library's own 0.82-1.10 us). */
static atomic_uint looks_before_yield = 64;
static atomic_uint looks_between_yields = 1;
#define LOOKS_DEDICATED 4096
#define LOOKS_BETWEEN_YIELDS 512

/* ---- channels --------------------------------------------------------------- */

tc_nb_channel *tc_nb_channel_open(MPI_Comm comm, int spin)
{
    if (spin) {
        atomic_store_explicit(&looks_before_yield, LOOKS_DEDICATED, memory_order_relaxed);
        atomic_store_explicit(&looks_between_yields, LOOKS_BETWEEN_YIELDS, memory_order_relaxed);
    }
    tc_nb_channel *ch = calloc(1, sizeof *ch);
    if (!ch) return NULL;
    if (tc_comm_dup(comm, &ch->comm) != MPI_SUCCESS) {
        free(ch);
        return NULL;
    }
    ch->refs = 1;
    return ch;
}

static void channel_drop(tc_nb_channel *ch, int finalizing)
{
    if (--ch->refs > 0) return;
    if (!finalizing && ch->comm != MPI_COMM_NULL) (void)PMPI_Comm_free(&ch->comm);
    free(ch);
}

void tc_nb_channel_release(tc_nb_channel *ch, int finalizing)
{
    if (!ch) return;
    take();
    channel_drop(ch, finalizing);
    give();
}

/* ---- operations ---------------------------------------------------------------- */

/* Freed operations kept for the next calls with their memory (schedule
 * arrays, scratch, requests): a start allocates nothing in the steady state. */
#define TC_NB_POOL 32
static tc_nb_op *pool;
static int pooled;

static void release_pending(void);

tc_nb_op *tc_nb_op_new(void)
{
    release_pending();
    take();
    tc_nb_op *op = pool;
    if (op) {
        pool = op->next;
        pooled--;
    }
    give();
    if (!op) {
        if (!(op = calloc(1, sizeof *op))) return NULL;
        tc_sched_init(&op->sched);
    }
    op->handle = MPI_REQUEST_NULL;
    op->user_comm = MPI_COMM_NULL;
    op->op = MPI_OP_NULL;
    op->inner = MPI_REQUEST_NULL;
    return op;
}

/* A pooled operation's fields as a new one's, field by field: the
 * executor's state is set by each start (tc_nb_exec_start), the schedule's
 * arrays and the workspace are kept, the bindings are set before each use,
 * and clearing the whole kilobyte costs a string store whose start-up alone
 * is a tenth of a small call. */
static void clear_for_reuse(tc_nb_op *op)
{
    op->next = op->pnext = NULL;
    op->op = MPI_OP_NULL;
    op->me = 0;
    op->ch = NULL;
    op->ch_held = 0;
    op->area = op->home = NULL;
    op->user_comm = MPI_COMM_NULL;
    op->handle = MPI_REQUEST_NULL;
    op->persistent = op->tag = op->running = op->active = op->detached = op->result = op->started = 0;
    op->owned = NULL;
    op->native_start = NULL;
    op->inner = MPI_REQUEST_NULL;
    op->stats_algo = NULL;
    op->stats_coll = op->stats_size = 0;
    op->stats_bytes = 0;
    op->stats_t0 = 0;
    op->usage_t0 = 0;
    op->usage_tests0 = 0;
    op->usage_coll = 0;
}

void tc_nb_op_free(tc_nb_op *op)
{
    if (!op) return;
    free(op->owned);
    take();
    tc_nb_area_put(op->area);
    tc_nb_area_put(op->home);
    if (op->ch && op->ch_held) channel_drop(op->ch, 0);
    if (pooled < TC_NB_POOL) {   /* kept: schedule arrays and workspace */
        clear_for_reuse(op);
        op->next = pool;
        pool = op;
        pooled++;
        op = NULL;
    }
    give();
    if (!op) return;
    tc_nb_exec_free(&op->ex);
    tc_sched_free(&op->sched);
    free(op);
}

/* The status of a completed collective: empty but for its error. */
static void status_empty(MPI_Status *st, int err)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = err;
    (void)PMPI_Status_set_elements(st, MPI_BYTE, 0);
    (void)PMPI_Status_set_cancelled(st, 0);
}

static int query_fn(void *extra, MPI_Status *st)
{
    tc_nb_op *op = extra;
    status_empty(st, op->result);
    return op->result;
}

/* Operations whose requests the MPI library freed, to be released under
 * the lock by the next progress or start: the library calls free_fn inside
 * its own critical section (MPICH with MPI_THREAD_MULTIPLE), where taking
 * topocoll's lock would deadlock with a thread that holds it and waits for
 * the library's. */
static _Atomic(tc_nb_op *) released;

static void release_pending(void)
{
    tc_nb_op *op = atomic_exchange_explicit(&released, NULL, memory_order_acquire);
    while (op) {
        tc_nb_op *next = op->next;
        tc_nb_op_free(op);
        op = next;
    }
}

/* The MPI library frees a completed request (wait, test, MPI_Request_free):
 * the operation is no longer outstanding by then. */
static int free_fn(void *extra)
{
    tc_nb_op *op = extra, *head = atomic_load_explicit(&released, memory_order_relaxed);
    do {
        op->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&released, &head, op, memory_order_release,
                                                    memory_order_relaxed));
    return MPI_SUCCESS;
}

/* Collective operations cannot be cancelled (MPI_Cancel is erroneous on
 * them: the interposer reports it on a running one; a finished one not yet
 * waited for reaches the MPI library, which gets the error here). */
static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_ERR_REQUEST;   /* a finished operation not yet waited for: erroneous all the same */
}

static void unlink_op(tc_nb_op **head, tc_nb_op *op, int persistent_list)
{
    for (tc_nb_op **p = head; *p; p = persistent_list ? &(*p)->pnext : &(*p)->next)
        if (*p == op) {
            *p = persistent_list ? op->pnext : op->next;
            return;
        }
}

/* Persistent requests freed so far: a thread's last lookup (persistent_of)
 * holds while none has been. */
static atomic_uint persistent_gen;

/* Free a persistent request that is not running (lock held). */
static void persistent_free(tc_nb_op *op)
{
    unlink_op(&persistents, op, 1);
    atomic_fetch_add_explicit(&persistent_gen, 1, memory_order_release);
    count_add(&persistent_count, -1);
    count_add(&tc_nb_live, -1);
    MPI_Request h = op->handle;
    (void)PMPI_Grequest_complete(h);
    (void)PMPI_Request_free(&h);   /* free_fn frees op */
}

/* The run summary keeps its names' addresses: "<entry> (nonblocking)" and
 * "(persistent)" made once per entry and kept (lock held). */
typedef struct stats_name { struct stats_name *next; const char *algo; int persistent; char text[64]; } stats_name;
static stats_name *stats_names;

static const char *summary_name(const char *algo, int persistent)
{
    stats_name *n = stats_names;
    while (n && !(n->algo == algo && n->persistent == persistent)) n = n->next;
    if (n) return n->text;
    if (!(n = malloc(sizeof *n))) return NULL;
    n->algo = algo;
    n->persistent = persistent;
    snprintf(n->text, sizeof n->text, "%s (%s)", algo, persistent ? "persistent" : "nonblocking");
    n->next = stats_names;
    stats_names = n;
    return n->text;
}

/* A run ended: the run summary counts it. */
static void count_run(const tc_nb_op *op)
{
    const char *name = summary_name(op->stats_algo, op->persistent);
    if (name)
        tc_stats_record((topocoll_coll)op->stats_coll, op->stats_size, name, op->stats_bytes,
                        tc_stats_now() - op->stats_t0);
}

/* op's schedule has run to its end (lock held). */
static void finish(tc_nb_op *op)
{
    if (op->stats_algo) count_run(op);
    unlink_op(&outstanding, op, 0);
    __atomic_store_n(&op->running, 0, __ATOMIC_RELEASE);
    count_add(&running_count, -1);
    op->result = tc_nb_exec_result(&op->ex);
    if (op->persistent) {
        if (op->detached) persistent_free(op);
        return;
    }
    count_add(&tc_nb_live, -1);
    MPI_Request h = op->handle;
    (void)PMPI_Grequest_complete(h);
    if (op->detached) (void)PMPI_Request_free(&h);   /* free_fn frees op */
}

/* A start the MPI library serves: done when its request is (lock held). */
static int native_done(tc_nb_op *op)
{
    int flag = 0;
    MPI_Status st;
    int rc = PMPI_Test(&op->inner, &flag, &st);
    if (rc != MPI_SUCCESS) {
        op->ex.err = rc;
        return 1;
    }
    return flag;
}

/* ---- how the application uses its calls (nb_usage.h) ---------------------------- */

/* Inside one of MPI's wait calls (this thread). */
static TC_THREAD_LOCAL int waiting;
/* The application's test calls (MPI_Test, its all/any/some forms,
 * MPI_Request_get_status), not those a wait makes. */
static atomic_uint user_tests;

void tc_nb_op_sample(tc_nb_op *op, int coll)
{
    op->usage_coll = coll + 1;   /* the sample begins when the call returns (tc_nb_op_sample_begin) */
}

/* A sampled call whose operation ended in its start (a root that only
 * sends, a receiver whose data was there): its sample ends at this
 * thread's next wait or test call, which the live count (raised by one
 * meanwhile) sends through here. */
static TC_THREAD_LOCAL struct {
    int coll;   /* + 1; 0: none */
    unsigned tests0;
    uint64_t t0;
} ended_at_start;

/* A sampled operation's call returns (lock held): the application's
 * computation begins. */
static void sample_begin(tc_nb_op *op)
{
    if (!op->usage_coll) return;
    unsigned tests = atomic_load_explicit(&user_tests, memory_order_relaxed);
    uint64_t now = tc_stats_now();
    if (!op->running) {
        if (!ended_at_start.coll) count_add(&tc_nb_live, 1);
        ended_at_start.coll = op->usage_coll;
        ended_at_start.tests0 = tests;
        ended_at_start.t0 = now;
        return;
    }
    op->usage_tests0 = tests;
    op->usage_t0 = now;
}

void tc_nb_op_sample_begin(tc_nb_op *op)
{
    take();
    sample_begin(op);
    give();
}

/* A call that ended at its start gives its sample: one of MPI's wait or
 * test calls begins. */
static void sample_pending_end(void)
{
    if (!ended_at_start.coll) return;
    tc_nb_usage_note(ended_at_start.coll - 1, tc_stats_now() - ended_at_start.t0,
                     atomic_load_explicit(&user_tests, memory_order_relaxed) - ended_at_start.tests0);
    ended_at_start.coll = 0;
    take();
    count_add(&tc_nb_live, -1);
    give();
}

/* One of MPI's test calls begins (the application's, where no wait makes it). */
static void test_begins(void)
{
    if (!waiting && !tc_nb_trial) atomic_fetch_add_explicit(&user_tests, 1, memory_order_relaxed);
    sample_pending_end();
}

/* One of MPI's wait calls begins; returns what to restore when it ends. */
static int wait_begins(void)
{
    int was = waiting;
    waiting = 1;
    sample_pending_end();
    return was;
}

/* A sampled operation reached by a wait, or ended: its sample. */
static void sample_end(tc_nb_op *op)
{
    tc_nb_usage_note(op->usage_coll - 1, tc_stats_now() - op->usage_t0,
                     atomic_load_explicit(&user_tests, memory_order_relaxed) - op->usage_tests0);
    op->usage_t0 = 0;
}

static int advance(tc_nb_op *op)
{
    int done = 0;
    if (op->usage_t0 && waiting) sample_end(op);   /* the wait begins */
    if (op->native_start) done = native_done(op);
    else (void)tc_nb_exec_progress(&op->ex, &done);
    if (op->usage_t0 && done) sample_end(op);
    if (done) finish(op);
    return done;
}

int tc_nb_running(void)
{
    return atomic_load_explicit(&running_count, memory_order_acquire);
}

int tc_nb_progress(void)
{
    if (atomic_load_explicit(&released, memory_order_relaxed)) release_pending();
    if (atomic_load_explicit(&running_count, memory_order_acquire) == 0) return 0;
    take();
    int left = 0;
    for (tc_nb_op *op = outstanding, *next; op; op = next) {
        next = op->next;
        if (!advance(op)) left++;
    }
    give();
    return left;
}

/* ---- the progress thread (TOPOCOLL_PROGRESS=thread) ------------------------------ */

static pthread_t progress_thread;
static atomic_int thread_state;   /* 0 not asked yet, 1 running, 2 not started, 3 stopping */
static int self_keyval = MPI_KEYVAL_INVALID;

/* While operations run: a pass, then a yield; once no operation has ended
 * for a millisecond (the peers are busy elsewhere), sleeps between passes
 * (backoff.h), so that the thread does not hold a processing unit the
 * application's threads need.  While none runs: 50 us sleeps. */
static void *progress_loop(void *unused)
{
    (void)unused;
    struct timespec idle = { 0, 50 * 1000 };
    tc_backoff b;
    tc_backoff_init(&b, 0, 1);
    int before = 0;
    while (atomic_load(&thread_state) == 1) {
        int left = tc_nb_progress();
        if (left == 0) {
            nanosleep(&idle, NULL);
        } else {
            if (left < before) tc_backoff_init(&b, 0, 1);   /* one ended: looks close again */
            tc_backoff_pause(&b);
        }
        before = left;
    }
    return NULL;
}

/* MPI_Finalize frees MPI_COMM_SELF's attributes first: the thread stops. */
static int stop_thread(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm; (void)key; (void)value; (void)extra;
    if (atomic_load(&thread_state) == 1) {
        atomic_store(&thread_state, 3);
        pthread_join(progress_thread, NULL);
    }
    return MPI_SUCCESS;
}

static void maybe_start_thread(void)
{
    int expected = 0;
    if (atomic_load(&thread_state) != 0) return;
    const char *v = getenv("TOPOCOLL_PROGRESS");
    if (!v || !*v || strcmp(v, "calls") == 0) {
        atomic_store(&thread_state, 2);
        return;
    }
    if (!atomic_compare_exchange_strong(&thread_state, &expected, 2)) return;
    if (strcmp(v, "thread") != 0) {
        fprintf(stderr, "topocoll: TOPOCOLL_PROGRESS='%s': expected 'calls' or 'thread'; "
                        "operations advance in MPI's wait and test calls\n", v);
        return;
    }
    int level = MPI_THREAD_SINGLE;
    if (PMPI_Query_thread(&level) != MPI_SUCCESS || level != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "topocoll: TOPOCOLL_PROGRESS=thread needs MPI_THREAD_MULTIPLE "
                        "(MPI_Init_thread); operations advance in MPI's wait and test calls\n");
        return;
    }
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stop_thread, &self_keyval, NULL) != MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL) != MPI_SUCCESS)
        return;
    atomic_store(&thread_state, 1);
    if (pthread_create(&progress_thread, NULL, progress_loop, NULL) != 0) atomic_store(&thread_state, 2);
}

/* ---- starting ---------------------------------------------------------------------- */

/* Start op's schedule (lock held): the channel's next tag. */
static int run_op(tc_nb_op *op)
{
    if (op->stats_algo) op->stats_t0 = tc_stats_now();
    tc_waiting_hook = tc_nb_progress;   /* blocking waits advance the operations from now on */
    int rc;
    if (op->native_start) {
        op->ex.err = op->ex.truncation = MPI_SUCCESS;
        rc = op->native_start(op, &op->inner);
    } else {
        int tag = op->persistent ? op->tag : (int)(op->ch->seq++ % TC_NB_TAGS);
        memcpy(op->ex.bind, op->user, sizeof op->user);
        rc = tc_nb_exec_start(&op->ex, &op->sched, op->ch->comm, op->me, tag, op->op,
                              op->area ? &op->area->shm : NULL, op->area ? op->area->node_idx : NULL,
                              op->home ? &op->gate : NULL, op->started);
    }
    if (rc != MPI_SUCCESS) return rc;
    op->started = op->persistent;   /* a persistent request's next starts keep this one's preparation */
    op->running = 1;
    op->next = outstanding;
    outstanding = op;
    count_add(&running_count, 1);
    if (op->native_start || !op->ex.local_due) (void)advance(op);   /* else: the local work waits for a test */
    return MPI_SUCCESS;
}

/* The operation holds its channel (lock held). */
static void hold_channel(tc_nb_op *op)
{
    if (!op->ch || op->ch_held) return;
    op->ch->refs++;
    op->ch_held = 1;
}

int tc_nb_launch(tc_nb_op *op, MPI_Request *request)
{
    maybe_start_thread();
    take();
    hold_channel(op);
    int rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, op, &op->handle);
    if (rc == MPI_SUCCESS) {
        count_add(&tc_nb_live, 1);
        *request = op->handle;   /* before the run: a run that ends at once completes it */
        rc = run_op(op);
        if (rc != MPI_SUCCESS) {   /* nothing posted: the request completes with the error */
            count_add(&tc_nb_live, -1);
            op->result = rc;
            (void)PMPI_Grequest_complete(op->handle);
            rc = MPI_SUCCESS;
        }
    }
    give();
    return rc;
}

int tc_nb_persistent(tc_nb_op *op, MPI_Request *request)
{
    take();
    hold_channel(op);
    int rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, op, &op->handle);
    if (rc == MPI_SUCCESS) {
        op->persistent = 1;
        if (op->ch) op->tag = TC_NB_TAGS + (int)(op->ch->pseq++ % TC_NB_PTAGS);
        op->pnext = persistents;
        persistents = op;
        count_add(&persistent_count, 1);
        count_add(&tc_nb_live, 1);
        *request = op->handle;
    }
    give();
    return rc;
}

/* ---- request lookups ------------------------------------------------------------- */

/* The persistent request of handle r, or NULL.  Each thread remembers its
 * last one (a start and its wait look up the same handle), valid while no
 * persistent request has been freed: only a free ends a request, and only
 * its holder frees it, so the remembered one cannot go meanwhile. */
static TC_THREAD_LOCAL struct { MPI_Request handle; tc_nb_op *op; unsigned gen; } last_persistent;

static tc_nb_op *persistent_of(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL || atomic_load_explicit(&persistent_count, memory_order_acquire) == 0) return NULL;
    unsigned gen = atomic_load_explicit(&persistent_gen, memory_order_acquire);
    if (last_persistent.op && last_persistent.handle == r && last_persistent.gen == gen) return last_persistent.op;
    take();
    tc_nb_op *op = persistents;
    while (op && op->handle != r) op = op->pnext;
    give();
    if (op) {
        last_persistent.handle = r;
        last_persistent.op = op;
        last_persistent.gen = gen;
    }
    return op;
}

static tc_nb_op *running_of(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL) return NULL;
    tc_nb_op *op = outstanding;
    while (op && op->handle != r) op = op->next;
    return op;
}

/* Is op's schedule still running?  (Set under the lock, read without it.) */
static int running(tc_nb_op *op)
{
    return __atomic_load_n(&op->running, __ATOMIC_ACQUIRE);
}

static int any_live(void) { return !tc_nb_none_live(); }

/* A waiting call's looks at requests that are not complete yet: after
 * looks_before_yield quick looks, every looks_between_yields-th gives the
 * processor up (a yield, then sleeps once the wait has lasted a
 * millisecond: backoff.h).  A waiter that only yields stays runnable, so
 * that where a busy process shares the cores the scheduler sees no idle
 * core to move it to, and the rank waited for may wait milliseconds for
 * its own; a sleeping waiter frees its core. */
static void waiter_init(tc_backoff *w)
{
    tc_backoff_init(w, (long)atomic_load_explicit(&looks_before_yield, memory_order_relaxed),
                    (long)atomic_load_explicit(&looks_between_yields, memory_order_relaxed));
}

/* A persistent request's state: 0 inactive, 1 running, 2 done and not yet
 * completed by a wait or test.  No lock: active changes only in the calls
 * of the request's holder (MPI: one thread at a time per request), running
 * is stored with release when the operation ends (finish), in any thread. */
static int persistent_state(tc_nb_op *op)
{
    return !op->active ? 0 : running(op) ? 1 : 2;
}

/* Complete a done persistent start: inactive, its status, its outcome. */
static int persistent_complete(tc_nb_op *op, MPI_Status *st)
{
    take();
    op->active = 0;
    int rc = op->result;
    give();
    status_empty(st, rc);
    return rc == MPI_SUCCESS ? rc : tc_raise_mpi(op->user_comm, rc, "MPI_Wait");
}

/* ---- MPI's request functions ----------------------------------------------------- */

static int wait_one(MPI_Request *r, MPI_Status *st)
{
    if (!any_live()) return PMPI_Wait(r, st);
    tc_nb_op *op = persistent_of(*r);
    tc_backoff w;
    waiter_init(&w);
    if (op) {
        int s;
        while ((s = persistent_state(op)) == 1) {
            tc_nb_progress();
            tc_backoff_pause(&w);
        }
        if (s == 0) {
            status_empty(st, MPI_SUCCESS);
            return MPI_SUCCESS;
        }
        return persistent_complete(op, st);
    }
    take();
    op = running_of(*r);
    give();
    if (op) {   /* one of topocoll's: advanced to its end, then the MPI library's wait completes it */
        while (running(op)) {
            tc_nb_progress();
            tc_backoff_pause(&w);
        }
        return PMPI_Wait(r, st);
    }
    for (;;) {
        int flag = 0;
        tc_nb_progress();
        int rc = PMPI_Test(r, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        tc_backoff_pause(&w);
    }
}

int tc_nb_wait(MPI_Request *r, MPI_Status *st)
{
    int was = wait_begins();
    int rc = wait_one(r, st);
    waiting = was;
    return rc;
}

int tc_nb_test(MPI_Request *r, int *flag, MPI_Status *st)
{
    if (!any_live()) return PMPI_Test(r, flag, st);
    test_begins();
    tc_nb_progress();
    tc_nb_op *op = persistent_of(*r);
    if (!op) return PMPI_Test(r, flag, st);
    int s = persistent_state(op);
    *flag = s != 1;
    if (s == 0) status_empty(st, MPI_SUCCESS);
    return s == 2 ? persistent_complete(op, st) : MPI_SUCCESS;
}

int tc_nb_get_status(MPI_Request r, int *flag, MPI_Status *st)
{
    if (!any_live()) return PMPI_Request_get_status(r, flag, st);
    test_begins();
    tc_nb_progress();
    tc_nb_op *op = persistent_of(r);
    if (!op) return PMPI_Request_get_status(r, flag, st);
    take();
    int s = !op->active ? 0 : op->running ? 1 : 2, res = op->result;
    give();
    *flag = s != 1;
    if (*flag) status_empty(st, s == 2 ? res : MPI_SUCCESS);
    return MPI_SUCCESS;
}

/* The persistent requests among r[0..n-1]: a copy of r with them replaced
 * by MPI_REQUEST_NULL (*copy, malloc'd) and their operations (ops[i], NULL
 * elsewhere); 0 when there are none (nothing allocated). */
static int split_persistent(int n, const MPI_Request r[], MPI_Request **copy, tc_nb_op ***ops)
{
    int k = 0;
    *copy = NULL;
    *ops = NULL;
    take();
    int have = persistents != NULL;
    give();
    if (!have) return 0;
    for (int i = 0; i < n; i++) {
        tc_nb_op *op = persistent_of(r[i]);
        if (!op) continue;
        if (!*copy) {
            *copy = malloc((size_t)n * sizeof **copy);
            *ops = calloc((size_t)n, sizeof **ops);
            if (!*copy || !*ops) {
                free(*copy);
                free(*ops);
                *copy = NULL;
                *ops = NULL;
                return -1;
            }
            memcpy(*copy, r, (size_t)n * sizeof **copy);
        }
        (*copy)[i] = MPI_REQUEST_NULL;
        (*ops)[i] = op;
        k++;
    }
    return k;
}

/* The copy's requests back into r (the MPI library may have freed some). */
static void merge_back(int n, MPI_Request r[], const MPI_Request copy[], tc_nb_op *const ops[])
{
    for (int i = 0; i < n; i++)
        if (!ops[i]) r[i] = copy[i];
}

static MPI_Status *status_at(MPI_Status st[], int i)
{
    return st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &st[i];
}

int tc_nb_testall(int n, MPI_Request r[], int *flag, MPI_Status st[])
{
    if (!any_live()) return PMPI_Testall(n, r, flag, st);
    test_begins();
    tc_nb_progress();
    MPI_Request *copy;
    tc_nb_op **ops;
    int k = split_persistent(n, r, &copy, &ops);
    if (k < 0) return MPI_ERR_NO_MEM;
    if (k == 0) return PMPI_Testall(n, r, flag, st);
    int rc = MPI_SUCCESS;
    *flag = 0;
    for (int i = 0; i < n; i++)
        if (ops[i] && persistent_state(ops[i]) == 1) goto out;   /* none completes */
    if ((rc = PMPI_Testall(n, copy, flag, st)) != MPI_SUCCESS || !*flag) goto out;
    merge_back(n, r, copy, ops);
    for (int i = 0; i < n; i++) {
        if (!ops[i]) continue;
        int e = persistent_state(ops[i]) == 2 ? persistent_complete(ops[i], status_at(st, i)) : MPI_SUCCESS;
        if (e == MPI_SUCCESS && persistent_state(ops[i]) == 0) status_empty(status_at(st, i), MPI_SUCCESS);
        if (e != MPI_SUCCESS && rc == MPI_SUCCESS) rc = e;
    }
out:
    free(copy);
    free(ops);
    return rc;
}

static int wait_all(int n, MPI_Request r[], MPI_Status st[])
{
    if (!any_live()) return PMPI_Waitall(n, r, st);
    tc_backoff w;
    waiter_init(&w);
    for (;;) {
        int flag = 0, rc = tc_nb_testall(n, r, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        tc_backoff_pause(&w);
    }
}

int tc_nb_waitall(int n, MPI_Request r[], MPI_Status st[])
{
    int was = wait_begins();
    int rc = wait_all(n, r, st);
    waiting = was;
    return rc;
}

int tc_nb_testany(int n, MPI_Request r[], int *idx, int *flag, MPI_Status *st)
{
    if (!any_live()) return PMPI_Testany(n, r, idx, flag, st);
    test_begins();
    tc_nb_progress();
    MPI_Request *copy;
    tc_nb_op **ops;
    int k = split_persistent(n, r, &copy, &ops);
    if (k < 0) return MPI_ERR_NO_MEM;
    if (k == 0) return PMPI_Testany(n, r, idx, flag, st);
    int rc = MPI_SUCCESS, active = 0;
    for (int i = 0; i < n; i++) {
        if (!ops[i]) continue;
        int s = persistent_state(ops[i]);
        if (s == 2) {
            *idx = i;
            *flag = 1;
            rc = persistent_complete(ops[i], st);
            goto out;
        }
        active += s == 1;
    }
    rc = PMPI_Testany(n, copy, idx, flag, st);
    if (rc == MPI_SUCCESS && *flag && *idx != MPI_UNDEFINED) r[*idx] = copy[*idx];
    else if (rc == MPI_SUCCESS && *flag && active) *flag = 0;   /* a persistent one is still running */
out:
    free(copy);
    free(ops);
    return rc;
}

static int wait_any(int n, MPI_Request r[], int *idx, MPI_Status *st)
{
    if (!any_live()) return PMPI_Waitany(n, r, idx, st);
    tc_backoff w;
    waiter_init(&w);
    for (;;) {
        int flag = 0, rc = tc_nb_testany(n, r, idx, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        tc_backoff_pause(&w);
    }
}

int tc_nb_waitany(int n, MPI_Request r[], int *idx, MPI_Status *st)
{
    int was = wait_begins();
    int rc = wait_any(n, r, idx, st);
    waiting = was;
    return rc;
}

int tc_nb_testsome(int n, MPI_Request r[], int *outcount, int idx[], MPI_Status st[])
{
    if (!any_live()) return PMPI_Testsome(n, r, outcount, idx, st);
    test_begins();
    tc_nb_progress();
    MPI_Request *copy;
    tc_nb_op **ops;
    int k = split_persistent(n, r, &copy, &ops);
    if (k < 0) return MPI_ERR_NO_MEM;
    if (k == 0) return PMPI_Testsome(n, r, outcount, idx, st);
    int rc = MPI_SUCCESS, done = 0, active = 0, more = 0;
    for (int i = 0; i < n; i++) {
        if (!ops[i]) continue;
        int s = persistent_state(ops[i]);
        active += s == 1;
        if (s != 2) continue;
        int e = persistent_complete(ops[i], status_at(st, done));
        if (e != MPI_SUCCESS && rc == MPI_SUCCESS) rc = e;
        idx[done++] = i;
    }
    int e = PMPI_Testsome(n, copy, &more, idx + done, st == MPI_STATUSES_IGNORE ? st : st + done);
    if (e != MPI_SUCCESS && rc == MPI_SUCCESS) rc = e;
    if (more == MPI_UNDEFINED) more = 0;
    for (int j = 0; j < more; j++) r[idx[done + j]] = copy[idx[done + j]];
    *outcount = done + more;
    if (*outcount == 0 && !active) {
        int all_null = 1;   /* no active request at all */
        for (int i = 0; i < n; i++)
            if (!ops[i] && copy[i] != MPI_REQUEST_NULL) all_null = 0;
        if (all_null) *outcount = MPI_UNDEFINED;
    }
    free(copy);
    free(ops);
    return rc;
}

static int wait_some(int n, MPI_Request r[], int *outcount, int idx[], MPI_Status st[])
{
    if (!any_live()) return PMPI_Waitsome(n, r, outcount, idx, st);
    tc_backoff w;
    waiter_init(&w);
    for (;;) {
        int rc = tc_nb_testsome(n, r, outcount, idx, st);
        if (rc != MPI_SUCCESS || *outcount != 0) return rc;
        tc_backoff_pause(&w);
    }
}

int tc_nb_waitsome(int n, MPI_Request r[], int *outcount, int idx[], MPI_Status st[])
{
    int was = wait_begins();
    int rc = wait_some(n, r, outcount, idx, st);
    waiting = was;
    return rc;
}

int tc_nb_request_free(MPI_Request *r)
{
    if (!any_live()) return PMPI_Request_free(r);
    take();
    tc_nb_op *op = persistent_of(*r);
    if (!op) op = running_of(*r);
    if (!op) {
        give();
        return PMPI_Request_free(r);
    }
    if (op->running) op->detached = 1;   /* freed when its schedule ends */
    else persistent_free(op);            /* (a non-persistent one is running: found above) */
    give();
    *r = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int tc_nb_cancel(MPI_Request *r)
{
    if (!any_live()) return PMPI_Cancel(r);
    take();
    tc_nb_op *op = persistent_of(*r);
    if (!op) op = running_of(*r);
    MPI_Comm comm = op ? op->user_comm : MPI_COMM_NULL;
    give();
    if (!op) return PMPI_Cancel(r);
    return tc_raise(comm, MPI_ERR_REQUEST, "MPI_Cancel: a collective operation cannot be cancelled");
}

static int start_one(MPI_Request *r)
{
    tc_nb_op *op = persistent_of(*r);
    if (!op) return PMPI_Start(r);
    take();
    int rc = MPI_SUCCESS;
    if (op->active) {
        give();
        return tc_raise(op->user_comm, MPI_ERR_REQUEST, "MPI_Start: the persistent collective is active");
    }
    op->active = 1;
    rc = run_op(op);
    if (rc != MPI_SUCCESS) {   /* nothing posted: this start completes with the error */
        op->result = rc;
        rc = MPI_SUCCESS;
    }
    give();
    return rc;
}

int tc_nb_start(MPI_Request *r)
{
    if (!any_live()) return PMPI_Start(r);
    maybe_start_thread();
    return start_one(r);
}

int tc_nb_startall(int n, MPI_Request r[])
{
    if (!any_live()) return PMPI_Startall(n, r);
    maybe_start_thread();
    for (int i = 0; i < n; i++) {
        int rc = start_one(&r[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int tc_nb_probe(int source, int tag, MPI_Comm comm, MPI_Status *st)
{
    tc_backoff w;
    waiter_init(&w);
    for (;;) {
        int flag = 0;
        tc_nb_progress();
        int rc = PMPI_Iprobe(source, tag, comm, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        tc_backoff_pause(&w);
    }
}
