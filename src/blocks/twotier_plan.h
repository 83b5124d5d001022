/*
 * The two tiers of the algorithms of Jain, Lau, Kale, "Collectives on
 * Two-tier Direct Networks" (2012), section 5, read from the topology object.
 *
 *   supernode  a node of the topology (tc_topo.node_of);
 *   unit       the paper's "node" inside a supernode: one rank (tiers
 *              node -> rank, e.g. "4x8") or one socket of the topology
 *              (tiers node -> socket -> rank, e.g. "64x16x16" for the paper's
 *              64 supernodes x 16 nodes x 16 cores);
 *   core       a rank of a unit; the unit's leader is the paper's "core 0":
 *              its lowest rank, except that the root leads its own unit.
 *
 * The paper's round-robin L2 wiring, with n_s the number of units of
 * supernode s: the link from supernode s to supernode t leaves from unit
 * (t mod n_s) of s (the gateway) and lands on unit (s mod n_t) of t, which is
 * t's gateway towards s.  Supernodes keep their topology numbers, so the rule
 * names the same links whatever the root.
 *
 * Plan order: positions 0..p-1 list the ranks supernode by supernode, unit
 * by unit, each unit's ranks in increasing order.  A supernode's and a
 * unit's positions are therefore contiguous; with a block mapping the plan
 * order is the rank order ("identity").
 *
 * The plan is a view over the topology's CSR arrays: building it costs
 * O(1), checking for identity O(units).  Nothing assumes consecutive ranks
 * per node or equal supernodes or units.
 */
#ifndef TC_ALGO_TWOTIER_PLAN_H
#define TC_ALGO_TWOTIER_PLAN_H

#include <stdint.h>

#include "sched/sched.h"
#include "topo/topo.h"

typedef struct tt_plan {
    const tc_topo *t;
    int sockets;
    int p, S;              /* ranks, supernodes */
    int root;              /* -1 when the collective has none */
    int s0, ur;            /* root's supernode and unit (-1 without root) */
    const int *unit_first; /* [S+1] units of supernode s: unit_first[s] .. unit_first[s+1]-1 */
    const int *pos_first;  /* [units+1] first position of each unit; NULL: unit u is position u */
    const int *rank_at;    /* [p] rank at each position */
} tt_plan;

/* sockets: 1 when the units are sockets, 0 when they are ranks; root -1
 * when the collective has none. */
void tt_plan_init(tt_plan *pl, const tc_topo *t, int sockets, int root);

static inline int tt_nunits(const tt_plan *pl, int s)
{ return pl->unit_first[s + 1] - pl->unit_first[s]; }
static inline int tt_upos(const tt_plan *pl, int u)
{ return pl->pos_first ? pl->pos_first[u] : u; }
static inline int tt_ucount(const tt_plan *pl, int u)
{ return tt_upos(pl, u + 1) - tt_upos(pl, u); }
static inline int tt_snpos(const tt_plan *pl, int s)
{ return tt_upos(pl, pl->unit_first[s]); }
static inline int tt_sncount(const tt_plan *pl, int s)
{ return tt_snpos(pl, s + 1) - tt_snpos(pl, s); }
static inline int tt_sn_of_unit(const tt_plan *pl, int u)
{ return pl->sockets ? pl->t->sock_node[u] : pl->t->node_of[pl->rank_at[u]]; }
/* Local index of unit u inside its supernode. */
static inline int tt_uidx(const tt_plan *pl, int u)
{ return u - pl->unit_first[tt_sn_of_unit(pl, u)]; }
/* The unit of supernode `from` whose L2 link goes to supernode `to`; the
 * link lands on tt_gateway(pl, to, from). */
static inline int tt_gateway(const tt_plan *pl, int from, int to)
{ return pl->unit_first[from] + to % tt_nunits(pl, from); }

int tt_unit_of(const tt_plan *pl, int rank);
int tt_pos(const tt_plan *pl, int rank);
int tt_leader(const tt_plan *pl, int u);
/* Is the plan order the rank order? */
int tt_identity(const tt_plan *pl);

/* Piece i of n split into k as evenly as possible (the first n % k pieces
 * one larger): its first element; piece i is [tt_split(n,k,i), tt_split(n,k,i+1)). */
static inline int64_t tt_split(int64_t n, int k, int i)
{ return (int64_t)i * (n / k) + (i < n % k ? i : n % k); }

/* Copies between plan order (contiguous at pbuf[poff + (j - first) * pblk])
 * and rank order (block of rank r at ubuf[r * ublk]) for positions
 * [first, first + n), one copy per run of consecutive ranks.  to_user: 1
 * copies plan -> rank order. */
void tt_copy_runs(tc_sched *s, const tt_plan *pl, int first, int n, int to_user,
                  int pbuf, int64_t poff, int64_t pblk, int ubuf, int64_t ublk);

#endif
