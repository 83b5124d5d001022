/*
 * The memory model of the one-node shared-memory allreduce (MPI-free):
 * predicted time of each shm_* allreduce entry and of the MPI library's own
 * allreduce from a few machine values, and the choice between them.
 *
 * After the latency/bandwidth model of Li, Hoefler, Snir, "NUMA-Aware
 * Shared-Memory Collective Communication for MPI" (2013, "Performance Model"): a
 * synchronisation step costs a flag transfer (inside a socket or across
 * sockets), moving data costs bytes over the bandwidth of copying or of
 * reducing (again inside a socket or across).  The values are measured on the
 * running machine by the MPI layer (src/api/shm_calibrate.c), given by
 * TOPOCOLL_SHM_MODEL, or the defaults below.  The formulas are in
 * shm_model.c, one function per family, and in docs/allreduce.md ("Model").
 */
#ifndef TC_SELECT_SHM_MODEL_H
#define TC_SELECT_SHM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "algo/catalog.h"

#define TC_SHM_MODEL_NNATIVE 4
/* The sizes (bytes per rank) at which the MPI library's allreduce is measured. */
extern const int64_t tc_shm_model_native_bytes[TC_SHM_MODEL_NNATIVE];

enum { TC_SHM_INTRA = 0, TC_SHM_CROSS = 1 };

typedef struct tc_shm_model {
    double flag_us[2];     /* flag round trip between two ranks (microseconds) */
    double copy_gbs[2];    /* copy bandwidth per rank, every rank copying at once (GB/s) */
    double reduce_gbs[2];  /* reduction bandwidth per rank (bytes of one operand combined
                              into an accumulator, GB/s), every rank reducing at once */
    double native_us[TC_SHM_MODEL_NNATIVE]; /* the MPI library's allreduce at
                                               tc_shm_model_native_bytes[] */
    double call_us;        /* fixed cost of one call of a shared-memory schedule beyond the
                              formulas (argument checks, schedule lookup, executor set-up):
                              a measured 8 B shm_dissemination less its formula */
    double cma_gbs[2];     /* process_vm_readv bandwidth per rank, every rank reading a
                              peer's private buffer at once (GB/s; the system call's
                              fixed cost taken out) */
    double cma_call_us;    /* fixed cost of one process_vm_readv system call (us) */
    int cma_calibrated;    /* the cma values were measured (else the defaults) */
    double cma_cost_ms;    /* the part of cost_ms that measured them */
    int one_socket;        /* calibrated on one socket: the CROSS values are the INTRA ones */
    double cost_ms;        /* the calibration's own duration (0: not calibrated) */
    const char *source;    /* "calibrated", "TOPOCOLL_SHM_MODEL", "defaults" */
} tc_shm_model;

/* The shape of a call as the model sees it. */
typedef struct tc_shm_shape {
    int p;                 /* ranks (all on one node) */
    int s;                 /* sockets of the node */
    int q;                 /* ranks of the largest socket */
    int groups;            /* socket groups the families use: s for commutative ops, else 1 */
    int64_t bytes;         /* per rank */
    int64_t esize;         /* bytes of one element (tile sizes count elements) */
} tc_shm_shape;

/* Defaults: the development machine (docs/allreduce.md, "Model"). */
void tc_shm_model_defaults(tc_shm_model *m);

/* Parse "key=value,..." (keys flag, copy, reduce, cma set both levels; flag_x,
 * copy_x, reduce_x, cma_x the cross-socket ones; call the fixed cost of a call;
 * cma_call the fixed cost of one process_vm_readv;
 * native8, native2k, native16k, native256k the MPI library's times; op the
 * per-operation cost) over m.  0, or -1 and a message naming
 * the problem in err. */
int tc_shm_model_parse(const char *text, tc_shm_model *m, char *err, size_t errlen);

/* One line: the values and where they come from. */
void tc_shm_model_format(const tc_shm_model *m, char *buf, size_t len);

/* The shape of a call on topology t (one node). */
tc_shm_shape tc_shm_shape_of(const tc_args *a, const tc_topo *t, int64_t bytes);

/* Predicted microseconds of the entry named name (an alias such as
 * "shm_tiled_naive", "shm_rb4_2s", "shm_tiled_hier_16k", "shm_dissemination",
 * "shm_tiled_cyclic_2k_cma", "shm_tiled_hier_16k_cma", "shm_rb4_2s_cma",
 * "shm_dissemination_cma"),
 * or a negative value when the model does not know the name. */
double tc_shm_model_predict(const tc_shm_model *m, const char *name, const tc_shm_shape *sh);

/* Predicted microseconds of the MPI library's allreduce: piecewise linear
 * through the measured sizes, the last segment's slope beyond them. */
double tc_shm_model_native(const tc_shm_model *m, int64_t bytes);

/* Whether the model chooses for this call: an allreduce of p > 1 ranks on one
 * node whose ranks share memory. */
int tc_shm_model_applies(const tc_args *a, const tc_topo *t);

/* The model's choice: the accepted shm entry with the lowest prediction when
 * that beats native's prediction, else native.  why (NULL when nobody reads
 * it) receives "model (<source>): X predicted ... us (tree ... us, native ... us)". */
const tc_algo *tc_shm_model_select(const tc_shm_model *m, const tc_args *a, const tc_topo *t,
                                   int64_t bytes, char *why, size_t whylen);

/* The smallest size in [lo, hi] (bytes of doubles, doubling) at which the model prefers
 * a shared-memory entry over native; -1 when it never does. */
int64_t tc_shm_model_crossover(const tc_shm_model *m, const tc_args *a, const tc_topo *t,
                               int64_t lo, int64_t hi);

#endif
