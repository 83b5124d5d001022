/*
 * The inline shared-memory protocol: the executor's side of the schedule
 * ops PUBLISH and COLLECT (src/sched/sched.h; the catalog entries
 * "shm_inline" of allreduce, allgather, bcast and reduce:
 * src/algo/<coll>/shm_inline.c).  A rank publishes n bytes into its slot of
 * node-shared 64-byte lines, each line carrying 56 bytes of data and the
 * call's sequence number; a reader collects a rank's bytes of this call
 * line by line as they arrive.
 *
 * One schedule that uses the lines is one call: tc_inline_begin (every rank
 * of the node of sh, the same n: the slots grow collectively), then at most
 * one tc_inline_publish and any tc_inline_collect, then tc_inline_finish
 * after the last collect.  Node ranks are the communicator's ranks.
 */
#ifndef TC_EXEC_SHM_INLINE_H
#define TC_EXEC_SHM_INLINE_H

#include <mpi.h>
#include <stdint.h>

#include "exec/shm.h"

typedef struct tc_inline_call {
    uint64_t seq;     /* the call's sequence number */
    int parity;       /* its slots: seq mod 2 */
} tc_inline_call;

/* The lines per slot that n bytes per rank take (tc_shm_lines_reserve). */
size_t tc_inline_lines(int64_t n);

/* Slots of at least `lines` lines (collective over the node when they
 * grow, between two calls of every rank: new slots carry on from the calls
 * made so far).  tc_inline_begin grows them itself; an area made ahead of
 * its calls (src/api/nb_areas.c) grows them here. */
int tc_inline_reserve(tc_shm *sh, size_t lines);

/* Slots for n bytes per rank (collective over the node when they grow) and
 * the call's sequence number.  An MPI error code. */
int tc_inline_begin(tc_shm *sh, int64_t n, tc_inline_call *c);

/* n bytes at src into this rank's slot, after making sure that nobody still
 * reads it from two calls back. */
void tc_inline_publish(const tc_shm *sh, const tc_inline_call *c, const void *src, int64_t n);

/* Node rank r's bytes of this call, at most n of them, into dst; returns
 * how many were copied (the writer's count when smaller); *truncated set
 * when the writer published more than n. */
int64_t tc_inline_collect(const tc_shm *sh, const tc_inline_call *c, int r, void *dst, int64_t n, int *truncated);

/* Without waiting: may this rank publish now (nobody still reads its slot
 * of this call's parity)?  Is node rank r's publication of this call there
 * for a collect of n bytes?  (1 yes: tc_inline_publish, tc_inline_collect
 * then return without waiting.)  For the nonblocking executor. */
int tc_inline_room_ready(const tc_shm *sh, const tc_inline_call *c);
int tc_inline_ready(const tc_shm *sh, const tc_inline_call *c, int r, int64_t n);

/* After the call's last collect; read_all: this rank collected from every
 * other rank of the node in this call. */
void tc_inline_finish(tc_shm *sh, const tc_inline_call *c, int read_all);

#endif
