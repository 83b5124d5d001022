/*
 * Fortran entry points of the LD_PRELOAD interposer.
 *
 * Whether a preloaded C interposer sees a Fortran program's MPI calls
 * depends on the MPI library (nm -D and objdump -d of Debian's packages):
 *
 *   MPICH 4.0 (libmpichfort.so): mpif.h and `use mpi` (mpi_allgather_,
 *     mpi_iallgather_ ..., mpi_wait_, mpi_test_, mpi_waitall_, mpi_waitany_,
 *     mpi_waitsome_, mpi_testall_, mpi_testany_, mpi_testsome_,
 *     mpi_request_free_, mpi_cancel_, mpi_start_, mpi_startall_,
 *     mpi_request_get_status_) and `use mpi_f08`'s procedures with buffers
 *     (mpi_allgather_f08ts_, mpi_iallgather_f08ts_ ..., through its C
 *     descriptor layer) call the C MPI_Allgather, MPI_Iallgather, MPI_Wait
 *     ... through the PLT, after turning the Fortran MPI_IN_PLACE /
 *     MPI_BOTTOM / MPI_STATUS_IGNORE into the C ones: the C wrappers of
 *     pmpi.c see those calls already, and wrapping their Fortran names too
 *     would count each call twice.  `use mpi_f08`'s procedures without a
 *     buffer call the PMPI_ functions directly (no descriptor layer):
 *     mpi_barrier_f08_, mpi_ibarrier_f08_, mpi_barrier_init_f08_ and every
 *     request function (mpi_wait_f08_ ... mpi_request_get_status_f08_).
 *     Those f08 names are defined here.  The persistent collectives of
 *     MPI 4 (mpi_allreduce_init_, mpi_allreduce_init_f08ts_ ...) call the C
 *     MPI_Allreduce_init ... through the PLT, like the others.  The f08
 *     procedures take their arguments by reference, the optional ierror
 *     NULL when absent; a handle is a derived type whose only member is the
 *     integer handle, which is MPICH's C handle; type(MPI_Status) has the C
 *     MPI_Status's layout, and MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE are
 *     the objects MPI_F08_STATUS_IGNORE / MPI_F08_STATUSES_IGNORE point to.
 *     (MPICH 4.0's own mpi_testany_ and mpi_waitany_ return MPI_UNDEFINED
 *     + 1 when no request is active; its f08 ones and these do not.)
 *   Open MPI 4.1: the Fortran bindings call PMPI_ functions directly.
 *     mpif.h and `use mpi` (ignore-TKR module) call mpi_allgather_ (also
 *     exported as mpi_allgather, mpi_allgather__, MPI_ALLGATHER and
 *     MPI_Allgather_f08, one function in libmpi_mpifh.so); `use mpi_f08`
 *     calls mpi_allgather_f08_ (libmpi_usempif08.so), which passes the
 *     arguments straight on to libmpi_mpifh's ompi_allgather_f: buffers as
 *     addresses, every other argument by reference (a handle is a
 *     derived type whose only member is the integer handle; an array of
 *     handles is an array of integers), the optional ierror as NULL when
 *     absent, no hidden arguments (no character arguments).  So one C
 *     function per MPI function serves all six names.  The same holds for
 *     the nonblocking collectives (mpi_iallgather_ ..., the request last
 *     before ierror) and the request functions (mpi_wait_, mpi_test_,
 *     mpi_waitall_, mpi_waitany_, mpi_waitsome_, mpi_testall_,
 *     mpi_testany_, mpi_testsome_, mpi_request_free_, mpi_cancel_,
 *     mpi_start_, mpi_startall_, mpi_request_get_status_: mpi_wait_f08_
 *     passes type(MPI_Status) as the integer status array, whose layout it
 *     shares; mpi_request_get_status_f08_ calls pmpi_request_get_status_).
 *     MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE
 *     are the addresses of the common blocks mpi_fortran_in_place_,
 *     mpi_fortran_bottom_, mpi_fortran_status_ignore_ and
 *     mpi_fortran_statuses_ignore_ (mpif-sentinels.h; the f08 module binds
 *     to the same symbols); defined by the program itself (common blocks),
 *     libmpi.so and the Fortran libraries, all references resolve to the
 *     first definition, as Open MPI's own do.
 *
 * Each wrapper converts the handles (MPI_*_f2c), the sentinels, calls the
 * C MPI_ function (pmpi.c's, so coverage and the run summary are decided in
 * one place; a function pmpi.c does not wrap goes to the MPI library) and
 * converts back: the request (MPI_Request_c2f: MPI_REQUEST_NULL once a
 * wait or test freed it), statuses (MPI_Status_c2f, unless ignored),
 * indices (1-based in Fortran; MPI_UNDEFINED unchanged), flags (a
 * LOGICAL: 1 is .true. for gfortran, which both libraries are built with)
 * and ierror.  The MPI library's own pmpi_ Fortran names stay untouched.
 *
 * MPI_INIT and MPI_INIT_THREAD: Open MPI's bindings and MPICH's mpi_f08
 * ones call PMPI_Init; the names defined here call pmpi.c's MPI_Init, so
 * that MPI_COMM_WORLD's context is made there as for a C program (MPICH's
 * mpif.h and `use mpi` ones call MPI_Init through the PLT already).
 *
 * MPI_Ialltoallw's datatype arrays are C arrays made here from the Fortran
 * handles; MPI lets the operation read them until it completes, so they are
 * kept until a wait or test here sees the request freed (or MPI_Request_free
 * frees a completed one; one freed while active keeps them to the end).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The collectives with Fortran entry points: every row of the list
 * (include/topocoll_colls.h), by its shape below. */
