/*
 * Fortran entry points of the LD_PRELOAD interposer.
 *
 * Whether a preloaded C interposer sees a Fortran program's collectives
 * depends on the MPI library (nm -D and objdump -d of Debian's packages):
 *
 *   MPICH 4.0 (libmpichfort.so): mpif.h and `use mpi` (mpi_allgather_ ...)
 *     and `use mpi_f08` (mpi_allgather_f08ts_, through its C descriptor
 *     layer) call the C MPI_Allgather ... through the PLT, after turning
 *     the Fortran MPI_IN_PLACE / MPI_BOTTOM into the C ones: the C
 *     wrappers of pmpi.c see every Fortran call already.  Wrapping the
 *     Fortran names too would count each call twice, so nothing here is
 *     compiled for MPICH.
 *   Open MPI 4.1: the Fortran bindings call PMPI_Allgather ... directly.
 *     mpif.h and `use mpi` (ignore-TKR module) call mpi_allgather_ (also
 *     exported as mpi_allgather, mpi_allgather__, MPI_ALLGATHER and
 *     MPI_Allgather_f08, one function in libmpi_mpifh.so); `use mpi_f08`
 *     calls mpi_allgather_f08_ (libmpi_usempif08.so), which passes the
 *     arguments straight on to libmpi_mpifh's ompi_allgather_f: buffers as
 *     addresses, every other argument by reference (a handle is a
 *     derived type whose only member is the integer handle), the optional
 *     ierror as NULL when absent, no hidden arguments (no character
 *     arguments).  So one C function per collective serves all six names.
 *     MPI_IN_PLACE and MPI_BOTTOM are the addresses of the common blocks
 *     mpi_fortran_in_place_ and mpi_fortran_bottom_ (mpif-sentinels.h; the
 *     f08 module binds to the same symbols); defined by the program itself
 *     (common blocks), libmpi.so and the Fortran libraries, all references
 *     resolve to the first definition, as Open MPI's own do.
 *
 * Each wrapper converts the handles (MPI_*_f2c), the sentinels, calls the
 * C MPI_ function (pmpi.c's, so coverage and the run summary are decided in
 * one place; a collective pmpi.c does not wrap goes to the MPI library) and
 * sets ierror.  The MPI library's own pmpi_ Fortran names stay untouched.
 */
#include <mpi.h>
#include <stdlib.h>

/* The collectives with Fortran entry points: every row of the list
 * (include/topocoll_colls.h), by its shape below. */
#include "topocoll_colls.h"

#if defined(OPEN_MPI) && OPEN_MPI

/* The sentinels' common blocks (weak: a C program without Fortran may have
 * none, then no address matches). */
extern MPI_Fint mpi_fortran_in_place_ __attribute__((weak));
extern MPI_Fint mpi_fortran_bottom_ __attribute__((weak));

static void *c_buffer(void *f)
{
    if (f && f == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
    if (f && f == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
    return f;
}

static MPI_Datatype c_type(const MPI_Fint *t) { return PMPI_Type_f2c(*t); }
static MPI_Comm c_comm(const MPI_Fint *c) { return PMPI_Comm_f2c(*c); }
static MPI_Op c_op(const MPI_Fint *o) { return PMPI_Op_f2c(*o); }

static void set_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror) *ierror = (MPI_Fint)rc;
}

/* The argument shapes: parameter list and the C call, per shape. */
#define TC_F_PARAMS_TWO_BUFFERS \
    (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, \
     MPI_Fint *ierror)
#define TC_F_CALL_TWO_BUFFERS(C) \
    MPI_##C(c_buffer(sb), (int)*sc, c_type(st), c_buffer(rb), (int)*rc, c_type(rt), c_comm(comm))

#define TC_F_PARAMS_TWO_BUFFERS_ROOT \
    (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *root, \
     MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_TWO_BUFFERS_ROOT(C) \
    MPI_##C(c_buffer(sb), (int)*sc, c_type(st), c_buffer(rb), (int)*rc, c_type(rt), (int)*root, \
            c_comm(comm))

