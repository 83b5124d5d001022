/* Single-copy node-shared memory with process_vm_readv (see cma.h). */
#define _GNU_SOURCE
#include "exec/cma.h"
#include "core/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__) && defined(TC_HAVE_PROCESS_VM_READV)
#include <sys/uio.h>
#define TC_CMA_BUILT 1
#else
#define TC_CMA_BUILT 0
#endif

#define PROBE_MAGIC 0x746f706f636f6c6cull   /* "topocoll" */

/* Agreement codes (the largest wins): 0 ok, 1..CODE_ERRNO_MAX the probe's
 * errno, then these. */
enum {
    CODE_ERRNO_MAX = 4095,
    CODE_WRONG_VALUE = 5000,   /* the probe read something else: PID namespaces? */
    CODE_NO_SHM = 5001,
    CODE_NOT_BUILT = 5002,
    CODE_DISABLED = 5003,
    CODE_NO_MEMORY = 5004,
};

static volatile uint64_t probe_word = PROBE_MAGIC;

static void describe(int code, char *why, size_t len)
{
    if (code > 0 && code <= CODE_ERRNO_MAX)
        snprintf(why, len, "process_vm_readv: %s%s", strerror(code),
                 code == EPERM ? " (kernel.yama.ptrace_scope=1, or a seccomp filter?)"
                 : code == ENOSYS ? " (kernel without CONFIG_CROSS_MEMORY_ATTACH?)" : "");
    else if (code == CODE_WRONG_VALUE)
        snprintf(why, len, "process_vm_readv read a wrong probe value (ranks in different PID namespaces?)");
    else if (code == CODE_NO_SHM)
        snprintf(why, len, "the ranks of a node cannot share memory (no cross-memory attach)");
    else if (code == CODE_NOT_BUILT)
        snprintf(why, len, "process_vm_readv is not available on this system");
    else if (code == CODE_DISABLED)
        snprintf(why, len, "cross-memory attach turned off by TOPOCOLL_CMA");
    else
        snprintf(why, len, "cross-memory attach unavailable (out of memory)");
}

/* Read len bytes at remote address addr of process pid into dst: 0 or an
 * errno (a short read that makes no progress is EFAULT). */
static int read_remote(int32_t pid, uint64_t addr, char *dst, size_t len)
{
#if TC_CMA_BUILT
    while (len > 0) {
        struct iovec l = { dst, len }, r = { (void *)(uintptr_t)addr, len };
        ssize_t got = process_vm_readv((pid_t)pid, &l, 1, &r, 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno ? errno : EFAULT;
        if (got == 0) return EFAULT;
        dst += got;
        addr += (uint64_t)got;
        len -= (size_t)got;
    }
    return 0;
#else
    (void)pid; (void)addr; (void)dst; (void)len;
    return ENOSYS;
#endif
}

/* This rank's code before the probe (0: probe). */
static int local_code(int node_shm)
{
    if (!tc_config_get()->cma) return CODE_DISABLED;
    if (!TC_CMA_BUILT) return CODE_NOT_BUILT;
    return node_shm ? 0 : CODE_NO_SHM;
}

/* Exchange (pid, probe address) over the node and read the next rank's
 * probe word; *code gets the outcome (unchanged when already set). */
static int exchange_and_probe(tc_cma *c, MPI_Comm node_comm, int *code)
{
    int me, n, rc;
    if ((rc = PMPI_Comm_rank(node_comm, &me)) != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Comm_size(node_comm, &n)) != MPI_SUCCESS) return rc;
    uint64_t mine[2] = { (uint64_t)getpid(), (uint64_t)(uintptr_t)&probe_word };
    uint64_t *all = malloc((size_t)n * 2 * sizeof *all);
    c->pids = malloc((size_t)n * sizeof *c->pids);
    int have = all && c->pids, all_have = 0;   /* the node agrees before the exchange */
    if ((rc = PMPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, node_comm)) != MPI_SUCCESS || !all_have) {
        free(all);
        if (!*code) *code = CODE_NO_MEMORY;
        return rc;
    }
    rc = PMPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, node_comm);
    if (rc == MPI_SUCCESS) {
        for (int i = 0; i < n; i++) c->pids[i] = (int32_t)all[2 * i];
        int next = (me + 1) % n;
        uint64_t got = 0;
        int err = *code ? 0 : read_remote(c->pids[next], all[2 * next + 1], (char *)&got, sizeof got);
        if (!*code && err) *code = err <= CODE_ERRNO_MAX ? err : EFAULT;
        else if (!*code && got != PROBE_MAGIC) *code = CODE_WRONG_VALUE;
    }
    free(all);
    return rc;
}

