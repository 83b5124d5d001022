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

/* Reads path and hands its outcomes to the learner; the number handed
 * (0: none or a missing file), or -1 for a malformed file (the message
 * printed by rank 0 of MPI_COMM_WORLD). */
int tc_learn_file_load(const char *path);

/* Collective over MPI_COMM_WORLD: rank 0 gathers every process's outcomes
 * (processes may have learned on different communicators), keeps one per
 * key and merges them into path (learn_file.h), `about` in its "_learned"
 * section.  An MPI error code, or MPI_SUCCESS (a file that cannot be
 * written is a message on rank 0). */
int tc_learn_file_save(const char *path, const char *about);

/* At MPI_Finalize, on every process of MPI_COMM_WORLD, while MPI works:
 * tc_learn_file_save into TOPOCOLL_LEARN_FILE, when it is set. */
int tc_learn_file_finalize(void);

#endif
