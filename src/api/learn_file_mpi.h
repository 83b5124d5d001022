/*
 * TOPOCOLL_LEARN_FILE in the MPI layer: the warm start at the first
 * context, the gathering and writing at MPI_Finalize (the file's format and
 * its reading and writing: src/select/learn_file.h).
 */
#ifndef TOPOCOLL_API_LEARN_FILE_MPI_H
#define TOPOCOLL_API_LEARN_FILE_MPI_H

/* Once per process (later calls return at once): reads TOPOCOLL_LEARN_FILE,
 * when set, and hands its outcomes to the learner (tc_learn_preload).  A
 * malformed file: one message (rank 0 of MPI_COMM_WORLD) naming the file and
 * the problem; the learner starts cold. */
void tc_learn_file_start(void);

/* At MPI_Finalize, on every process of MPI_COMM_WORLD, while MPI works:
 * when TOPOCOLL_LEARN_FILE is set, rank 0 gathers every process's outcomes
 * (processes may have learned on different communicators), keeps one per
 * key and merges them into the file.  An MPI error code, or MPI_SUCCESS (a
 * file that cannot be written is a message, not an error of MPI_Finalize). */
int tc_learn_file_finalize(void);

#endif
