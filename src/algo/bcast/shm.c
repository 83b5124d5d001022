/*
 * bcast family "shm:stages=1|2,chunk=C" (one node, any root): the one-stage
 * and two-stage broadcasts of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory
 * Collective Communication for MPI" (2013), section 3.3, as a broadcast of
 * its own, with processes instead of threads: the root copies its buffer
 * into the node-shared window and the others copy it out.
 *
 * Steps: the buffer goes in chunks of C bytes (chunk=all: one chunk).
 *   stages=1: the root copies chunk k into its slot and raises every other
 *   rank's flag; every other rank waits for it and copies chunk k to its
 *   buffer (while the root copies chunk k+1 in).
 *   stages=2: one reader per socket of the topology object (the socket's
 *   lowest rank; the root for its own socket) has a slot in its socket's
 *   memory.  The root copies chunk k into its slot and raises the flags of
 *   the other sockets' readers and of its own socket's ranks; a reader
 *   copies chunk k from the root's slot into its own slot and its buffer,
 *   then raises its socket's ranks' flags; they copy it from there.  One
 *   socket: stages=2 is stages=1.
 *   Arrival: every rank but the root raises a flag when it starts (stages=2:
 *   to its socket's reader, which passes its socket's on to the root once
 *   all have come), and the root waits for them before the last chunk's
 *   flags, so no rank returns before every rank has started the call (the
 *   window's halves alternate between calls: src/algo/shm_rooted.h).
 *   The steps are tc_shm_bcast_node (src/algo/shm_rooted.c), which the
 *   node phase of bcast "hierarchical" shares.
 * Cost (p ranks, s sockets, n bytes, K = ceil(n / C) chunks): root n copy
 *   + (K + 1) flag rounds; stages=1: p-1 readers of the root's slot (across
 *   sockets); stages=2: s-1 readers across sockets, the rest read inside
 *   their socket (one more copy and flag on the way); with K > 1 the copies
 *   out overlap the copies in (pipeline).
 * Memory: node-shared n (stages=2: s n), twice (halves alternate).
 * Restrictions: every rank on one node, node-shared memory.
 * Source: Li, Hoefler, Snir 2013, section 3.3 (one-stage and two-stage
 *   broadcast); chunking and arrival flags are this library's.
 */
#include <stdio.h>

#include "algo/shm_rooted.h"

static const int64_t chunk_sizes[] = { 0, 65536, 524288 };

static int generate(tc_sched *s, const tc_args *a, const tc_topo *t, int two, int64_t C)
{
    if (a->size == 1 || a->rcount == 0) return 0;
    tc_shm_bcast_node(s, t, a->rank, a->root, two, a->rcount, C);
    return 0;
}

/* ---- the family's catalog row ---------------------------------------------- */

enum { P_STAGES, P_CHUNK };
static const char *const stages_values[] = { "1", "2", NULL };
static const char *const chunk_values[] = { "all", "64k", "512k", NULL };
static const char *const chunk_text[] = { "", ", pipelined in chunks of 64 KiB", ", pipelined in chunks of 512 KiB" };
static const tc_param_def params[] = {
    { "stages", stages_values, 0 },
    { "chunk", chunk_values, 0 },
};

static void describe(const tc_family *f, const int *v, tc_instance_text *out)
{
    (void)f;
    if (v[P_CHUNK] == 0) snprintf(out->alias, sizeof out->alias, "shm_%sstage", stages_values[v[P_STAGES]]);
    else
        snprintf(out->alias, sizeof out->alias, "shm_%sstage_%s", stages_values[v[P_STAGES]],
                 chunk_values[v[P_CHUNK]]);
    snprintf(out->desc, sizeof out->desc, "shared memory: the root copies in, %s%s",
             v[P_STAGES] == 0 ? "every rank copies out (one stage)"
                              : "one reader per socket relays into its socket (two stages)",
             chunk_text[v[P_CHUNK]]);
}

static int family_generate(tc_sched *s, const tc_args *a, const tc_topo *t)
{
    const int *v = a->param;
    return generate(s, a, t, v[P_STAGES] == 1, chunk_sizes[v[P_CHUNK]]);
}

const tc_family tc_bcast_shm = {
    .coll = TOPOCOLL_BCAST, .name = "shm",
    .summary = "node-shared memory: the root copies in, one-stage or two-stage (a reader per socket) "
               "copy-out, optionally pipelined in chunks (Li, Hoefler, Snir 2013)",
    .source = __FILE__, .nparams = 2, .params = params, .rule = "",
    .describe = describe, .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE, .generate = family_generate,
};
