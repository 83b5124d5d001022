/*
 * The cost model's parameters, fitted on the machine being tuned
 * (docs/selection.md, "The cost model"): ping-pong between rank 0 and the
 * first rank at each level of distance in MPI_COMM_WORLD's topology (the
 * same socket, the same node on another socket, another node).  Per level,
 * S = 8 B and L = 256 KiB, each as the best of 5 batches of round trips
 * (what interference leaves alone): alpha = t(S) / 2, beta = (t(L) - t(S))
 * / 2 / (L - S).  A level that the topology lacks keeps the built-in
 * values (absent from the section).  gamma: the time of a local sum of L/8
 * doubles per byte.  Collective over MPI_COMM_WORLD; the "_model" section
 * comes back on rank 0 (NULL elsewhere).
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <jansson.h>

#include "topocoll.h"
#include "tune_mpi.h"

#define PP_SMALL 8
#define PP_LARGE (256 * 1024)
#define PP_BATCHES 5

static const char *const level_names[3] = { "socket", "node", "network" };

/* Seconds per round trip of `bytes` between rank 0 and peer (the best batch). */
static double round_trip(MPI_Comm comm, int rank, int peer, char *buf, int bytes, int iters)
{
    double best = 1e30;
    for (int b = 0; b < PP_BATCHES; b++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank == 0) {
                MPI_Send(buf, bytes, MPI_BYTE, peer, 7, comm);
                MPI_Recv(buf, bytes, MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, bytes, MPI_BYTE, 0, 7, comm, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_BYTE, 0, 7, comm);
            }
        }
        double t = (MPI_Wtime() - t0) / iters;
        if (t < best) best = t;
    }
    return best;
}

/* The first rank at each level from rank 0 (-1: none), on every rank. */
static void peers(MPI_Comm comm, int np, int peer[3])
{
    topocoll_rank_place p0, pr;
    peer[0] = peer[1] = peer[2] = -1;
    if (topocoll_topology_place(comm, 0, &p0) == MPI_SUCCESS)
        for (int r = 1; r < np; r++) {
            if (topocoll_topology_place(comm, r, &pr) != MPI_SUCCESS) break;
            int l = pr.socket == p0.socket ? 0 : pr.node == p0.node ? 1 : 2;
            if (peer[l] < 0) peer[l] = r;
        }
    MPI_Bcast(peer, 3, MPI_INT, 0, comm);
}

/* Seconds per reduced byte: a sum of doubles (the gamma of the model). */
static double reduce_rate(char *buf)
{
    double *x = (double *)(void *)buf, best = 1e30;
    size_t n = PP_LARGE / 2 / sizeof(double);
    for (size_t i = 0; i < 2 * n; i++) x[i] = (double)(i % 7);
    for (int b = 0; b < PP_BATCHES; b++) {
        double t0 = MPI_Wtime();
        for (int it = 0; it < 10; it++)
            for (size_t i = 0; i < n; i++) x[i] += x[n + i];
        double t = (MPI_Wtime() - t0) / 10 / (double)(n * sizeof(double));
        if (t < best) best = t;
    }
    return best > 1e-13 ? best : 1e-13;
}

json_t *tune_fit_model(MPI_Comm comm)
{
    int rank, np, peer[3];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &np);
    char *buf = calloc(PP_LARGE, 1);
    int ok = buf != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(buf);
        return NULL;
    }
    peers(comm, np, peer);
    json_t *model = rank == 0 ? json_object() : NULL, *fitted = rank == 0 ? json_object() : NULL;
    for (int l = 0; l < 3; l++) {
        if (peer[l] < 0 || (rank != 0 && rank != peer[l])) continue;
        double ts = round_trip(comm, rank, peer[l], buf, PP_SMALL, 200);
        double tl = round_trip(comm, rank, peer[l], buf, PP_LARGE, 10);
        if (rank != 0) continue;
        double alpha = ts / 2 > 1e-9 ? ts / 2 : 1e-9;
        double beta = (tl - ts) / 2 / (PP_LARGE - PP_SMALL);
        if (beta < 1e-13) beta = 1e-13;
        json_object_set_new(model, level_names[l], json_pack("{s:f, s:f}", "alpha", alpha, "beta", beta));
        json_object_set_new(fitted, level_names[l],
                            json_pack("{s:i, s:f, s:f}", "peer", peer[l], "rtt_8B_us", ts * 1e6,
                                      "rtt_256KiB_us", tl * 1e6));
    }
    if (rank == 0) {
        json_object_set_new(model, "gamma", json_real(reduce_rate(buf)));
        json_object_set_new(fitted, "how", json_string("ping-pong from rank 0, best of 5 batches; "
                                                       "alpha = rtt(8 B)/2, beta = slope to 256 KiB"));
        json_object_set_new(model, "fitted", fitted);
    }
    free(buf);
    MPI_Barrier(comm);
    return model;
}
