/*
 * Local reduction kernels: inout[i] = inout[i] (op) in[i] for the common
 * predefined (op, datatype) pairs as tight loops the compiler vectorises,
 * and PMPI_Reduce_local for everything else.
 *
 * Covered: MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX on the C integer types
 * (signed and unsigned char .. long long, the int8..uint64 fixed-width
 * types), MPI_FLOAT and MPI_DOUBLE.  Everything else goes to the MPI
 * library: user-defined ops, MINLOC/MAXLOC, the logical and bitwise ops,
 * complex and long double types, MPI_C_BOOL, MPI_CHAR, MPI_AINT,
 * MPI_OFFSET, MPI_COUNT, the Fortran types, derived datatypes.
 *
 * Results are bitwise identical to the MPI library's own base kernels (Open
 * MPI's op/base component, MPICH's MPIR_*F functions), which compute the
 * same element-wise expression in the same operand order:
 *   SUM  out = out + in        PROD out = out * in
 *   MIN  out = out < in ? out : in    MAX  out = out > in ? out : in
 * (NaN and signed zeros included: the selects are written exactly so).
 * Once per process every kernel is checked against PMPI_Reduce_local on a
 * probe vector; a pair where the library computes something else (Open MPI
 * 4.1: MIN/MAX of MPI_UNSIGNED_LONG as if signed; its AVX component's 8-bit
 * MPI_SUM on some CPUs) is left to the library, so that a topocoll entry and
 * the library's own collective give the same bytes.
 * Integer arithmetic wraps modulo 2^bits, as the MPI libraries' C loops do
 * in practice, but is done in unsigned types here so that it is defined C.
 * Vectorising these loops does not reassociate anything: each element is
 * one operation on two operands.
 *
 * The kernel is looked up once per call (tc_reduce_kernel_find: an op index
 * and a short scan of the predefined types, then a table of function
 * pointers); tc_reduce_local applies a looked-up kernel, or the MPI library
 * where there is none, where the two regions overlap or where an address is
 * not aligned for the element type.
 */
#ifndef TC_EXEC_REDUCE_KERNELS_H
#define TC_EXEC_REDUCE_KERNELS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* inout[i] = inout[i] (op) in[i] for i < n; the regions do not overlap. */
typedef void (*tc_reduce_fn)(const void *restrict in, void *restrict inout, size_t n);

/* A kernel looked up for one (op, datatype): fn NULL means the MPI library. */
typedef struct tc_reduce_kernel {
    MPI_Op op;
    MPI_Datatype type;
    tc_reduce_fn fn;
    tc_reduce_fn table_fn;  /* the table's kernel, also where the library differs (tests) */
    int library_differs;    /* the probe found the MPI library computes otherwise: fn NULL */
    size_t elem;        /* element size in bytes of a type the kernels know (set even where the
                         * library serves, fn NULL); 0 for any other type or op */
    size_t align;       /* required alignment of both addresses (when fn is set) */
} tc_reduce_kernel;

/* The kernel for (op, type); k->fn is NULL where the MPI library serves. */
void tc_reduce_kernel_find(MPI_Op op, MPI_Datatype type, tc_reduce_kernel *k);

/* inout = in (op) inout for n elements of k->type, in_extent and io_extent
 * bytes apart on each side.  n may exceed INT_MAX: the MPI library then
 * gets pieces of at most INT_MAX elements.  Returns an MPI error code. */
int tc_reduce_local(const tc_reduce_kernel *k, const void *in, void *inout, int64_t n, MPI_Aint in_extent,
                    MPI_Aint io_extent);

/* For tests and the benchmark: the number of (op, type) pairs with a kernel
 * and the i-th of them (0 <= i < count). */
int tc_reduce_kernel_count(void);
void tc_reduce_kernel_pair(int i, MPI_Op *op, MPI_Datatype *type);

#endif
