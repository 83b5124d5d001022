/*
 * Topology object: for every rank of a communicator, its node and socket
 * (NUMA domain) and its index inside each, plus the member lists of every
 * node and socket.  Pure data: no MPI in this header, so the verifier and the
 * simulator use it without MPI.
 *
 * Invariants (established by tc_topo_from_map):
 *   - nodes are numbered 0..nnodes-1 in order of their lowest rank;
 *   - sockets are numbered globally 0..nsockets-1, node by node (the sockets
 *     of node n are node_sock_start[n] .. node_sock_start[n+1]-1), inside a
 *     node in order of their lowest rank;
 *   - member lists are in increasing rank order;
 *   - node_idx[r] is r's position in its node's member list, sock_idx[r] its
 *     position in its socket's member list.
 * Nothing assumes ranks of a node are consecutive or nodes are equal in size.
 */
#ifndef TC_TOPO_H
#define TC_TOPO_H

#include <stddef.h>

/* A view derived from a topology (e.g. the leader groups of hierarchical
 * algorithms), built on first use and kept with it: see tc_topo_get_view. */
typedef struct tc_topo_view {
    struct tc_topo_view *next;
    int kind;                  /* the owner's key (distinct per view) */
    void *data;
    void (*free_fn)(void *data);
} tc_topo_view;

typedef struct tc_topo {
    int size;          /* number of ranks */
    int nnodes;
    int nsockets;      /* global count */
    int *node_of;      /* [size] node of each rank */
    int *sock_of;      /* [size] global socket of each rank */
    int *node_idx;     /* [size] index of rank inside its node */
    int *sock_idx;     /* [size] index of rank inside its socket */
    int *node_start;   /* [nnodes+1] CSR offsets into node_ranks */
    int *node_ranks;   /* [size] members of each node, increasing */
    int *sock_start;   /* [nsockets+1] CSR offsets into sock_ranks */
    int *sock_ranks;   /* [size] members of each socket, increasing */
    int *sock_node;    /* [nsockets] node of each socket */
    int *node_sock_start; /* [nnodes+1] first global socket of each node */
    char desc[256];    /* human description ("spec 2x2x2/cyclic", "detected ...") */
    int node_order_ident; /* 1: node_ranks[i] == i for every i (block mapping) */
    int virtual_nodes;    /* 1: the nodes come from a virtual-topology spec given to the
                           * running job (TOPOCOLL_TOPOLOGY, topocoll_set_topology),
                           * not from the machines it runs on */
    int sock_order_ident; /* 1: sock_ranks[i] == i for every i */
    struct tc_topo_view *_Atomic views; /* derived views, cached (tc_topo_get_view) */
} tc_topo;

/* Build from per-rank (node label, socket label): labels are arbitrary
 * non-negative ints; socket labels are local to a node (the same label on two
 * nodes means two different sockets).  Returns NULL on out-of-memory or
 * invalid input (size < 1, negative label). */
tc_topo *tc_topo_from_map(int size, const int *node_label, const int *sock_label);

/* Parse a virtual-topology spec (see docs/topology.md) for `size` ranks.
 * On error returns NULL and writes one line naming the problem into err. */
tc_topo *tc_topo_from_spec(const char *spec, int size, char *err, size_t errlen);
/* The same; *oom (when not NULL) tells an allocation failure from a
 * malformed spec. */
tc_topo *tc_topo_from_spec_oom(const char *spec, int size, char *err, size_t errlen, int *oom);

/* A flat topology: one node, one socket. */
tc_topo *tc_topo_flat(int size);

tc_topo *tc_topo_dup(const tc_topo *t);

/* The view `kind` of t: cached, or made by make(t, arg) and cached (NULL
 * when make fails).  The topology stays logically read-only: views are
 * pure functions of it, built once and published atomically, so consumers
 * of one topology in several threads agree (a racing second build is freed). */
const void *tc_topo_get_view(const tc_topo *t, int kind, void *(*make)(const tc_topo *t, int arg),
                         int arg, void (*free_fn)(void *data));
void tc_topo_free(tc_topo *t);

static inline int tc_topo_node_size(const tc_topo *t, int node)
{ return t->node_start[node + 1] - t->node_start[node]; }
static inline int tc_topo_sock_size(const tc_topo *t, int sock)
{ return t->sock_start[sock + 1] - t->sock_start[sock]; }
static inline const int *tc_topo_node_members(const tc_topo *t, int node)
{ return t->node_ranks + t->node_start[node]; }
static inline const int *tc_topo_sock_members(const tc_topo *t, int sock)
{ return t->sock_ranks + t->sock_start[sock]; }

#endif