#include "topocoll_colls.h"

#if defined(OPEN_MPI) && OPEN_MPI
#define TC_F_OPEN_MPI 1
#elif defined(MPI_VERSION) && MPI_VERSION >= 4
#define TC_F_MPICH_F08 1   /* MPICH 4: MPI_F08_STATUS_IGNORE */
#endif

/* The MPI_Request functions Fortran reaches here: lower, UPPER, Mpi. */
#define TC_F_REQUEST_FUNCTIONS(X)                                                                  \
    X(wait, WAIT, Wait)                                                                            \
    X(test, TEST, Test)                                                                            \
    X(waitall, WAITALL, Waitall)                                                                   \
    X(waitany, WAITANY, Waitany)                                                                   \
    X(waitsome, WAITSOME, Waitsome)                                                                \
    X(testall, TESTALL, Testall)                                                                   \
    X(testany, TESTANY, Testany)                                                                   \
    X(testsome, TESTSOME, Testsome)                                                                \
    X(request_free, REQUEST_FREE, Request_free)                                                    \
    X(cancel, CANCEL, Cancel)                                                                      \
    X(start, START, Start)                                                                         \
    X(startall, STARTALL, Startall)                                                                \
    X(request_get_status, REQUEST_GET_STATUS, Request_get_status)

#if defined(TC_F_OPEN_MPI) || defined(TC_F_MPICH_F08)

static void set_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror) *ierror = (MPI_Fint)rc;
}

/* A Fortran LOGICAL of default kind: gfortran's .true. is 1. */
static void set_flag(MPI_Fint *flag, int c_flag)
{
    *flag = (MPI_Fint)(c_flag != 0);
}

/* A Fortran status is MPI_Fint[sizeof(MPI_Status) / sizeof(MPI_Fint)]
 * (MPI_STATUS_SIZE: 6 in Open MPI 4.1, 5 in MPICH 4). */
_Static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a Fortran status is whole MPI_Fints");
#define TC_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))

/* Count, displacement and index arrays pass through: a Fortran default
 * integer is a C int on every platform these libraries are built for here. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint arrays are passed as int arrays");

/* MPI_INIT and MPI_INIT_THREAD where the binding calls PMPI_Init (Open
 * MPI's, MPICH's f08): pmpi.c's MPI_Init, which makes MPI_COMM_WORLD's
 * context while every rank is there, as for a C program; no command line,
 * as the bindings pass. */
void tc_fortran_init(MPI_Fint *ierror);
void tc_fortran_init(MPI_Fint *ierror)
{
    int argc = 0;
    char **argv = NULL;
    set_ierror(ierror, MPI_Init(&argc, &argv));
}
void tc_fortran_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);
void tc_fortran_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    int argc = 0, c_provided = MPI_THREAD_SINGLE;
    char **argv = NULL;
    int rc = MPI_Init_thread(&argc, &argv, (int)*required, &c_provided);
    if (rc == MPI_SUCCESS) *provided = (MPI_Fint)c_provided;
    set_ierror(ierror, rc);
}

#endif

#if defined(TC_F_OPEN_MPI)

/* The sentinels' common blocks (weak: a C program without Fortran may have
 * none, then no address matches). */
extern MPI_Fint mpi_fortran_in_place_ __attribute__((weak));
extern MPI_Fint mpi_fortran_bottom_ __attribute__((weak));
extern MPI_Fint mpi_fortran_status_ignore_ __attribute__((weak));
extern MPI_Fint mpi_fortran_statuses_ignore_ __attribute__((weak));

static int status_ignored(const MPI_Fint *f)
{
    return !f || f == &mpi_fortran_status_ignore_;
}

static int statuses_ignored(const MPI_Fint *f)
{
    return !f || f == &mpi_fortran_statuses_ignore_;
}

static void status_out(const MPI_Status *c, MPI_Fint *f)
{
    if (!status_ignored(f)) (void)PMPI_Status_c2f(c, f);
}

