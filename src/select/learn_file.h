/*
 * The learn file (TOPOCOLL_LEARN_FILE): the learner's outcomes kept across
 * runs, in the tuning-file format (tuning.c), so that the same file is read
 * back as a warm start, shown by `topocoll-info selection`, handed to
 * TOPOCOLL_TUNING_FILE or exported for Open MPI and MPICH (topocoll-tune).
 *
 * One rule per outcome, with "origin": "learned":
 *   { "np": [np, np], "nodes": [nodes, nodes], "bytes": [min, max],
 *     "algorithms": [winner, "native"], "origin": "learned", "ratio": w/n,
 *     "note": "...",
 *     "evidence": { "ppn": p, "op_class": k, "winner_s": s, "native_s": s,
 *                   "explore_s": s, "calls": n, "tried": [[name, s], ...] } }
 * "ratio" is present when both times are known; "tried" times below zero
 * mark candidates dropped early.  The file's other rules and top-level
 * "_..." sections are kept as they are when the file is written again.
 *
 * MPI-free (jansson); the MPI part (gathering the processes' outcomes at
 * MPI_Finalize, the first read) is src/api/learn_file_mpi.c.
 */
#ifndef TOPOCOLL_SELECT_LEARN_FILE_H
#define TOPOCOLL_SELECT_LEARN_FILE_H

#include <stddef.h>

#include "select/learn.h"

/* The most outcomes one file or one gathering holds. */
#define TC_LEARN_FILE_MAX 4096

/* The file's learned rules as outcomes (from_file set, calls 0) into
 * out[0..max); returns how many.  A file that does not exist: 0 and
 * *missing set (may be NULL).  A malformed one: -1 and err names the file
 * and the problem (the tuning-file reader's message, or the learned rule's
 * field). */
int tc_learn_file_read(const char *path, tc_learn_outcome *out, int max, int *missing, char *err,
                       size_t len);

/* Writes o[0..n) into path (those with from_file set excepted: their rule
 * stays as it was read, with its evidence): the rules of the same key (collective, np,
 * nodes, ppn, size class, op class) replaced, the file's other rules and
 * sections kept (a missing or malformed file: a new one; *replaced set
 * when a malformed one was overwritten, may be NULL).  `about` (may be
 * NULL) goes into the "_learned" section.  Written to a temporary file
 * beside path, then renamed over it.  0, or -1 with err. */
int tc_learn_file_write(const char *path, const tc_learn_outcome *o, int n, const char *about,
                        int *replaced, char *err, size_t len);

/* Outcomes as JSON text (malloc'd, the rules' format keyed by collective;
 * NULL when out of memory), and back (-1 with err when malformed): how
 * processes send theirs to the writer. */
char *tc_learn_encode(const tc_learn_outcome *o, int n);
int tc_learn_decode(const char *text, tc_learn_outcome *out, int max, char *err, size_t len);

/* Keeps one outcome per key in o[0..n) (the one with the most calls; the
 * first on a tie), order otherwise kept; returns the new count. */
int tc_learn_unique(tc_learn_outcome *o, int n);

/* 1 when a and b are for the same key. */
int tc_learn_same_key(const tc_learn_outcome *a, const tc_learn_outcome *b);

#endif
