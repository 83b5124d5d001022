# ==== node-shared memory within its budget; its failure made collective ====
# tests/mpi/test_shm_budget.c (src/api/shm_budget.h):
#   <flavour>_shm_budget_pieces_np<N>: TOPOCOLL_SHM_BUDGET=64K, named
#     shared-memory entries of allreduce, reduce and bcast on odd counts far
#     beyond it (in place, a strided type, roots 0 and last): served in
#     pieces by the entry named, every element checked; an allgather whose
#     window exceeds it is served without node-shared memory.
#   <flavour>_shm_budget_tmpfs64m_<entry>_np4: /dev/shm a 64 MiB tmpfs in a
#     private mount namespace (tests/mpi/shm_budget_tmpfs.sh; skipped where
#     that is not permitted), a 32 MiB allreduce at np 4 by the selection
#     and by the entries that hung there, forced; completes, correct.
#   <flavour>_shm_budget_pieces_tmpfs_np4: the pieces run in a /dev/shm of
#     2 MiB (MPICH: 16 MiB), where the whole windows would not fit.
#   <flavour>_shm_budget_tmpfs_tiny_np4: /dev/shm of 1 MiB (MPICH: 20 MiB,
#     its own start needs about 13): no window can be had; every rank falls
#     back, correct, one line on stderr says why.
# Against the library before the budget, the 64 MiB runs hang (the time
# limit fails them), so do the tiny and the small pieces runs (Open MPI), and the
# plain pieces run fails its allgather check (served with node-shared memory).
add_executable(test_shm_budget ${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_shm_budget.c)
target_include_directories(test_shm_budget PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(test_shm_budget PRIVATE topocoll_static)
# /dev/shm sizes: "small" holds the MPI library's own segments but not a
# piece-free window, "tiny" not even the budget's window.  MPICH (UCX) needs
# about 4 MiB per rank of /dev/shm to start at all.
set(_shm_budget_np 4)
set(_shm_small 2m)
set(_shm_tiny 1m)
if(TOPOCOLL_MPI_FLAVOR STREQUAL "mpich")
  set(_shm_budget_np 3)   # MPICH busy-polls when oversubscribed
  set(_shm_small 16m)
  set(_shm_tiny 20m)
endif()
foreach(np 2 ${_shm_budget_np})
  topocoll_mpiexec(launch ${np})
  add_test(NAME ${F}_shm_budget_pieces_np${np}
           COMMAND ${CMAKE_COMMAND} -E env TOPOCOLL_SHM_BUDGET=64K
                   ${launch} $<TARGET_FILE:test_shm_budget> ${MPIEXEC_POSTFLAGS} pieces)
  topocoll_coll_test(${F}_shm_budget_pieces_np${np} ${np} 120)
endforeach()
set(_shm_budget_tmpfs ${CMAKE_CURRENT_SOURCE_DIR}/mpi/shm_budget_tmpfs.sh)
topocoll_mpiexec(launch ${_shm_budget_np})
foreach(entry default shm_tiled_naive shm_rb2_2s shm_tiled_cyclic_128k)
  set(_force "")
  if(NOT entry STREQUAL "default")
    set(_force TOPOCOLL_ALLREDUCE=${entry})
  endif()
  set(name ${F}_shm_budget_tmpfs64m_${entry}_np${_shm_budget_np})
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -E env ${_force} ${_shm_budget_tmpfs} 64m 60 0
                   ${launch} $<TARGET_FILE:test_shm_budget> ${MPIEXEC_POSTFLAGS} call)
  topocoll_coll_test(${name} ${_shm_budget_np} 90)
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
# the pieces again in a small /dev/shm: whole windows would not fit there
set(name ${F}_shm_budget_pieces_tmpfs_np${_shm_budget_np})
add_test(NAME ${name}
         COMMAND ${CMAKE_COMMAND} -E env TOPOCOLL_SHM_BUDGET=64K ${_shm_budget_tmpfs} ${_shm_small} 60 0
                 ${launch} $<TARGET_FILE:test_shm_budget> ${MPIEXEC_POSTFLAGS} pieces)
topocoll_coll_test(${name} ${_shm_budget_np} 90)
set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
set(name ${F}_shm_budget_tmpfs_tiny_np${_shm_budget_np})
add_test(NAME ${name}
         COMMAND ${CMAKE_COMMAND} -E env TOPOCOLL_ALLREDUCE=shm_tiled_naive ${_shm_budget_tmpfs} ${_shm_tiny} 60 1
                 ${launch} $<TARGET_FILE:test_shm_budget> ${MPIEXEC_POSTFLAGS} fallback)
topocoll_coll_test(${name} ${_shm_budget_np} 90)
set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
