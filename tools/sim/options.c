/*
 * topocoll-sim options: "--name value" or "--name=value", sizes with binary
 * suffixes (the paper's KB/MB/GB are 2^10-based, docs/simulator.md), per-tier
 * bandwidths "10" or "L1=24,L2=10" in GB/s (10^9 bytes/s).  Every bad value
 * gets one line naming the option and the value.
 */
#include "options.h"
#include "sim/memory.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sim_usage(FILE *f)
{
    fprintf(f,
        "usage: topocoll-sim [options]\n"
        "  --network SPEC    twotier:SNxNPSxCPN | dragonfly:g=G,a=A,h=H[,t=T][,c=C][,arr=consecutive|roundrobin]\n"
        "                    | switch:nodes=N[,c=C] | fattree:leaves=L,nodes=N,spines=S[,c=C]\n"
        "                    (default twotier:64x16x16, the paper's machine)\n"
        "  --coll NAME       collective (default allgather)\n"
        "  --algos LIST      comma-separated names, shell patterns ('h1_*') or 'all' (default: every\n"
        "                    flat algorithm with a schedule; families are named or matched)\n"
        "  --bytes N         per core: the MPI count times the element size; suffixes K M G T\n"
        "                    are binary (64K = 65536) (default 64K)\n"
        "  --esize N         bytes per element (default 1)\n"
        "  --root R          root rank (default 0)\n"
        "  --ranks N         ranks (default: every core of the network)\n"
        "  --levels group|node  what generators see as a topology node: the network group\n"
        "                    (supernode; its network nodes are the sockets; default) or the node\n"
        "  --map SPEC        placement from a topology spec at that level, e.g. 64x16x16/cyclic\n"
        "                    (group) or 1024x16/cyclic (node) (default in-order)\n"
        "  --compare         algorithms side by side (rows = tiers and metrics)\n"
        "  --steps           per-step table\n"
        "  --total-only      skip the step-by-step estimate\n"
        "  --bw SPEC         link bandwidth in GB/s (1e9 B/s): one value, or TIER=GBS,... (default 10)\n"
        "  --gamma NS        reduction cost in ns per byte (default 0.25)\n"
        "  --step-mem MIB    memory for per-step loads before re-running over windows (default 4096)\n"
        "  --mem-limit SIZE  refuse a run whose estimated memory passes SIZE (K, M, G, T suffixes;\n"
        "                    default 90%% of the available memory; 'none' for no limit)\n"
        "  --csv FILE        write results as CSV\n"
        "  --json FILE       write results as JSON\n"
        "  --links FILE      write every used link's load as CSV (algorithm, link, tier, from, to, bytes)\n"
        "  --check           byte conservation and route checks\n"
        "  --generic         generate every rank's schedule even where an algorithm has a shift form\n"
        "                    (the fast path of ring, linear, pairwise and scatter_allgather; same results)\n"
        "  --list            list the collective's algorithms and exit\n"
        "  -h, --help        this text\n");
    fprintf(f, "collectives:");
    for (int c = 0; c < TOPOCOLL_NCOLL; c++) fprintf(f, " %s", tc_coll_name((topocoll_coll)c));
    fprintf(f, "\n"
        "exit status: 0 every algorithm simulated (or declined: it does not apply), 1 a simulation\n"
        "             failed (a check, out of memory, a run past the 64-bit byte limit) or an output\n"
        "             file could not be written, 2 a bad option, network, placement or collective\n");
}

int sim_parse_bytes(const char *s, int64_t *out)
{
    int64_t v = 0, mul = 1;
    const char *p = s;
    if (!s || *s < '0' || *s > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (INT64_MAX - 9) / 10) return -1;
        v = v * 10 + (*p - '0');
    }
    switch (*p) {
    case 'K': case 'k': mul = (int64_t)1 << 10; p++; break;
    case 'M': case 'm': mul = (int64_t)1 << 20; p++; break;
    case 'G': case 'g': mul = (int64_t)1 << 30; p++; break;
    case 'T': case 't': mul = (int64_t)1 << 40; p++; break;
    default: break;
    }
    if (mul > 1 && (strcmp(p, "B") == 0 || strcmp(p, "iB") == 0)) p += strlen(p);
    if (*p) return -1;
    if (v > ((int64_t)1 << 62) / mul) return -1;
    *out = v * mul;
    return 0;
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* A finite number > 0 (>= 0 with allow_zero). */
static int parse_double(const char *s, int allow_zero, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < 0 || (v == 0 && !allow_zero)) return -1;
    *out = v;
    return 0;
}

