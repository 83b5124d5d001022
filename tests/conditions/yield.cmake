# ==== the load verdict is the machine's; waits that last yield, then sleep ====
# tests/mpi/yield_load.c: pairs split from the job are judged by the job's
# ranks on the node against its processing units and by the MPI library's
# yield setting (expectations computed by the test from its own reading of
# the node), and inline and node-shared collectives stay right when some
# waits last milliseconds (the yield-then-sleep path of src/exec/backoff.c).
# Run at np 2 and np 4 (Open MPI) or 3 (MPICH, oversubscribed: slow): more
# ranks than cores on small machines.
add_executable(yield_load ${CMAKE_CURRENT_SOURCE_DIR}/mpi/yield_load.c)
target_include_directories(yield_load PRIVATE ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(yield_load PRIVATE topocoll_static)
set(TOPOCOLL_YIELD_NPS 2 4)
if(NOT TOPOCOLL_MPI_FLAVOR STREQUAL "openmpi")
  set(TOPOCOLL_YIELD_NPS 2 3)
endif()
foreach(np IN LISTS TOPOCOLL_YIELD_NPS)
  topocoll_mpiexec(launch ${np})
  add_test(NAME ${F}_yield_load_np${np} COMMAND ${launch} $<TARGET_FILE:yield_load> ${MPIEXEC_POSTFLAGS})
  topocoll_mpi_test(${F}_yield_load_np${np} ${np} 300)
endforeach()
