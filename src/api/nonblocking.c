/*
 * topocoll_start, topocoll_startall and topocoll_progress; the nonblocking
 * and persistent collectives themselves are made per row of the list in
 * collectives.c, their call path is nb_call.c, their requests
 * nb_requests.c.
 */
#include "topocoll.h"
#include "api/nb_requests.h"

int topocoll_start(MPI_Request *request)
{
    return tc_nb_start(request);
}

int topocoll_startall(int count, MPI_Request requests[])
{
    return tc_nb_startall(count, requests);
}

int topocoll_progress(void)
{
    return tc_nb_progress();
}