/* GB/s: positive, and finite with a finite inverse once in bytes per second. */
static int parse_gbs(const char *s, double *out)
{
    double v;
    if (parse_double(s, 0, &v) != 0 || !isfinite(v * 1e9) || !isfinite(1 / (v * 1e9))) return -1;
    *out = v;
    return 0;
}

static int bw_seen(const sim_opts *o, const char *name)
{
    for (int i = 0; i < o->nbw; i++)
        if (!strcmp(o->bw_name[i], name)) return 1;
    return 0;
}

static int parse_bw(sim_opts *o, const char *s, char *err, size_t errlen)
{
    if (!strchr(s, '=')) {
        if (parse_gbs(s, &o->bw_all) == 0) return 0;
        snprintf(err, errlen, "--bw '%s': expected GB/s (a positive number up to 1e299) or TIER=GBS,...", s);
        return -1;
    }
    const char *p = s;
    while (*p) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        size_t nlen = eq ? (size_t)(eq - p) : 0, vlen;
        char val[32];
        if (!eq || (comma && comma < eq) || nlen == 0 || nlen >= sizeof o->bw_name[0] || o->nbw == SIM_MAX_BW) {
            snprintf(err, errlen, "--bw '%s': expected TIER=GBS[,TIER=GBS...]", s);
            return -1;
        }
        vlen = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
        snprintf(val, sizeof val, "%.*s", (int)(vlen < 31 ? vlen : 31), eq + 1);
        memcpy(o->bw_name[o->nbw], p, nlen);
        o->bw_name[o->nbw][nlen] = '\0';
        if (bw_seen(o, o->bw_name[o->nbw])) {
            snprintf(err, errlen, "--bw '%s': tier '%s' given twice", s, o->bw_name[o->nbw]);
            return -1;
        }
        if (vlen >= sizeof val || parse_gbs(val, &o->bw_gbs[o->nbw]) != 0) {
            snprintf(err, errlen, "--bw '%s': bandwidth of '%s' must be a positive number of GB/s up to 1e299", s,
                     o->bw_name[o->nbw]);
            return -1;
        }
        o->nbw++;
        p = comma ? comma + 1 : eq + 1 + vlen;
        if (comma && !*p) {
            snprintf(err, errlen, "--bw '%s': trailing ','", s);
            return -1;
        }
    }
    return 0;
}

static void opts_default(sim_opts *o)
{
    memset(o, 0, sizeof *o);
    o->network = "twotier:64x16x16";
    o->coll = "allgather";
    o->bytes = (int64_t)64 << 10;
    o->esize = 1;
    o->gamma_ns = -1;
    o->step_mem_mib = 4096;
    o->mem_limit = -1;
    o->levels = TC_SIM_LEVELS_GROUP;
}

static const char *const flag_names[] = { "--compare", "--steps", "--check", "--total-only", "--list", "--generic" };

static int *flag_ptr(sim_opts *o, int i)
{
    int *p[] = { &o->compare, &o->steps, &o->check, &o->total_only, &o->list, &o->generic };
    return p[i];
}

/* Applies option name = val; -1 with a message on a bad value. */
static int set_value(sim_opts *o, const char *name, const char *val, char *err, size_t errlen)
{
    int64_t mib;
    if (!strcmp(name, "--network")) o->network = val;
    else if (!strcmp(name, "--coll")) o->coll = val;
    else if (!strcmp(name, "--algos")) o->algos = val;
    else if (!strcmp(name, "--map")) o->map = val;
    else if (!strcmp(name, "--csv")) o->csv = val;
    else if (!strcmp(name, "--json")) o->json = val;
    else if (!strcmp(name, "--links")) o->links = val;
    else if (!strcmp(name, "--bw")) return parse_bw(o, val, err, errlen);
    else if (!strcmp(name, "--bytes")) {
        if (sim_parse_bytes(val, &o->bytes) == 0) return 0;
        snprintf(err, errlen, "--bytes '%s': expected a byte count with an optional K, M, G or T suffix", val);
        return -1;
    } else if (!strcmp(name, "--esize") || !strcmp(name, "--root") || !strcmp(name, "--ranks")) {
        int *dst = !strcmp(name, "--esize") ? &o->esize : !strcmp(name, "--root") ? &o->root : &o->ranks;
        long lo = !strcmp(name, "--root") ? 0 : 1;
        if (parse_int(val, lo, INT_MAX, dst) == 0) return 0;
        snprintf(err, errlen, "%s '%s': expected an integer >= %ld", name, val, lo);
        return -1;
    } else if (!strcmp(name, "--levels")) {
        if (!strcmp(val, "node")) o->levels = TC_SIM_LEVELS_NODE;
        else if (!strcmp(val, "group")) o->levels = TC_SIM_LEVELS_GROUP;
        else {
            snprintf(err, errlen, "--levels '%s': expected node or group", val);
            return -1;
        }
    } else if (!strcmp(name, "--gamma")) {
        if (parse_double(val, 1, &o->gamma_ns) == 0) return 0;
        snprintf(err, errlen, "--gamma '%s': expected nanoseconds per byte (a number >= 0)", val);
        return -1;
    } else if (!strcmp(name, "--mem-limit")) {
        if (!strcmp(val, "none")) {
            o->mem_limit = 0;
            return 0;
        }
        if (sim_parse_bytes(val, &o->mem_limit) == 0 && o->mem_limit >= (1 << 20)) return 0;
        snprintf(err, errlen, "--mem-limit '%s': expected a size of at least 1M (K, M, G, T suffixes) or none", val);
        return -1;
    } else if (!strcmp(name, "--step-mem")) {
        if (sim_parse_bytes(val, &mib) == 0 && mib >= 1 && mib <= ((int64_t)1 << 30)) {
            o->step_mem_mib = mib;
            return 0;
        }
        snprintf(err, errlen, "--step-mem '%s': expected MiB, 1 .. 2^30", val);
        return -1;
    } else {
        snprintf(err, errlen, "unknown option '%s' (see --help)", name);
        return -1;
    }
    return 0;
}

