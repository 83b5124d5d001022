/*
 * CSV and JSON exports of topocoll-sim (exact byte counts, times in
 * seconds; 22 CSV columns, docs/simulator.md).  CSV: one table, a "record" column says what a row is: "tier"
 * (one per algorithm and tier), "total" (one per algorithm), "step" (one per
 * algorithm, step and tier, only with the per-step table kept).  JSON: one
 * object (docs/simulator.md).  jansson builds the JSON.
 */
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

static const char *status_name(tc_sim_status s)
{
    return s == TC_SIM_OK ? "ok" : s == TC_SIM_DECLINED ? "declined" : "error";
}

/* ---- CSV ------------------------------------------------------------------------- */

static void csv_prefix(FILE *f, const sim_run *run, int i, const char *record)
{
    fprintf(f, "%s,%s,%s,%s,%s,%d,%lld,%d", record, run->net->spec, run->coll, run->algs[i]->name,
            status_name(run->res[i].status), run->pl->p, (long long)run->o->bytes, run->prm->esize);
}

static void csv_algo(FILE *f, const sim_run *run, int i)
{
    const tc_sim_result *r = &run->res[i];
    for (int t = 0; r->status == TC_SIM_OK && t < r->ntiers; t++) {
        const tc_sim_tier *ts = &r->tier[t];
        csv_prefix(f, run, i, "tier");
        char tot[48];
        fprintf(f, ",%s,,%lld,%lld,%llu,%llu,%s,,,,%.9g,%.9g,,\n", run->net->tier[t].name, (long long)ts->links,
                (long long)ts->used, (unsigned long long)ts->min, (unsigned long long)ts->max,
                tc_sim_u128_str(ts->total, tot, sizeof tot), ts->t_load, ts->t_steps);
    }
    char routed[48];
    csv_prefix(f, run, i, "total");
    fprintf(f, ",,,,,,,%s,%lld,%llu,%llu,%.9g,%.9g,%.6g,%.6g\n", tc_sim_u128_str(r->routed, routed, sizeof routed),
            (long long)r->messages, (unsigned long long)r->bytes, (unsigned long long)r->reduced_max, r->t_load,
            r->t_steps, r->wall_s, r->cpu_s);
    for (int s = 0; r->status == TC_SIM_OK && s < r->nsteps; s++)
        for (int t = 0; t < r->ntiers; t++) {
            const tc_sim_step *st = &r->steps[s];
            csv_prefix(f, run, i, "step");
            fprintf(f, ",%s,%d,,,,%llu,,%lld,%llu,%llu,,%.9g,,\n", run->net->tier[t].name, s,
                    (unsigned long long)st->max[t], (long long)st->messages, (unsigned long long)st->bytes,
                    (unsigned long long)st->reduced, st->t);
        }
}

int export_csv(const sim_run *run, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "record,network,collective,algorithm,status,ranks,bytes_per_core,element_size,tier,step,links,"
               "links_used,min_bytes,max_bytes,total_bytes,messages,bytes_sent,reduced_bytes,t_load_s,"
               "t_steps_s,wall_s,cpu_s\n");
    for (int i = 0; i < run->nalg; i++) csv_algo(f, run, i);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int export_links(const sim_run *run, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "algorithm,link,tier,from,to,bytes\n");
    for (int i = 0; i < run->nalg; i++) {
        const tc_sim_result *r = &run->res[i];
        for (int l = 0; r->status == TC_SIM_OK && r->link_load && l < run->net->nlinks; l++) {
            if (!r->link_load[l]) continue;
            int a, b;
            char va[32], vb[32];
            tc_net_link_ends(run->net, l, &a, &b);
            fprintf(f, "%s,%d,%s,%s,%s,%llu\n", run->algs[i]->name, l,
                    run->net->tier[tc_net_link_tier(run->net, l)].name,
                    tc_net_vertex_name(run->net, a, va, sizeof va), tc_net_vertex_name(run->net, b, vb, sizeof vb),
                    (unsigned long long)r->link_load[l]);
        }
    }
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- JSON ------------------------------------------------------------------------ */

/* A byte count: a JSON number up to 2^53 (exact in every JSON reader's
 * doubles), above it a string of the exact decimal value. */
static json_t *jint(tc_u128 v)
{
    char buf[48];
    if (v <= ((tc_u128)1 << 53)) return json_integer((json_int_t)v);
    return json_string(tc_sim_u128_str(v, buf, sizeof buf));
}

static json_t *json_network(const sim_run *run)
{
    const tc_net *n = run->net;
    json_t *tiers = json_array();
    for (int t = 0; t < n->ntiers; t++)
        json_array_append_new(tiers, json_pack("{s:s,s:i,s:f}", "name", n->tier[t].name, "links",
                                               n->tier[t].count, "bandwidth_Bps", run->prm->bw[t]));
    return json_pack("{s:s,s:s,s:i,s:i,s:i,s:i,s:o}", "spec", n->spec, "description", n->desc, "nodes", n->nnodes,
                     "cores_per_node", n->cpn, "groups", n->ngroups, "links", n->nlinks, "tiers", tiers);
}