static void *c_buffer(void *f)
{
    if (f && f == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
    if (f && f == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
    return f;
}

#elif defined(TC_F_MPICH_F08)

/* MPICH's f08 status objects: type(MPI_Status) is the C MPI_Status. */
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPICH's f08 status is the C status");

/* The f08 module binds MPI_STATUS_IGNORE to the object (libmpichfort.so
 * and libmpich.so both define it: all references resolve to the first);
 * MPI_F08_STATUS_IGNORE points to it from libmpich.so. */
static int status_ignored(const MPI_Fint *f)
{
    const void *p = f;
    return !f || p == (const void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ || p == (const void *)MPI_F08_STATUS_IGNORE;
}

static int statuses_ignored(const MPI_Fint *f)
{
    const void *p = f;
    return !f || p == (const void *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ || p == (const void *)MPI_F08_STATUSES_IGNORE;
}

static void status_out(const MPI_Status *c, MPI_Fint *f)
{
    if (!status_ignored(f)) memcpy(f, c, sizeof *c);
}

#endif

#if defined(TC_F_OPEN_MPI) || defined(TC_F_MPICH_F08)

/* ---- datatype arrays kept until their operation completes ---- */

typedef struct tc_f_kept {
    MPI_Request request;
    MPI_Datatype *types;
    struct tc_f_kept *next;
} tc_f_kept;

static tc_f_kept *kept_list;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

/* Keeps types until request is seen freed; without memory for the record
 * they are kept to the end (never freed under a running operation). */
__attribute__((unused)) static void kept_add(MPI_Request request, MPI_Datatype *types)
{
    tc_f_kept *k = malloc(sizeof *k);
    if (!k) return;
    k->request = request;
    k->types = types;
    pthread_mutex_lock(&kept_lock);
    k->next = kept_list;
    kept_list = k;
    pthread_mutex_unlock(&kept_lock);
}

/* Whether any arrays are kept for request (MPI_REQUEST_NULL: for any). */
static int kept_has(MPI_Request request)
{
    int found = 0;
    pthread_mutex_lock(&kept_lock);
    for (tc_f_kept *k = kept_list; k && !found; k = k->next)
        found = request == MPI_REQUEST_NULL || k->request == request;
    pthread_mutex_unlock(&kept_lock);
    return found;
}

/* before was the request's handle when the call began, after its handle
 * now: MPI_REQUEST_NULL after an active one means it completed and was
 * freed, and its arrays go. */
static void kept_release(MPI_Request before, MPI_Request after)
{
    if (before == MPI_REQUEST_NULL || after != MPI_REQUEST_NULL) return;
    tc_f_kept *gone = NULL;
    pthread_mutex_lock(&kept_lock);
    for (tc_f_kept **p = &kept_list; *p; p = &(*p)->next)
        if ((*p)->request == before) {
            gone = *p;
            *p = gone->next;
            break;
        }
    pthread_mutex_unlock(&kept_lock);
    if (gone) free(gone->types), free(gone);
}

/* ---- the request functions ---- */

static MPI_Request req_in(const MPI_Fint *f) { return PMPI_Request_f2c(*f); }
static void req_out(MPI_Request c, MPI_Fint *f) { *f = PMPI_Request_c2f(c); }

/* An error of the wrappers' own (no memory): the class through
 * MPI_COMM_WORLD's error handler. */
static int own_error(int code)
{
    (void)PMPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    return code;
}

/* Requests and statuses for an array call of n requests: C copies of the
 * Fortran requests, their handles before the call, and n statuses. */
typedef struct {
    int n;
    MPI_Request *req, *before;
    MPI_Status *st;
} tc_f_array;

static int array_in(int n, const MPI_Fint *f, tc_f_array *a)
{
    a->n = n > 0 ? n : 0;
    size_t m = n > 0 ? (size_t)n : 1;   /* one status at least (MPI_Waitany's) */
    a->req = malloc(2 * m * sizeof *a->req);
    a->st = malloc(m * sizeof *a->st);
    if (!a->req || !a->st) {
        free(a->req), free(a->st);
        return MPI_ERR_NO_MEM;
    }
    a->before = a->req + m;
    for (int i = 0; i < a->n; i++) a->req[i] = a->before[i] = req_in(&f[i]);
    return MPI_SUCCESS;
}

/* The requests back to Fortran, the freed ones' kept arrays released, the
 * C arrays freed. */
static void array_out(tc_f_array *a, MPI_Fint *f)
{
    int kept = kept_has(MPI_REQUEST_NULL);
    for (int i = 0; i < a->n; i++) {
        req_out(a->req[i], &f[i]);
        if (kept) kept_release(a->before[i], a->req[i]);
    }
    free(a->req), free(a->st);
}

/* The first count statuses of a to Fortran's array (unless ignored). */
static void statuses_out(const tc_f_array *a, int count, MPI_Fint *f)
{
    if (statuses_ignored(f)) return;
    for (int i = 0; i < count && i < a->n; i++) status_out(&a->st[i], f + (size_t)i * TC_F_STATUS_SIZE);
}

/* Whether the statuses of an array call are set (also for the one that
 * failed with MPI_ERR_IN_STATUS). */
static int statuses_set(int rc)
{
    return rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;
}

/* A 0-based C index to Fortran's 1-based one (MPI_UNDEFINED unchanged). */
static MPI_Fint f_index(int c)
{
    return (MPI_Fint)(c == MPI_UNDEFINED || c < 0 ? c : c + 1);
}

/* The request functions (their Fortran names follow, per library). */
void tc_fortran_wait(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierror);
void tc_fortran_test(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror);
void tc_fortran_waitall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierror);
void tc_fortran_waitany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
                        MPI_Fint *ierror);
void tc_fortran_waitsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                         MPI_Fint *statuses, MPI_Fint *ierror);
void tc_fortran_testall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses,
                        MPI_Fint *ierror);
