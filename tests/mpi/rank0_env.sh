#!/bin/sh
# Runs a command with VAR=VALUE in the environment of rank 0 only (as a
# wrapper script that sets a variable for one rank of a job would):
#   rank0_env.sh VAR=VALUE command [arguments...]
# The rank comes from the launcher's environment (Open MPI's
# OMPI_COMM_WORLD_RANK, MPICH's PMI_RANK).
set -u
assign=$1
shift
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}
if [ -z "$rank" ]; then
  echo "rank0_env.sh: no OMPI_COMM_WORLD_RANK or PMI_RANK: which rank is this?" >&2
  exit 2
fi
if [ "$rank" = 0 ]; then
  export "${assign?}"
fi
exec "$@"