int tc_cma_init(tc_cma *c, MPI_Comm comm, MPI_Comm node_comm, int node_shm)
{
    memset(c, 0, sizeof *c);
    int code = local_code(node_shm), agreed = 0;
    int rc = exchange_and_probe(c, node_comm, &code);
    if (rc != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Allreduce(&code, &agreed, 1, MPI_INT, MPI_MAX, comm)) != MPI_SUCCESS) return rc;
    c->ok = agreed == 0;
    if (!c->ok) describe(agreed, c->why, sizeof c->why);
    return MPI_SUCCESS;
}

/* A rank's line: the addresses of SEND, RECV, TMP, then their strides. */
static uint64_t *pub_line(const unsigned char *pub, int rank)
{
    return (uint64_t *)(void *)((unsigned char *)pub + (size_t)rank * TC_CMA_PUB_LINE);
}

void tc_cma_publish(tc_cma *c, unsigned char *pub, int me, char *const base[3], const int64_t stride[3])
{
    uint64_t *line = pub_line(pub, me);
    c->calls++;
    for (int b = 0; b < 3; b++) {
        line[b] = (uint64_t)(uintptr_t)base[b];
        line[3 + b] = (uint64_t)stride[b];
    }
}

/* Where piece k lies in the peer's memory. */
static uint64_t piece_addr(const unsigned char *pub, int peer, const tc_cma_piece *p)
{
    const uint64_t *line = pub_line(pub, peer);
    return line[p->buf] + (uint64_t)p->elem_off * line[3 + p->buf];
}

int tc_cma_read(const tc_cma *c, const unsigned char *pub, int peer, const tc_cma_piece *pc, int n)
{
    size_t got = 0;   /* bytes the batched call moved (pieces in order) */
#if TC_CMA_BUILT
    struct iovec l[TC_CMA_MAX_PIECES], r[TC_CMA_MAX_PIECES];
    size_t total = 0;
    for (int k = 0; k < n; k++) {
        l[k] = (struct iovec){ pc[k].dst, pc[k].len };
        r[k] = (struct iovec){ (void *)(uintptr_t)piece_addr(pub, peer, &pc[k]), pc[k].len };
        total += pc[k].len;
    }
    ssize_t m = n > 0 ? process_vm_readv((pid_t)c->pids[peer], l, (unsigned long)n, r, (unsigned long)n, 0) : 0;
    if (m > 0) got = (size_t)m;
    if (got == total) return MPI_SUCCESS;
#endif
    /* the rest (a short or failed batched read), piece by piece */
    for (int k = 0; k < n; k++) {
        size_t skip = got < pc[k].len ? got : pc[k].len;
        got -= skip;
        if (skip < pc[k].len &&
            read_remote(c->pids[peer], piece_addr(pub, peer, &pc[k]) + skip, pc[k].dst + skip, pc[k].len - skip))
            return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

int tc_cma_read_raw(int32_t pid, uint64_t addr, void *dst, size_t len)
{
    return read_remote(pid, addr, dst, len);
}

int tc_cma_type_ok(MPI_Datatype t)
{
    MPI_Aint lb, extent, tlb, textent;
    int size;
    if (PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS || PMPI_Type_size(t, &size) != MPI_SUCCESS)
        return 0;
    return tlb == 0 && (MPI_Aint)size == extent && textent == extent;
}

void tc_cma_free(tc_cma *c)
{
    free(c->pids);
    memset(c, 0, sizeof *c);
}
