/*
 * topocoll-kernels: the local reduction kernels (src/exec/reduce_kernels.c)
 * against the MPI library's PMPI_Reduce_local, one process.
 *
 * For MPI_SUM on MPI_DOUBLE, MPI_FLOAT and MPI_INT and vector sizes from
 * 1 KiB to 16 MiB (bytes of one operand), batches of the kernel, of
 * PMPI_Reduce_local and of a memcpy of the same bytes alternate (the
 * machine's noise hits all three alike); the median time per call of each
 * is reported as bandwidth over the bytes a reduction moves (3 n: read in,
 * read and write inout) and the copy's over its 2 n, with the ratio
 * kernel / library.  The copy is the memory-bandwidth bound at that size:
 * a reduction cannot move its 3 n bytes faster than a copy moves bytes.
 *
 *   topocoll-kernels [-b BATCHES] [-m MIN_BYTES] [-M MAX_BYTES]
 *
 * (Open MPI: run it with and without "--mca op ^avx" to compare with the
 * library's base and AVX op components.)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/reduce_kernels.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Calls per batch: about 64 MiB of operand bytes, at least 4. */
static int calls_for(size_t bytes)
{
    size_t c = ((size_t)64 << 20) / (bytes ? bytes : 1);
    return c < 4 ? 4 : c > 100000 ? 100000 : (int)c;
}

/* One way of reducing (0 kernel, 1 library, 2 memcpy): seconds per call. */
static double batch(int how, const tc_reduce_kernel *k, const void *in, void *io, int n, size_t bytes, int calls)
{
    double t0 = MPI_Wtime();
    for (int c = 0; c < calls; c++) {
        if (how == 0) k->fn(in, io, (size_t)n);
        else if (how == 1) (void)PMPI_Reduce_local(in, io, n, k->type, k->op);
        else memcpy(io, in, bytes);
    }
    return (MPI_Wtime() - t0) / calls;
}

static void one_size(const char *tname, MPI_Datatype type, size_t bytes, int batches, void *in, void *io)
{
    tc_reduce_kernel k;
    tc_reduce_kernel_find(MPI_SUM, type, &k);
    if (!k.fn) {
        printf("%-10s %10zu  (no kernel used: %s)\n", tname, bytes,
               k.library_differs ? "the MPI library computes otherwise" : "not in the table");
        return;
    }
    int n = (int)(bytes / k.elem), calls = calls_for(bytes);
    double s[3][64];
    memset(in, 0, bytes);   /* zeros: sums stay zero, no denormals or infinities */
    memset(io, 0, bytes);
    for (int b = 0; b < batches; b++)   /* the order of the three rotates with the batch */
        for (int j = 0; j < 3; j++) {
            int way = (j + b) % 3;
            s[way][b] = batch(way, &k, in, io, n, bytes, calls);
        }
    double tk = median(s[0], batches), tl = median(s[1], batches), tc = median(s[2], batches);
    double gk = 3.0 * (double)bytes / tk / 1e9, gl = 3.0 * (double)bytes / tl / 1e9,
           gc = 2.0 * (double)bytes / tc / 1e9;
    printf("%-10s %10zu %10.3f %10.3f %8.2fx %10.2f %10.2f %10.2f %8.0f%%\n", tname, bytes, tk * 1e6, tl * 1e6,
           tl / tk, gk, gl, gc, 100.0 * gk / gc);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int batches = 15;
    size_t lo = 1024, hi = (size_t)16 << 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "-b") == 0) batches = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-m") == 0) lo = (size_t)atol(argv[i + 1]);
        else if (strcmp(argv[i], "-M") == 0) hi = (size_t)atol(argv[i + 1]);
    }
    if (batches < 1 || batches > 64 || lo < 64 || hi < lo) {
        fprintf(stderr, "usage: topocoll-kernels [-b BATCHES (1..64)] [-m MIN_BYTES] [-M MAX_BYTES]\n");
        MPI_Finalize();
        return 2;
    }
    size_t alloc = (hi + 63) / 64 * 64;   /* aligned_alloc wants a multiple of the alignment */
    void *in = aligned_alloc(64, alloc), *io = aligned_alloc(64, alloc);
    if (!in || !io) {
        fprintf(stderr, "topocoll-kernels: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    printf("# MPI_SUM, median of %d batches; GB/s over 3n bytes (reduction) and 2n (copy)\n", batches);
    printf("%-10s %10s %10s %10s %9s %10s %10s %10s %9s\n", "type", "bytes", "kernel_us", "library_us",
           "speedup", "kernel", "library", "copy", "of_copy");
    const struct { const char *name; MPI_Datatype type; } types[] = {
        { "MPI_DOUBLE", MPI_DOUBLE }, { "MPI_FLOAT", MPI_FLOAT }, { "MPI_INT", MPI_INT } };
    for (int t = 0; t < 3; t++)
        for (size_t bytes = lo; bytes <= hi; bytes *= 4) one_size(types[t].name, types[t].type, bytes, batches, in, io);
    free(in);
    free(io);
    MPI_Finalize();
    return 0;
}