void tc_fortran_testany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                        MPI_Fint *status, MPI_Fint *ierror);
void tc_fortran_testsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                         MPI_Fint *statuses, MPI_Fint *ierror);
void tc_fortran_request_free(MPI_Fint *request, MPI_Fint *ierror);
void tc_fortran_cancel(MPI_Fint *request, MPI_Fint *ierror);
void tc_fortran_start(MPI_Fint *request, MPI_Fint *ierror);
void tc_fortran_startall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror);
void tc_fortran_request_get_status(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror);

void tc_fortran_wait(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierror)
{
    MPI_Request r = req_in(request), before = r;
    MPI_Status s;
    int rc = MPI_Wait(&r, &s);
    req_out(r, request);
    kept_release(before, r);
    if (rc == MPI_SUCCESS) status_out(&s, status);
    set_ierror(ierror, rc);
}

void tc_fortran_test(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror)
{
    MPI_Request r = req_in(request), before = r;
    MPI_Status s;
    int done = 0, rc = MPI_Test(&r, &done, &s);
    req_out(r, request);
    kept_release(before, r);
    set_flag(flag, rc == MPI_SUCCESS && done);
    if (rc == MPI_SUCCESS && done) status_out(&s, status);
    set_ierror(ierror, rc);
}

void tc_fortran_waitall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierror)
{
    tc_f_array a;
    int rc = array_in((int)*count, requests, &a);
    if (rc != MPI_SUCCESS) {
        set_ierror(ierror, own_error(rc));
        return;
    }
    rc = MPI_Waitall((int)*count, a.req, a.st);
    if (statuses_set(rc)) statuses_out(&a, a.n, statuses);
    array_out(&a, requests);
    set_ierror(ierror, rc);
}

void tc_fortran_waitany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
                               MPI_Fint *ierror)
{
    tc_f_array a;
    int i = MPI_UNDEFINED, rc = array_in((int)*count, requests, &a);
    if (rc != MPI_SUCCESS) {
        set_ierror(ierror, own_error(rc));
        return;
    }
    rc = MPI_Waitany((int)*count, a.req, &i, a.st);
    *index = f_index(i);
    if (rc == MPI_SUCCESS) status_out(&a.st[0], status);
    array_out(&a, requests);
    set_ierror(ierror, rc);
}

/* MPI_Waitsome or MPI_Testsome (fn) with Fortran's arrays and 1-based
 * indices. */
typedef int (*tc_some_fn)(int, MPI_Request[], int *, int[], MPI_Status[]);
static void some(tc_some_fn fn, MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                 MPI_Fint *statuses, MPI_Fint *ierror)
{
    tc_f_array a;
    int out = MPI_UNDEFINED, rc = array_in((int)*incount, requests, &a);
    if (rc != MPI_SUCCESS) {
        set_ierror(ierror, own_error(rc));
        return;
    }
    int *idx = (int *)indices;   /* MPI_Fint is int (the static assertion above) */
    rc = fn((int)*incount, a.req, &out, idx, a.st);
    *outcount = (MPI_Fint)out;
    for (int i = 0; out != MPI_UNDEFINED && i < out; i++) indices[i] = f_index(idx[i]);
    if (statuses_set(rc) && out != MPI_UNDEFINED) statuses_out(&a, out, statuses);
    array_out(&a, requests);
    set_ierror(ierror, rc);
}

void tc_fortran_waitsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                                MPI_Fint *statuses, MPI_Fint *ierror)
{
    some(MPI_Waitsome, incount, requests, outcount, indices, statuses, ierror);
}

void tc_fortran_testall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses,
                               MPI_Fint *ierror)
{
    tc_f_array a;
    int done = 0, rc = array_in((int)*count, requests, &a);
    if (rc != MPI_SUCCESS) {
        set_ierror(ierror, own_error(rc));
        return;
    }
    rc = MPI_Testall((int)*count, a.req, &done, a.st);
    set_flag(flag, statuses_set(rc) && done);
    if (statuses_set(rc) && done) statuses_out(&a, a.n, statuses);
    array_out(&a, requests);
    set_ierror(ierror, rc);
}

