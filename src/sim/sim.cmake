# The simulator is part of the MPI-free library (topocoll_core, defined at
# the top level; topocoll_sim is its alias).  Kept for the tools/sim and
# tests/sim CMakeLists that include it.
include_guard(GLOBAL)
get_filename_component(TOPOCOLL_SIM_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
