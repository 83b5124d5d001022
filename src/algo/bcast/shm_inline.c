/*
 * bcast "shm_inline" (one node, small messages): the root publishes its
 * buffer in node-shared memory and every other rank reads it.
 *
 * The one-stage broadcast of Li, Hoefler, Snir, "NUMA-Aware Shared-Memory
 * Collective Communication for MPI" (2013), section 3.3, with the
 * synchronisation of allreduce "shm_inline": the call's sequence number
 * travels in each 64-byte line of data (56 data bytes per line), so a
 * message of up to 56 bytes costs each reader one line transfer.
 *
 * Steps: root: (1) if a reader may still read the root's slot of this
 *   call's parity (two calls back), wait until every rank's done line says
 *   it finished that call; (2) copy the buffer (packed if its type is not
 *   contiguous) into its slot line by line, each line's sequence number
 *   stored after its data (release).  Others: wait for the root's lines of
 *   this call and copy them out (unpacked for a non-contiguous type).
 *   Everyone: store the call's number in its done line (release).
 * Reuse: with one writer, nothing in the protocol's data flow stops the root
 *   from running ahead of a slow reader, so the root checks the readers'
 *   done lines before overwriting a parity: it publishes call s only once
 *   every reader finished call s-2, so it is never more than two calls
 *   ahead; the argument, for every mix of inline calls, is in
 *   src/exec/shm_inline.c.  In a run of broadcasts the check reads lines
 *   that the readers wrote a call earlier, off the readers' critical path.
 * Cost (p ranks, n bytes): root n/56 line writes and p-1 done-line reads;
 *   each reader n/56 line reads (the first one transfer latency, the rest
 *   pipelined) and one done-line write.
 * Memory: node-shared 2 p (ceil(n/56) + 1) lines; n bytes of private scratch.
 * Restrictions: every rank on one node, node-shared memory; any datatype.
 * Source: Li, Hoefler, Snir 2013, section 3.3 (one-stage broadcast); the
 *   sequence numbers inside the data lines and the done lines are this
 *   library's.
 * No schedule: the MPI layer runs the protocol directly (TC_REQ_DIRECT); the
 *   verifier and the simulator do not see it, the MPI tests run it like
 *   every other entry.
 */
#include "algo/catalog.h"

const tc_algo tc_bcast_shm_inline = {
    .coll = TOPOCOLL_BCAST, .name = "shm_inline",
    .desc = "shared memory, the root publishes and every rank reads; sequence numbers inside the "
            "data's cache lines (small messages)",
    .req = TC_REQ_NODE_SHM | TC_REQ_ONE_NODE | TC_REQ_DIRECT, .generate = NULL, .source = __FILE__,
};
