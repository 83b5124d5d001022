/*
 * Single-copy node-shared memory: Linux cross-memory attach
 * (process_vm_readv), for schedules with RREAD ops (sched/sched.h).
 *
 * Per communicator context (inside its tc_shm): the pid of every rank of
 * the node, exchanged once, and whether every rank of the communicator can
 * read its node peers' memory: at context creation each rank reads its next
 * node peer's probe word with process_vm_readv (EPERM under Yama
 * ptrace_scope >= 1 or a seccomp filter, ENOSYS without
 * CONFIG_CROSS_MEMORY_ATTACH, a wrong value across PID namespaces), and an
 * allreduce over the communicator agrees, so that every rank selects alike.
 * TOPOCOLL_CMA=0 turns it off.  No kernel module, no library: where the C
 * library lacks process_vm_readv (not Linux) the entries decline.
 *
 * Per call the executor publishes this rank's SEND, RECV and TMP (address
 * and element stride) in its line of the node's publication area (after
 * the flag counters of shm.c); the schedule orders every read after a
 * signal the owner raised from its round 0 on (release / acquire on the
 * flags), and the owner's return after a signal from every reader that
 * follows its reads (the verifier proves both), so one line per rank is
 * enough: nobody reads a line while its owner rewrites it for the next call.
 */
#ifndef TC_EXEC_CMA_H
#define TC_EXEC_CMA_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tc_cma {
    int ok;                 /* every rank can read its node peers (agreed) */
    char why[160];          /* when not ok: why, for explain lines */
    int32_t *pids;          /* [node size] */
    unsigned long calls;    /* schedules with RREAD run (published) */
} tc_cma;

/* Bytes of one rank's line in the publication area. */
#define TC_CMA_PUB_LINE 128

/* Probe and agree (collective over comm; node_comm is this rank's node):
 * node_shm says whether the node's ranks share memory at all. */
int tc_cma_init(tc_cma *c, MPI_Comm comm, MPI_Comm node_comm, int node_shm);
/* Publish this call's buffers (base[b], stride[b] for SEND, RECV, TMP) in
 * line `me` of the area pub. */
void tc_cma_publish(tc_cma *c, unsigned char *pub, int me, char *const base[3], const int64_t stride[3]);
/* One region to read: len bytes of the peer's buffer buf (SEND, RECV, TMP)
 * from element elem_off (its published stride), into dst. */
typedef struct tc_cma_piece {
    int buf;
    int64_t elem_off;
    char *dst;
    size_t len;
} tc_cma_piece;
#define TC_CMA_MAX_PIECES 64

/* Read n pieces (at most TC_CMA_MAX_PIECES) of node rank peer's buffers,
 * as published for this call, in one system call where the kernel takes
 * them whole.  MPI_SUCCESS or MPI_ERR_OTHER. */
int tc_cma_read(const tc_cma *c, const unsigned char *pub, int peer, const tc_cma_piece *pc, int n);
/* Read len bytes at address addr of process pid into dst, outside any
 * schedule (the model's calibration): 0 or an errno (ENOSYS where the
 * system lacks process_vm_readv). */
int tc_cma_read_raw(int32_t pid, uint64_t addr, void *dst, size_t len);
/* Is a datatype laid out as dense bytes (the single-copy entries need it)? */
int tc_cma_type_ok(MPI_Datatype t);
void tc_cma_free(tc_cma *c);

#endif
