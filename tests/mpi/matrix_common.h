/*
 * Helpers of the MPI test matrix (test_matrix.c, see matrix.h): the rank
 * mappings it runs under, the failure-key encoding agreed over
 * MPI_COMM_WORLD, error text, the data hash and the per-rank detail lines.
 */
#ifndef TC_TEST_MATRIX_COMMON_H
#define TC_TEST_MATRIX_COMMON_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define TM_MAX_DETAIL_LINES 10   /* per rank, for failure details */
#define TM_NMAPPINGS 4

#if defined(__GNUC__) || defined(__clang__)
#define TM_PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#else
#define TM_PRINTF_LIKE(a, b)
#endif

typedef struct mapping {
    const char *name;
    char spec[256];              /* "" for none (detected topology) */
    int nnodes, nsockets;        /* expected, 0 when not checked */
} mapping;

/* block "2x2x*", cyclic "2x2x*" dealt cyclically, random "3x*" shuffled, and unequal
 * node sizes ("2+1,1,4" for np = 8), with their expected node and socket
 * counts for np ranks.  Returns TM_NMAPPINGS. */
int tm_make_mappings(mapping *maps, int np);

/* Sets comm's topology to m (NULL spec: back to detection) and checks its
 * counts; failures go into keys[k_rc] (error class) or keys[k_topo], with a
 * line on stderr naming desc.  With verbose, rank 0 prints the topology. */
void tm_set_mapping(MPI_Comm comm, const mapping *m, const char *desc, int verbose, int wrank,
                    int wsize, int64_t *keys, int k_rc, int k_topo);

/* Failure keys are agreed with MIN: INT64_MAX means fine, otherwise
 * detail * world_size + world_rank (the lowest detail, then rank, wins). */
void tm_set_key(int64_t *keys, int k, long long detail, int wrank, int wsize);

void tm_errstr(int rc, char *out, int len);
int tm_err_class(int rc);

/* A 32-bit finaliser (MurmurHash3's): the test data (inline: the matrix
 * hashes every element of every rank's data). */
static inline uint32_t tm_fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

/* First differing byte of a and b, -1 when equal. */
long long tm_first_diff(const unsigned char *a, const unsigned char *b, size_t n);

/* One line of detail on stderr ("rank R: desc: ..."), at most
 * TM_MAX_DETAIL_LINES per rank (*lines counts them). */
void tm_detail(int wrank, int *lines, const char *desc, const char *fmt, ...) TM_PRINTF_LIKE(4, 5);

#endif