#define TC_F_PARAMS_ONE_BUFFER \
    (void *b, MPI_Fint *n, MPI_Fint *t, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_ONE_BUFFER(C) \
    MPI_##C(c_buffer(b), (int)*n, c_type(t), (int)*root, c_comm(comm))

#define TC_F_PARAMS_REDUCTION_ROOT \
    (void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, \
     MPI_Fint *ierror)
#define TC_F_CALL_REDUCTION_ROOT(C) \
    MPI_##C(c_buffer(sb), c_buffer(rb), (int)*n, c_type(t), c_op(op), (int)*root, c_comm(comm))

#define TC_F_PARAMS_REDUCTION \
    (void *sb, void *rb, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_REDUCTION(C) \
    MPI_##C(c_buffer(sb), c_buffer(rb), (int)*n, c_type(t), c_op(op), c_comm(comm))

/* Count and displacement arrays pass through: a Fortran default integer is
 * a C int on every platform these libraries are built for here. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint arrays are passed as int arrays");
#define TC_F_PARAMS_VECTORS \
    (void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, \
     MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_VECTORS(C) \
    MPI_##C(c_buffer(sb), (const int *)sc, (const int *)sd, c_type(st), c_buffer(rb), (const int *)rc, \
            (const int *)rd, c_type(rt), c_comm(comm))

#define TC_F_PARAMS_RECV_VECTORS \
    (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, \
     MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_RECV_VECTORS(C) \
    MPI_##C(c_buffer(sb), (int)*sc, c_type(st), c_buffer(rb), (const int *)rc, (const int *)rd, \
            c_type(rt), c_comm(comm))

#define TC_F_PARAMS_RECV_VECTORS_ROOT \
    (void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, \
     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_RECV_VECTORS_ROOT(C) \
    MPI_##C(c_buffer(sb), (int)*sc, c_type(st), c_buffer(rb), (const int *)rc, (const int *)rd, \
            c_type(rt), (int)*root, c_comm(comm))

#define TC_F_PARAMS_SEND_VECTORS_ROOT \
    (void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, \
     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_SEND_VECTORS_ROOT(C) \
    MPI_##C(c_buffer(sb), (const int *)sc, (const int *)sd, c_type(st), c_buffer(rb), (int)*rc, \
            c_type(rt), (int)*root, c_comm(comm))

#define TC_F_PARAMS_REDUCTION_COUNTS \
    (void *sb, void *rb, MPI_Fint *rc, MPI_Fint *t, MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_REDUCTION_COUNTS(C) \
    MPI_##C(c_buffer(sb), c_buffer(rb), (const int *)rc, c_type(t), c_op(op), c_comm(comm))

#define TC_F_PARAMS_NO_BUFFERS (MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_NO_BUFFERS(C) MPI_##C(c_comm(comm))

/* Datatypes per peer (alltoallw): the Fortran handles turned into C ones,
 * one per peer of the communicator (the remote group's of an
 * inter-communicator), then the C call. */
typedef int (*tc_f_type_vectors_fn)(const void *, const int *, const int *, const MPI_Datatype *, void *,
                                    const int *, const int *, const MPI_Datatype *, MPI_Comm);
__attribute__((unused)) static int c_type_vectors(tc_f_type_vectors_fn fn, void *sb, MPI_Fint *sc,
                                                  MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc,
                                                  MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm)
{
    MPI_Comm cc = c_comm(comm);
    int n = 0, inter = 0, rc_ = MPI_SUCCESS;
    if (cc != MPI_COMM_NULL && PMPI_Comm_test_inter(cc, &inter) == MPI_SUCCESS)
        rc_ = inter ? PMPI_Comm_remote_size(cc, &n) : PMPI_Comm_size(cc, &n);
    if (rc_ != MPI_SUCCESS) n = 0;
    MPI_Datatype *t = malloc(2 * (size_t)n * sizeof *t + 1);
    if (!t) return fn(c_buffer(sb), (const int *)sc, (const int *)sd, NULL, c_buffer(rb), (const int *)rc,
                      (const int *)rd, NULL, cc);
    for (int j = 0; j < n; j++) t[j] = c_type(&st[j]), t[n + j] = c_type(&rt[j]);
    int rv = fn(c_buffer(sb), (const int *)sc, (const int *)sd, t, c_buffer(rb), (const int *)rc,
                (const int *)rd, t + n, cc);
    free(t);
    return rv;
}
#define TC_F_PARAMS_TYPE_VECTORS \
    (void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, \
     MPI_Fint *comm, MPI_Fint *ierror)
#define TC_F_CALL_TYPE_VECTORS(C) c_type_vectors(MPI_##C, sb, sc, sd, st, rb, rc, rd, rt, comm)

/* One collective: its function and the names Fortran calls it by
 * (exported: the library is built with hidden visibility). */
#define TC_F_NAMES(l, U, C, F) \
    extern __typeof__(F) mpi_##l, mpi_##l##_, mpi_##l##__, MPI_##U, mpi_##l##_f08_, MPI_##C##_f08; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) mpi_##l; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) mpi_##l##_; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) mpi_##l##__; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) MPI_##U; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) mpi_##l##_f08_; \
    __attribute__((visibility("default"), alias(#F))) extern __typeof__(F) MPI_##C##_f08;

#define TC_F_WRAPPER(U, l, C, SHAPE) \
    void tc_fortran_##l TC_F_PARAMS_##SHAPE; \
    void tc_fortran_##l TC_F_PARAMS_##SHAPE { set_ierror(ierror, TC_F_CALL_##SHAPE(C)); } \
    TC_F_NAMES(l, U, C, tc_fortran_##l)

TOPOCOLL_COLLS(TC_F_WRAPPER)

/* MPI_Finalize: the run summary (pmpi.c) is gathered there, by every rank. */
void tc_fortran_finalize(MPI_Fint *ierror);
void tc_fortran_finalize(MPI_Fint *ierror) { set_ierror(ierror, MPI_Finalize()); }
TC_F_NAMES(finalize, FINALIZE, Finalize, tc_fortran_finalize)

#else

/* MPICH: the C wrappers see the Fortran calls (above); nothing to define. */
typedef int tc_fortran_none;

#endif