static json_t *json_tiers(const sim_run *run, const tc_sim_result *r)
{
    json_t *a = json_array();
    for (int t = 0; t < r->ntiers; t++) {
        const tc_sim_tier *ts = &r->tier[t];
        json_array_append_new(a, json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:f,s:f}", "name", run->net->tier[t].name,
                                           "links", jint((uint64_t)ts->links), "used", jint((uint64_t)ts->used),
                                           "min_bytes", jint(ts->min), "max_bytes", jint(ts->max),
                                           "total_bytes", jint(ts->total), "t_load_s", ts->t_load,
                                           "t_steps_s", ts->t_steps));
    }
    return a;
}

static json_t *json_steps(const sim_run *run, const tc_sim_result *r)
{
    json_t *a = json_array();
    for (int s = 0; s < r->nsteps; s++) {
        const tc_sim_step *st = &r->steps[s];
        json_t *mx = json_object();
        for (int t = 0; t < r->ntiers; t++) json_object_set_new(mx, run->net->tier[t].name, jint(st->max[t]));
        json_array_append_new(a, json_pack("{s:i,s:o,s:o,s:o,s:o,s:f}", "step", s, "messages",
                                           jint((uint64_t)st->messages), "bytes", jint(st->bytes), "max_bytes", mx,
                                           "reduced_bytes", jint(st->reduced), "t_s", st->t));
    }
    return a;
}

static json_t *json_algo(const sim_run *run, int i)
{
    const tc_sim_result *r = &run->res[i];
    json_t *o = json_pack("{s:s,s:s,s:s}", "name", run->algs[i]->name, "status", status_name(r->status),
                          "message", r->msg);
    if (r->status == TC_SIM_DECLINED) return o;
    json_object_set_new(o, "steps", json_integer(r->rounds));
    json_object_set_new(o, "ops", jint((uint64_t)r->ops));
    json_object_set_new(o, "messages", jint((uint64_t)r->messages));
    json_object_set_new(o, "messages_between_nodes", jint((uint64_t)r->net_messages));
    json_object_set_new(o, "flows", jint((uint64_t)r->flows));
    json_object_set_new(o, "bytes_sent", jint(r->bytes));
    json_object_set_new(o, "bytes_inside_nodes", jint(r->intra_bytes));
    json_object_set_new(o, "bytes_routed", jint(r->routed));
    json_object_set_new(o, "rank_sent_max_bytes", jint(r->sent_max));
    json_object_set_new(o, "rank_reduced_max_bytes", jint(r->reduced_max));
    json_object_set_new(o, "rank_reduced_max_rank", json_integer(r->reduced_rank));
    json_object_set_new(o, "tiers", json_tiers(run, r));
    json_object_set_new(o, "t_load_s", json_real(r->t_load));
    json_object_set_new(o, "t_load_tier", json_string(run->net->tier[r->t_load_tier].name));
    json_object_set_new(o, "t_steps_s", r->t_steps >= 0 ? json_real(r->t_steps) : json_null());
    json_object_set_new(o, "step_passes", json_integer(r->step_passes));
    json_object_set_new(o, "checked", json_boolean(r->checked));
    json_object_set_new(o, "check_conditions", jint((uint64_t)r->check_items));
    json_object_set_new(o, "wall_s", json_real(r->wall_s));
    json_object_set_new(o, "cpu_s", json_real(r->cpu_s));
    if (r->steps) json_object_set_new(o, "per_step", json_steps(run, r));
    return o;
}

int export_json(const sim_run *run, const char *path, char *err, size_t errlen)
{
    json_t *algs = json_array();
    for (int i = 0; i < run->nalg; i++) json_array_append_new(algs, json_algo(run, i));
    json_t *root = json_pack("{s:o,s:s,s:s,s:i,s:i,s:s,s:o,s:i,s:i,s:{s:f},s:o}", "network", json_network(run),
                             "placement", run->pl->desc, "levels",
                             run->pl->levels == TC_SIM_LEVELS_GROUP ? "group" : "node", "ranks", run->pl->p,
                             "nodes_used", run->pl->nodes_used,
                             "collective", run->coll, "bytes_per_core", jint((tc_u128)run->o->bytes),
                             "element_size", run->prm->esize, "root", run->o->root, "model",
                             "gamma_s_per_byte", run->prm->gamma, "algorithms", algs);
    if (!root) {
        snprintf(err, errlen, "cannot build the JSON document (out of memory)");
        return -1;
    }
    int rc = json_dump_file(root, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (rc != 0) {
        snprintf(err, errlen, "cannot write '%s'", path);
        return -1;
    }
    return 0;
}
