/*
 * Calibration of the one-node allreduce memory model (src/select/shm_model.h)
 * on the running machine, with the communicator's ranks:
 *   - flag round trip: two ranks ping-pong a cache line of a node-shared
 *     window, a pair inside a socket and a pair across sockets (the topology
 *     object's sockets); the fastest of 10 to 1000 round trips;
 *   - copy and reduction bandwidth: every rank at once copies (memcpy) and
 *     reduces (PMPI_Reduce_local, MPI_DOUBLE, MPI_SUM) 512 KiB from a peer's
 *     part of the window, the peer inside its socket, then across;
 *   - where the context's cross-memory attach works (tc_cma.ok): the
 *     process_vm_readv bandwidth (every rank at once reads 512 KiB of a
 *     peer's private buffer, inside its socket, then across; the fastest of
 *     4, the system call's fixed cost taken out) and that fixed cost (the
 *     fastest of 10 reads of 64 bytes); elsewhere the defaults stand (the
 *     single-copy entries decline there anyway);
 *   - the MPI library's allreduce (PMPI_Allreduce of 8 B .. 256 KiB, the
 *     median of a few calls);
 *   - the fixed cost of a call of a shared-memory schedule: 8 B
 *     shm_dissemination allreduces on the context (3, then 5 timed batches
 *     of 32), internal calls: the context's cached schedule bound to a call
 *     record and run by the executor, as a call runs once its choice is
 *     made (no public entry point, no selection, so no recursion into the
 *     model; nothing explained, nothing in the run summary); less the
 *     formula's part.
 * One socket: the cross-socket values are the intra-socket ones (the model
 * says so).  Every rank then holds the maximum over the ranks of every time
 * (the minimum of every bandwidth), so that all ranks predict alike and
 * choose alike.  Bounded: about 1-3 ms on an idle machine (the ping-pongs
 * stop after 300 us each, or 10 round trips), reported in the model's line.
 *
 * Once per context, kept in it (tc_ctx.model): the first call whose choice
 * needs the model (an allreduce on one node whose ranks share memory,
 * nothing forced, the built-in table) makes it, collectively over the
 * context's communicator; every rank reaches that choice in the same call.
 * Not when the context is made: a program that never needs the model pays
 * neither the calibration's time nor its node-shared window (516 KiB per
 * rank, more than a small /dev/shm holds beside the MPI library's own).  A
 * new topology (topocoll_set_topology) drops it, to be made again on need.
 * The values are kept per process:
 * a later context whose ranks all have values of the same socket shape
 * agrees on them with one allreduce instead of measuring again.
 * TOPOCOLL_SHM_MODEL="flag=..,copy=..,reduce=.." (shm_model.h) replaces the
 * calibration (no measurement, no collective); a malformed value is reported
 * once and the calibration runs instead.  TOPOCOLL_EXPLAIN prints the model's
 * values once per context (rank 0).
 */
#ifndef TC_API_SHM_CALIBRATE_H
#define TC_API_SHM_CALIBRATE_H

#include "api/context.h"
#include "select/shm_model.h"

/* Frees x's model (x->model NULL after). */
void tc_shm_model_drop(tc_ctx *x);

/* The model for a call of x with arguments a: NULL when it does not apply
 * (see above); else the context's values (made on this first need:
 * collective then).  *rc receives an MPI error of the
 * calibration (NULL returned). */
const tc_shm_model *tc_shm_model_for(tc_ctx *x, const tc_args *a, int *rc);

/* The selection's model: as tc_shm_model_for, but a calibration (about
 * 5 ms) is made only at the TC_SHM_MODEL_PATIENCE-th selection of x that
 * reaches the model; the ones before get NULL (the walk goes on to the cost
 * model and native), unless TOPOCOLL_SHM_MODEL gives the values or x has
 * them.  A run with a few hundred one-node allreduces cannot win back the
 * calibration's time; the count is the same on every rank (every rank walks
 * the same selection at the same call), so all calibrate in the same call. */
enum { TC_SHM_MODEL_PATIENCE = 1024 };
const tc_shm_model *tc_shm_model_patient(tc_ctx *x, const tc_args *a, int *rc);

/* Calibrate on x now (collective over x->comm; the ranks must share memory
 * on one node) and return the values agreed on; for tools and tests. */
int tc_shm_model_calibrate(tc_ctx *x, tc_shm_model *out);

/* This process's calibrations so far (each a measurement, not the
 * agreement on kept values) and the internal calls they ran: for tests. */
void tc_shm_calibration_counts(unsigned *calibrations, unsigned *internal_calls);

#endif
