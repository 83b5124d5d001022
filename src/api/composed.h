/* Catalog entries without a schedule that are compositions of MPI
 * collectives (TC_REQ_COMPOSED): run here, in the MPI layer. */
#ifndef TC_API_COMPOSED_H
#define TC_API_COMPOSED_H

#include <mpi.h>
#include "api/context.h"

/* One call of a composed entry: the user's arguments (in place: sbuf is
 * MPI_IN_PLACE, the input is in rbuf). */
typedef struct tc_composed_call {
    const void *sbuf;
    int scount;
    MPI_Datatype stype;
    void *rbuf;
    int rcount;
    MPI_Datatype rtype;
    int in_place;
} tc_composed_call;

/* Runs al (TC_REQ_COMPOSED) for the call on x's communicator; an MPI error
 * code, MPI_ERR_INTERN for an entry this file does not know. */
int tc_composed_run(tc_ctx *x, const tc_algo *al, const tc_composed_call *c);

#endif