void tc_fortran_testany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                               MPI_Fint *status, MPI_Fint *ierror)
{
    tc_f_array a;
    int i = MPI_UNDEFINED, done = 0, rc = array_in((int)*count, requests, &a);
    if (rc != MPI_SUCCESS) {
        set_ierror(ierror, own_error(rc));
        return;
    }
    rc = MPI_Testany((int)*count, a.req, &i, &done, a.st);
    *index = f_index(i);
    set_flag(flag, rc == MPI_SUCCESS && done);
    if (rc == MPI_SUCCESS && done) status_out(&a.st[0], status);
    array_out(&a, requests);
    set_ierror(ierror, rc);
}

void tc_fortran_testsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                                MPI_Fint *statuses, MPI_Fint *ierror)
{
    some(MPI_Testsome, incount, requests, outcount, indices, statuses, ierror);
}

/* A request freed while its operation runs keeps its arrays to the end;
 * a completed one's go. */
void tc_fortran_request_free(MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = req_in(request), before = r;
    int done = 0;
    if (r != MPI_REQUEST_NULL && kept_has(r) &&
        PMPI_Request_get_status(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        done = 0;
    int rc = MPI_Request_free(&r);
    req_out(r, request);
    if (rc == MPI_SUCCESS && done) kept_release(before, MPI_REQUEST_NULL);
    set_ierror(ierror, rc);
}

void tc_fortran_cancel(MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = req_in(request);
    set_ierror(ierror, MPI_Cancel(&r));
}

void tc_fortran_start(MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = req_in(request);
    int rc = MPI_Start(&r);
    req_out(r, request);
    set_ierror(ierror, rc);
}

void tc_fortran_startall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierror)
{
    tc_f_array a;
    int rc = array_in((int)*count, requests, &a);
    if (rc != MPI_SUCCESS) {
        set_ierror(ierror, own_error(rc));
        return;
    }
    rc = MPI_Startall((int)*count, a.req);
    array_out(&a, requests);
    set_ierror(ierror, rc);
}

void tc_fortran_request_get_status(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierror)
{
    MPI_Status s;
    int done = 0, rc = MPI_Request_get_status(req_in(request), &done, &s);
    set_flag(flag, rc == MPI_SUCCESS && done);
    if (rc == MPI_SUCCESS && done) status_out(&s, status);
    set_ierror(ierror, rc);
}

#endif

#if defined(TC_F_OPEN_MPI)

static MPI_Datatype c_type(const MPI_Fint *t) { return PMPI_Type_f2c(*t); }
static MPI_Comm c_comm(const MPI_Fint *c) { return PMPI_Comm_f2c(*c); }
static MPI_Op c_op(const MPI_Fint *o) { return PMPI_Op_f2c(*o); }

/* The argument shapes: the Fortran parameters (ierror, and the request of
 * the nonblocking form, follow) and the C arguments, per shape. */
#define TC_F_PARAMS_TWO_BUFFERS \
    void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm
#define TC_F_ARGS_TWO_BUFFERS \
    c_buffer(sb), (int)*sc, c_type(st), c_buffer(rb), (int)*rc, c_type(rt), c_comm(comm)

#define TC_F_PARAMS_TWO_BUFFERS_ROOT \
    void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm
#define TC_F_ARGS_TWO_BUFFERS_ROOT \
    c_buffer(sb), (int)*sc, c_type(st), c_buffer(rb), (int)*rc, c_type(rt), (int)*root, c_comm(comm)

#define TC_F_PARAMS_ONE_BUFFER void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm
#define TC_F_ARGS_ONE_BUFFER c_buffer(b), (int)*n, c_type(t), (int)*root, c_comm(comm)

#define TC_F_PARAMS_REDUCTION_ROOT \
    void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm
#define TC_F_ARGS_REDUCTION_ROOT \
    c_buffer(sb), c_buffer(rb), (int)*n, c_type(t), c_op(op), (int)*root, c_comm(comm)

#define TC_F_PARAMS_REDUCTION void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm
#define TC_F_ARGS_REDUCTION c_buffer(sb), c_buffer(rb), (int)*n, c_type(t), c_op(op), c_comm(comm)

#define TC_F_PARAMS_VECTORS \
    void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, \
        MPI_Fint *comm
#define TC_F_ARGS_VECTORS \
    c_buffer(sb), (const int *)sc, (const int *)sd, c_type(st), c_buffer(rb), (const int *)rc, \
        (const int *)rd, c_type(rt), c_comm(comm)

#define TC_F_PARAMS_RECV_VECTORS \
    void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm
#define TC_F_ARGS_RECV_VECTORS \
    c_buffer(sb), (int)*sc, c_type(st), c_buffer(rb), (const int *)rc, (const int *)rd, c_type(rt), \
        c_comm(comm)

#define TC_F_PARAMS_RECV_VECTORS_ROOT \
    void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, \
        MPI_Fint *root, MPI_Fint *comm
#define TC_F_ARGS_RECV_VECTORS_ROOT \
    c_buffer(sb), (int)*sc, c_type(st), c_buffer(rb), (const int *)rc, (const int *)rd, c_type(rt), \
        (int)*root, c_comm(comm)

#define TC_F_PARAMS_SEND_VECTORS_ROOT \
    void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, \
        MPI_Fint *root, MPI_Fint *comm
#define TC_F_ARGS_SEND_VECTORS_ROOT \
    c_buffer(sb), (const int *)sc, (const int *)sd, c_type(st), c_buffer(rb), (int)*rc, c_type(rt), \
        (int)*root, c_comm(comm)

#define TC_F_PARAMS_REDUCTION_COUNTS \
    void *sb, void *rb, MPI_Fint *rc, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm
#define TC_F_ARGS_REDUCTION_COUNTS \
    c_buffer(sb), c_buffer(rb), (const int *)rc, c_type(t), c_op(op), c_comm(comm)

#define TC_F_PARAMS_NO_BUFFERS MPI_Fint *comm
#define TC_F_ARGS_NO_BUFFERS c_comm(comm)

/* The number of peers of a communicator (0 for none or an error). */
static int c_comm_size_of(MPI_Comm cc)
{
    int n = 0, inter = 0;
    if (cc == MPI_COMM_NULL || PMPI_Comm_test_inter(cc, &inter) != MPI_SUCCESS) return 0;
    if ((inter ? PMPI_Comm_remote_size(cc, &n) : PMPI_Comm_size(cc, &n)) != MPI_SUCCESS) return 0;
    return n > 0 ? n : 0;
}

/* Datatypes per peer (alltoallw): the Fortran handles turned into C ones,
 * one per peer of the communicator (the remote group's of an
 * inter-communicator), sending types first; the send types are not read
 * when sending in place.  NULL without memory (the C call then reports the
 * missing arrays). */
static MPI_Datatype *c_types(int n, void *sb, const MPI_Fint *st, const MPI_Fint *rt)
{
    MPI_Datatype *t = malloc(2 * (size_t)n * sizeof *t + 1);
    if (!t) return NULL;
    int in_place = c_buffer(sb) == MPI_IN_PLACE;
    for (int j = 0; j < n; j++) {
        t[j] = in_place ? MPI_DATATYPE_NULL : c_type(&st[j]);
        t[n + j] = c_type(&rt[j]);
    }
    return t;
}

typedef int (*tc_f_type_vectors_fn)(const void *, const int *, const int *, const MPI_Datatype *, void *,
                                    const int *, const int *, const MPI_Datatype *, MPI_Comm);
__attribute__((unused)) static int c_type_vectors(tc_f_type_vectors_fn fn, void *sb, MPI_Fint *sc,
                                                  MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc,
                                                  MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm)
{
    MPI_Comm cc = c_comm(comm);
    int n = c_comm_size_of(cc);
    MPI_Datatype *t = c_types(n, sb, st, rt);
    int rv = fn(c_buffer(sb), (const int *)sc, (const int *)sd, t, c_buffer(rb), (const int *)rc,
                (const int *)rd, t ? t + n : NULL, cc);
    free(t);
    return rv;
}
#define TC_F_PARAMS_TYPE_VECTORS TC_F_PARAMS_VECTORS
#define TC_F_CALL_TYPE_VECTORS(C) c_type_vectors(MPI_##C, sb, sc, sd, st, rb, rc, rd, rt, comm)

/* The nonblocking form: the arrays stay until the operation completes. */
typedef int (*tc_f_itype_vectors_fn)(const void *, const int *, const int *, const MPI_Datatype *, void *,
                                     const int *, const int *, const MPI_Datatype *, MPI_Comm, MPI_Request *);
__attribute__((unused)) static int c_itype_vectors(tc_f_itype_vectors_fn fn, void *sb, MPI_Fint *sc,
                                                   MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc,
                                                   MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
                                                   MPI_Request *request)
{
    MPI_Comm cc = c_comm(comm);
    int n = c_comm_size_of(cc);
    MPI_Datatype *t = c_types(n, sb, st, rt);
    int rv = fn(c_buffer(sb), (const int *)sc, (const int *)sd, t, c_buffer(rb), (const int *)rc,
                (const int *)rd, t ? t + n : NULL, cc, request);
    if (t && rv == MPI_SUCCESS && *request != MPI_REQUEST_NULL)
        kept_add(*request, t);
    else
        free(t);
    return rv;
}

/* The blocking call of a shape; the nonblocking one (the request last). */
#define TC_F_CALL_TWO_BUFFERS(C) MPI_##C(TC_F_ARGS_TWO_BUFFERS)
#define TC_F_CALL_TWO_BUFFERS_ROOT(C) MPI_##C(TC_F_ARGS_TWO_BUFFERS_ROOT)
#define TC_F_CALL_ONE_BUFFER(C) MPI_##C(TC_F_ARGS_ONE_BUFFER)
#define TC_F_CALL_REDUCTION_ROOT(C) MPI_##C(TC_F_ARGS_REDUCTION_ROOT)
#define TC_F_CALL_REDUCTION(C) MPI_##C(TC_F_ARGS_REDUCTION)
#define TC_F_CALL_VECTORS(C) MPI_##C(TC_F_ARGS_VECTORS)
#define TC_F_CALL_RECV_VECTORS(C) MPI_##C(TC_F_ARGS_RECV_VECTORS)
#define TC_F_CALL_RECV_VECTORS_ROOT(C) MPI_##C(TC_F_ARGS_RECV_VECTORS_ROOT)
#define TC_F_CALL_SEND_VECTORS_ROOT(C) MPI_##C(TC_F_ARGS_SEND_VECTORS_ROOT)
#define TC_F_CALL_REDUCTION_COUNTS(C) MPI_##C(TC_F_ARGS_REDUCTION_COUNTS)
#define TC_F_CALL_NO_BUFFERS(C) MPI_##C(TC_F_ARGS_NO_BUFFERS)

#define TC_F_ICALL_TWO_BUFFERS(l, r) MPI_I##l(TC_F_ARGS_TWO_BUFFERS, r)
#define TC_F_ICALL_TWO_BUFFERS_ROOT(l, r) MPI_I##l(TC_F_ARGS_TWO_BUFFERS_ROOT, r)
#define TC_F_ICALL_ONE_BUFFER(l, r) MPI_I##l(TC_F_ARGS_ONE_BUFFER, r)
#define TC_F_ICALL_REDUCTION_ROOT(l, r) MPI_I##l(TC_F_ARGS_REDUCTION_ROOT, r)
#define TC_F_ICALL_REDUCTION(l, r) MPI_I##l(TC_F_ARGS_REDUCTION, r)
#define TC_F_ICALL_VECTORS(l, r) MPI_I##l(TC_F_ARGS_VECTORS, r)
#define TC_F_ICALL_RECV_VECTORS(l, r) MPI_I##l(TC_F_ARGS_RECV_VECTORS, r)
#define TC_F_ICALL_RECV_VECTORS_ROOT(l, r) MPI_I##l(TC_F_ARGS_RECV_VECTORS_ROOT, r)
#define TC_F_ICALL_SEND_VECTORS_ROOT(l, r) MPI_I##l(TC_F_ARGS_SEND_VECTORS_ROOT, r)
#define TC_F_ICALL_REDUCTION_COUNTS(l, r) MPI_I##l(TC_F_ARGS_REDUCTION_COUNTS, r)
#define TC_F_ICALL_NO_BUFFERS(l, r) MPI_I##l(TC_F_ARGS_NO_BUFFERS, r)
#define TC_F_ICALL_TYPE_VECTORS(l, r) c_itype_vectors(MPI_I##l, sb, sc, sd, st, rb, rc, rd, rt, comm, r)

/* One function: the names Fortran calls it by (exported: the library is
 * built with hidden visibility). */
#define TC_F_NAMES(l, U, C, F) \
    extern __typeof__(F) mpi_##l, mpi_##l##_, mpi_##l##__, MPI_##U, mpi_##l##_f08_, MPI_##C##_f08; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) mpi_##l; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) mpi_##l##_; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) mpi_##l##__; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) MPI_##U; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) mpi_##l##_f08_; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) MPI_##C##_f08;

#define TC_F_WRAPPER(U, l, C, SHAPE) \
    void tc_fortran_##l(TC_F_PARAMS_##SHAPE, MPI_Fint *ierror); \
    void tc_fortran_##l(TC_F_PARAMS_##SHAPE, MPI_Fint *ierror) { set_ierror(ierror, TC_F_CALL_##SHAPE(C)); } \
    TC_F_NAMES(l, U, C, tc_fortran_##l)

TOPOCOLL_COLLS(TC_F_WRAPPER)

/* MPI_I<coll> for every row: the request to Fortran's handle (unchanged
 * when the call fails). */
#define TC_F_NB_WRAPPER(U, l, C, SHAPE)                                                            \
    void tc_fortran_i##l(TC_F_PARAMS_##SHAPE, MPI_Fint *request, MPI_Fint *ierror);                \
    void tc_fortran_i##l(TC_F_PARAMS_##SHAPE, MPI_Fint *request, MPI_Fint *ierror)                 \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        int rv = TC_F_ICALL_##SHAPE(l, &r);                                                        \
        if (rv == MPI_SUCCESS) req_out(r, request);                                                \
        set_ierror(ierror, rv);                                                                    \
    }                                                                                              \
    TC_F_NAMES(i##l, I##U, I##l, tc_fortran_i##l)

TOPOCOLL_COLLS(TC_F_NB_WRAPPER)

/* The request functions under the same six names. */
#define TC_F_REQUEST_NAMES(l, U, C) TC_F_NAMES(l, U, C, tc_fortran_##l)
TC_F_REQUEST_FUNCTIONS(TC_F_REQUEST_NAMES)

/* MPI_Finalize: the run summary (pmpi.c) is gathered there, by every rank. */
void tc_fortran_finalize(MPI_Fint *ierror);
void tc_fortran_finalize(MPI_Fint *ierror) { set_ierror(ierror, MPI_Finalize()); }
TC_F_NAMES(finalize, FINALIZE, Finalize, tc_fortran_finalize)
TC_F_NAMES(init, INIT, Init, tc_fortran_init)
TC_F_NAMES(init_thread, INIT_THREAD, Init_thread, tc_fortran_init_thread)

#else

/* MPICH: the C wrappers see the Fortran calls (above), but for the f08
 * procedures of the rows without buffers (NO_BUFFERS: blocking, nonblocking
 * and persistent) and the request functions, which call PMPI_. */
#define TC_F08_MPICH_ALIAS(name, F)                                                                \
    extern __typeof__(F) name;                                                                     \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) name;

#define TC_F08_MPICH_NO_BUFFERS(l, C)                                                              \
    void tc_fortran_mpich_##l##_f08(MPI_Fint *comm, MPI_Fint *ierror);                             \
    void tc_fortran_mpich_##l##_f08(MPI_Fint *comm, MPI_Fint *ierror)                              \
    {                                                                                              \
        int rc = MPI_##C(MPI_Comm_f2c(*comm));                                                     \
        if (ierror) *ierror = (MPI_Fint)rc;                                                        \
    }                                                                                              \
    TC_F08_MPICH_ALIAS(mpi_##l##_f08_, tc_fortran_mpich_##l##_f08)                                 \
    TC_F08_MPICH_NB_NO_BUFFERS(l, C)
#if defined(TC_F_MPICH_F08)
/* mpi_ibarrier_f08_ (comm, request, ierror) and mpi_barrier_init_f08_ (comm,
 * info, request, ierror) */
#define TC_F08_MPICH_NB_NO_BUFFERS(l, C)                                                              \
    void tc_fortran_mpich_i##l##_f08(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror);         \
    void tc_fortran_mpich_i##l##_f08(MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierror)          \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        int rc = MPI_I##l(MPI_Comm_f2c(*comm), &r);                                                \
        if (rc == MPI_SUCCESS) req_out(r, request);                                                \
        set_ierror(ierror, rc);                                                                    \
    }                                                                                              \
    TC_F08_MPICH_ALIAS(mpi_i##l##_f08_, tc_fortran_mpich_i##l##_f08)                               \
    void tc_fortran_mpich_##l##_init_f08(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,        \
                                         MPI_Fint *ierror);                                        \
    void tc_fortran_mpich_##l##_init_f08(MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,        \
                                         MPI_Fint *ierror)                                         \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        int rc = MPI_##C##_init(MPI_Comm_f2c(*comm), MPI_Info_f2c(*info), &r);                    \
        if (rc == MPI_SUCCESS) req_out(r, request);                                                \
        set_ierror(ierror, rc);                                                                    \
    }                                                                                              \
    TC_F08_MPICH_ALIAS(mpi_##l##_init_f08_, tc_fortran_mpich_##l##_init_f08)
#else
#define TC_F08_MPICH_NB_NO_BUFFERS(l, C)
#endif
#define TC_F08_MPICH_TWO_BUFFERS(l, C)
#define TC_F08_MPICH_TWO_BUFFERS_ROOT(l, C)
#define TC_F08_MPICH_ONE_BUFFER(l, C)
#define TC_F08_MPICH_REDUCTION(l, C)
#define TC_F08_MPICH_REDUCTION_ROOT(l, C)
#define TC_F08_MPICH_VECTORS(l, C)
#define TC_F08_MPICH_RECV_VECTORS(l, C)
#define TC_F08_MPICH_RECV_VECTORS_ROOT(l, C)
#define TC_F08_MPICH_SEND_VECTORS_ROOT(l, C)
#define TC_F08_MPICH_REDUCTION_COUNTS(l, C)
#define TC_F08_MPICH_TYPE_VECTORS(l, C)
#define TC_F08_MPICH(UPPER, l, C, SHAPE) TC_F08_MPICH_##SHAPE(l, C)
TOPOCOLL_COLLS(TC_F08_MPICH)

#if defined(TC_F_MPICH_F08)
/* The request functions' f08 names (MPICH 4: the f08 status objects). */
#define TC_F08_MPICH_REQUEST_NAMES(l, U, C) TC_F08_MPICH_ALIAS(mpi_##l##_f08_, tc_fortran_##l)
TC_F_REQUEST_FUNCTIONS(TC_F08_MPICH_REQUEST_NAMES)
TC_F08_MPICH_ALIAS(mpi_init_f08_, tc_fortran_init)
TC_F08_MPICH_ALIAS(mpi_init_thread_f08_, tc_fortran_init_thread)
#endif
typedef int tc_fortran_none;

#endif
