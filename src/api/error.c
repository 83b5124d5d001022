/* Error codes with messages (see error.h).  Codes are made once per
 * distinct message and reused; past a bound the bare class is used.
 *
 * Threads: the table of codes made so far is shared by the process and
 * guarded by a mutex.  Only calls that raise an error take it (never a
 * call that succeeds), and it is held across MPI_Add_error_code and
 * MPI_Add_error_string, so two threads raising the same message at once
 * make one code; the error handler runs after the lock is released (a
 * handler may itself call topocoll). */
#include "api/error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_CODES 64

typedef struct made { int err_class; int code; char msg[MPI_MAX_ERROR_STRING]; } made;
static made codes[MAX_CODES];
static int ncodes;
static pthread_mutex_t codes_lock = PTHREAD_MUTEX_INITIALIZER;

/* Call with codes_lock held. */
static int code_for_locked(int err_class, const char *msg)
{
    for (int i = 0; i < ncodes; i++)
        if (codes[i].err_class == err_class && strcmp(codes[i].msg, msg) == 0)
            return codes[i].code;
    if (ncodes == MAX_CODES) return err_class;
    int code;
    if (PMPI_Add_error_code(err_class, &code) != MPI_SUCCESS) return err_class;
    made *m = &codes[ncodes];
    snprintf(m->msg, sizeof m->msg, "%s", msg);
    if (PMPI_Add_error_string(code, m->msg) != MPI_SUCCESS) return err_class;
    m->err_class = err_class;
    m->code = code;
    ncodes++;
    return code;
}

static int code_for(int err_class, const char *msg)
{
    if (pthread_mutex_lock(&codes_lock) != 0) return err_class;
    int code = code_for_locked(err_class, msg);
    (void)pthread_mutex_unlock(&codes_lock);   /* cannot fail: this thread holds it */
    return code;
}

int tc_raise(MPI_Comm comm, int err_class, const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(msg, sizeof msg, "topocoll: ");
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    int code = code_for(err_class, msg);
    /* code is returned whatever the handler does; a failure to call the
     * handler has no other way out */
    (void)PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
    return code;
}

int tc_raise_mpi(MPI_Comm comm, int mpi_err, const char *where)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0, cls = MPI_ERR_OTHER;
    if (PMPI_Error_string(mpi_err, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "error %d", mpi_err);
    if (PMPI_Error_class(mpi_err, &cls) != MPI_SUCCESS) cls = MPI_ERR_OTHER;
    return tc_raise(comm, cls, "%s: %s", where, s);
}
