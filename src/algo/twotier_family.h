/*
 * The two-tier families of Jain, Lau, Kale, "Collectives on Two-tier Direct
 * Networks" (2012): one catalog row per collective, "twotier:units=ranks"
 * (alias "twotier": the paper's "node" is a rank of a topology node) and
 * "twotier:units=sockets" (alias "twotier_sockets": the paper's "node" is a
 * socket, as on the paper's own machine, e.g. spec 64x16x16).  bcast adds
 * chunked=no|yes (aliases "twotier_chunked", "twotier_chunked_sockets"):
 * the same two tiers with the buffer split into chunks, see
 * src/algo/bcast/twotier_chunked.c.  reduce and reduce_scatter_block add
 * landing=no|yes (aliases "twotier_landing", "twotier_landing_sockets";
 * the former family name "twotier_landing" stands for landing=yes): the
 * reduction among supernodes done where the L2 data land, see
 * src/algo/reduce/twotier_landing.c.  Tiers and wiring: src/blocks/twotier_plan.h.
 */
#ifndef TC_ALGO_TWOTIER_FAMILY_H
#define TC_ALGO_TWOTIER_FAMILY_H

#include "algo/catalog.h"

/* Parameter indices in tc_args.param (const int[]). */
enum { TT_P_UNITS = 0, TT_P_CHUNKED = 1, TT_P_LANDING = 1 };

/* units=ranks|sockets (default ranks); bcast: units, then chunked=no|yes;
 * reduce and reduce_scatter_block: units, then landing=no|yes. */
extern const tc_param_def tt_units_params[1], tt_bcast_params[2], tt_reduce_params[2];
/* The reductions' enumeration order: landing=no first (units inside). */
extern const int tt_reduce_order[2];

/* Are the units sockets (tc_args.param of a two-tier instance)? */
static inline int tt_units_sockets(const tc_args *a)
{
    const int *v = a->param;
    return v && v[TT_P_UNITS];
}

/* Alias "twotier[_sockets]", description "<summary>, units = ... of a node". */
void tt_family_describe(const tc_family *f, const int *v, tc_instance_text *out);

/* The reductions: alias "twotier[_sockets]" for landing=no,
 * "twotier_landing[_sockets]" (source landing_source) for landing=yes;
 * description "<owner or landing>, units = ... of a node". */
void tt_reduce_describe(const int *v, tc_instance_text *out, const char *owner, const char *landing,
                        const char *landing_source);

/* Every two-tier family's cost function (tc_family.cost): the bandwidth
 * terms of Jain, Lau, Kale, "Collectives on Two-tier Direct Networks"
 * (2012, Table 2) with supernodes = nodes (G), units = ranks or sockets of
 * a node (u per node, k ranks each), N = p n for the block collectives:
 * the table's load of the busiest L1 link times the u - 1 L1 links of a
 * unit leader (its memory serves them one after another), its L2 load times
 * the G - 1 L2 links of a node (they share the node's network link), a
 * message per hop (u - 1 per L1 hop, ceil((G-1)/u) per L2 hop), k - 1
 * messages inside a unit: allgather L1 N(1/u + 1/(G u)), L2 N/G; scatter,
 * gather L1 N/u, L2 N/G; bcast L1 2n, L2 n (chunked: L1 3n/u, L2 n/u from
 * the relays plus n out of the root's node); reduce L1 n/u (landing: 2n/u +
 * 2n/(G u)), L2 2n/G, 2n reduced; reduce_scatter_block L1 N(1/u + 1/(G u)),
 * L2 N/G, 2N reduced.  Several nodes only.  The level totals are estimates:
 * over the network what every node receives from the others; inside the
 * nodes the table's L1 loads on every L1 link (allgather,
 * reduce_scatter_block), else what every rank but its node's entry point
 * receives or gives there (n each, a lower bound). */
int tt_cost(const tc_algo *al, const tc_args *a, const tc_topo *t, double n, tc_cost *c);

/* Generators shared across files. */
int tt_scatter_generate(tc_sched *s, const tc_args *a, const tc_topo *t);
int tt_reduce_landing_generate(tc_sched *s, const tc_args *a, const tc_topo *t);
int tt_rsb_landing_generate(tc_sched *s, const tc_args *a, const tc_topo *t);
extern const char tc_reduce_twotier_landing_source[], tc_rsb_twotier_landing_source[];  /* their __FILE__ */
int tt_bcast_chunked_generate(tc_sched *s, const tc_args *a, const tc_topo *t);
extern const char tc_bcast_twotier_chunked_source[];   /* its __FILE__ */

#endif