static int is_value_option(const char *name)
{
    static const char *const v[] = { "--network", "--coll", "--algos", "--bytes", "--esize", "--root",
                                     "--ranks", "--map", "--levels", "--bw", "--gamma", "--step-mem", "--mem-limit",
                                     "--csv", "--json", "--links" };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!strcmp(name, v[i])) return 1;
    return 0;
}

int sim_opts_parse(int argc, char **argv, sim_opts *o, char *err, size_t errlen)
{
    opts_default(o);
    for (int i = 1; i < argc; i++) {
        char name[32];
        const char *arg = argv[i], *eq = strchr(arg, '='), *val = NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) return 1;
        snprintf(name, sizeof name, "%.*s", (int)(eq && eq - arg < 31 ? eq - arg : 31), arg);
        if (eq && (size_t)(eq - arg) >= sizeof name) snprintf(name, sizeof name, "%.31s", arg);
        int flag = -1;
        for (int f = 0; f < (int)(sizeof flag_names / sizeof flag_names[0]); f++)
            if (!strcmp(name, flag_names[f])) flag = f;
        if (flag >= 0) {
            if (eq) {
                snprintf(err, errlen, "option %s takes no value", name);
                return -1;
            }
            *flag_ptr(o, flag) = 1;
            continue;
        }
        if (!is_value_option(name)) {
            snprintf(err, errlen, "unknown option '%s' (see --help)", arg);
            return -1;
        }
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else {
            snprintf(err, errlen, "option %s needs a value", name);
            return -1;
        }
        if (set_value(o, name, val, err, errlen) != 0) return -1;
    }
    return 0;
}

int sim_opts_params(const sim_opts *o, const tc_net *net, tc_sim_params *prm, char *err, size_t errlen)
{
    tc_sim_params_default(prm);
    prm->esize = o->esize;
    prm->steps = !o->total_only;
    prm->keep_steps = o->steps || o->csv || o->json;
    prm->keep_links = o->links != NULL;
    prm->check = o->check;
    prm->generic = o->generic;
    prm->step_mem = (size_t)o->step_mem_mib << 20;
    prm->mem_limit = o->mem_limit < 0 ? tc_sim_mem_default_limit() : (uint64_t)o->mem_limit;
    if (o->gamma_ns >= 0) prm->gamma = o->gamma_ns * 1e-9;
    if (o->bw_all > 0)
        for (int t = 0; t < TC_NET_MAX_TIERS; t++) prm->bw[t] = o->bw_all * 1e9;
    for (int i = 0; i < o->nbw; i++) {
        int t = tc_net_tier_find(net, o->bw_name[i]);
        if (t < 0) {
            char names[64] = "";
            for (int k = 0; k < net->ntiers; k++) {
                strncat(names, k ? ", " : "", sizeof names - strlen(names) - 1);
                strncat(names, net->tier[k].name, sizeof names - strlen(names) - 1);
            }
            snprintf(err, errlen, "--bw: the network has no tier '%s' (its tiers: %s)", o->bw_name[i], names);
            return -1;
        }
        prm->bw[t] = o->bw_gbs[i] * 1e9;
    }
    return 0;
}
