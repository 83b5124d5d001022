/*
 * Internals shared by the network models (net.c and net_<kind>.c): error
 * messages, the key=value parameter parser, checked arithmetic, and the
 * per-kind builders.  Not installed, not used outside src/sim.
 */
#ifndef TC_SIM_NET_IMPL_H
#define TC_SIM_NET_IMPL_H

#include <stdint.h>

#include "sim/net.h"

#if defined(__GNUC__) || defined(__clang__)
#define NET_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define NET_PRINTF(a, b)
#endif

/* Where parse errors go: the whole spec (quoted back) and the buffer. */
typedef struct net_errctx {
    const char *spec;
    char *err;
    size_t errlen;
} net_errctx;

/* Writes "network spec '<spec>': <message>"; returns NULL for convenience. */
void *net_fail(const net_errctx *e, const char *fmt, ...) NET_PRINTF(2, 3);

/* One key of a "k=v,k=v" list.  Numbers are decimal integers 1 .. INT_MAX;
 * a key with words (NULL-terminated list) takes one of them, val = index. */
typedef struct net_key {
    const char *name;
    int required;
    int def;
    const char *const *words;
    int val;
    int seen;
} net_key;

/* Parses params into keys; returns 0 or -1 with the message written. */
int net_parse_keys(const net_errctx *e, const char *params, net_key *keys, int nkeys);

/* Parses "AxBxC..." (exactly n positive counts); names[i] names count i in
 * messages, form is the expected shape ("SNxNPSxCPN"). */
int net_parse_counts(const net_errctx *e, const char *params, int n, int *out,
                     const char *const *names, const char *form);

/* a * b into *out when it stays <= limit; 0 otherwise. */
int net_mul(int64_t a, int64_t b, int64_t limit, int64_t *out);

/* Allocates the per-node tables (router_of only when asked) and checks the
 * rank and link limits; returns -1 with the message written. */
int net_finish(const net_errctx *e, tc_net *n, int64_t nodes, int64_t links, int want_router);

/* Appends a tier (links first .. first+count-1). */
void net_add_tier(tc_net *n, const char *name, int64_t first, int64_t count);

/* Builders: params is the part after "kind:". */
tc_net *net_build_twotier(const net_errctx *e, const char *params);
tc_net *net_build_dragonfly(const net_errctx *e, const char *params);
tc_net *net_build_switch(const net_errctx *e, const char *params);
tc_net *net_build_fattree(const net_errctx *e, const char *params);

#endif
