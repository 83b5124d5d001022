/* Member maps (see members.h). */
#include "blocks/members.h"

tc_members tc_members_group(const tc_groups *g, int grp, int rank)
{
    int first = g->start[grp], me = -1;
    if (rank >= 0 && rank < g->p && g->group_of[rank] == grp) me = g->pos[rank] - first;
    return tc_members_list(g->members + first, tc_groups_size(g, grp), me);
}

tc_members tc_members_leaders(const tc_groups *g, int rank)
{
    int me = -1;
    if (rank >= 0 && rank < g->p && g->leaders[g->group_of[rank]] == rank) me = g->group_of[rank];
    return tc_members_list(g->leaders, g->ngroups, me);
}
