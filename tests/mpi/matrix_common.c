/* Helpers of the MPI test matrix (see matrix_common.h). */
#include "matrix_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "topocoll.h"

/* Expected nodes/sockets of "NxSx*" for np ranks (empty sockets dropped). */
static void product_counts(mapping *m, int np, int N, int S)
{
    int nsock = np >= N * S ? N * S : np;
    m->nsockets = nsock;
    m->nnodes = (nsock + S - 1) / S;
}

/* Unequal node sizes summing to np (3,1,4,1,5,... truncated), the first node
 * split into two sockets when it has 3 ranks: "2+1,1,4" for np = 8. */
static void unequal_spec(mapping *m, int np)
{
    static const int seq[] = { 3, 1, 4, 1, 5, 2, 6, 5, 3 };
    const int nseq = (int)(sizeof seq / sizeof seq[0]);
    int left = np, i = 0, len = 0, nodes = 0, socks = 0;
    if (np == 1) { snprintf(m->spec, sizeof m->spec, "1"); m->nnodes = m->nsockets = 1; return; }
    if (np == 2) { snprintf(m->spec, sizeof m->spec, "1,1"); m->nnodes = m->nsockets = 2; return; }
    if (np == 3) { snprintf(m->spec, sizeof m->spec, "2,1"); m->nnodes = m->nsockets = 2; return; }
    m->spec[0] = '\0';
    while (left > 0 && len < (int)sizeof m->spec - 16) {
        int v = seq[i % nseq];
        if (v > left) v = left;
        if (nodes == 0 && v == 3) {
            len += snprintf(m->spec + len, sizeof m->spec - (size_t)len, "2+1");
            socks += 2;
        } else {
            len += snprintf(m->spec + len, sizeof m->spec - (size_t)len, "%s%d", nodes ? "," : "", v);
            socks += 1;
        }
        nodes++;
        left -= v;
        i++;
    }
    m->nnodes = nodes;
    m->nsockets = socks;
}

int tm_make_mappings(mapping *maps, int np)
{
    memset(maps, 0, TM_NMAPPINGS * sizeof *maps);
    maps[0].name = "block";
    snprintf(maps[0].spec, sizeof maps[0].spec, "2x2x*");
    product_counts(&maps[0], np, 2, 2);
    maps[1].name = "cyclic";
    snprintf(maps[1].spec, sizeof maps[1].spec, "2x2x*/cyclic");
    product_counts(&maps[1], np, 2, 2);
    maps[2].name = "random";
    snprintf(maps[2].spec, sizeof maps[2].spec, "3x*/random:7");
    product_counts(&maps[2], np, 3, 1);
    maps[3].name = "unequal";
    unequal_spec(&maps[3], np);
    return TM_NMAPPINGS;
}

void tm_set_mapping(MPI_Comm comm, const mapping *m, const char *desc, int verbose, int wrank,
                    int wsize, int64_t *keys, int k_rc, int k_topo)
{
    char text[256];
    int nnodes = -1, nsockets = -1;
    int rc = topocoll_set_topology(comm, m->spec[0] ? m->spec : NULL);
    if (rc != MPI_SUCCESS) {
        tm_set_key(keys, k_rc, tm_err_class(rc), wrank, wsize);
        fprintf(stderr, "rank %d: %s: topocoll_set_topology returned %d\n", wrank, desc, rc);
    } else {
        rc = topocoll_topology_counts(comm, &nnodes, &nsockets);
        if (rc != MPI_SUCCESS) {
            tm_set_key(keys, k_rc, tm_err_class(rc), wrank, wsize);
            fprintf(stderr, "rank %d: %s: topocoll_topology_counts returned %d\n", wrank, desc, rc);
        } else if (m->nnodes && (nnodes != m->nnodes || nsockets != m->nsockets)) {
            tm_set_key(keys, k_topo, 0, wrank, wsize);
            fprintf(stderr, "rank %d: %s: %d nodes, %d sockets; expected %d and %d\n", wrank, desc, nnodes,
                    nsockets, m->nnodes, m->nsockets);
        }
    }
    if (verbose && wrank == 0 && rc == MPI_SUCCESS &&
        topocoll_topology_describe(comm, text, (int)sizeof text) == MPI_SUCCESS)
        printf("topology %s: %s\n", desc, text);
}

void tm_set_key(int64_t *keys, int k, long long detail, int wrank, int wsize)
{
    int64_t v = (int64_t)detail * wsize + wrank;
    if (v < keys[k]) keys[k] = v;
}

void tm_errstr(int rc, char *out, int len)
{
    int n = 0;
    if (MPI_Error_string(rc, out, &n) != MPI_SUCCESS || n <= 0)
        snprintf(out, (size_t)len, "error %d", rc);
}

int tm_err_class(int rc)
{
    int cls;
    if (MPI_Error_class(rc, &cls) != MPI_SUCCESS) return rc;
    return cls;
}

long long tm_first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) == 0) return -1;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return (long long)i;
    return -1;
}

void tm_detail(int wrank, int *lines, const char *desc, const char *fmt, ...)
{
    va_list ap;
    if (*lines >= TM_MAX_DETAIL_LINES) return;
    (*lines)++;
    fprintf(stderr, "rank %d: %s: ", wrank, desc);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
