# Agreement (docs/design.md, "Agreement"): the ranks of one communicator
# choose alike, and TOPOCOLL_CHECK=1 turns calls whose ranks disagree into
# errors on every rank.  tests/mpi/test_agree.c, a plain MPI program run with
# the interposer preloaded; its watchdog (second argument, seconds) turns a
# hang into a failure naming the case.  unit_agree_memo (tests/unit) checks
# the cost model's memo without MPI.
#   <flavour>_agree_split_np5        overlapping communicators {0,2,4}, {2,3,4}
#                                    under 2x2x*, default selection, reduce,
#                                    bcast, gather, scatter at 4 B - 1 MiB
#   <flavour>_agree_vsize_np<N>      alltoallv whose ranks' own selection sizes
#                                    lie on both sides of a tuning file's rule
#   <flavour>_agree_check_root_np<N> differing bcast roots, h_chain16k_shm2
#   <flavour>_agree_check_badroot_np<N> a bcast root out of range at rank 1 only
#   <flavour>_agree_check_counts_np<N> alltoall (bridge_pack) and alltoallv
#                                    (bridge) with counts that do not match
#   <flavour>_agree_check_match_np5  the split sweep and matching alltoall(v)
#                                    under TOPOCOLL_CHECK=1
#   <flavour>_agree_check_malformed_np2  TOPOCOLL_CHECK=yes
# MPICH runs stay at np 3 (its ranks busy-poll when oversubscribed): the np 5
# runs are Open MPI's only.
add_executable(test_agree ${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_agree.c)
target_link_libraries(test_agree PRIVATE MPI::MPI_C)
if(NOT TOPOCOLL_SANITIZE)   # a sanitized library cannot be preloaded into a plain program
  set(agree_preload ${TOPOCOLL_ENV_EXECUTABLE} LD_PRELOAD=$<TARGET_FILE:topocoll_pmpi>)
  set(agree_forced TOPOCOLL_BCAST=h_chain16k_shm2 TOPOCOLL_ALLTOALL=bridge_pack TOPOCOLL_ALLTOALLV=bridge)
  if(TOPOCOLL_MPI_FLAVOR STREQUAL "openmpi")
    set(agree_np 4)
    topocoll_mpiexec(launch 5)
    add_test(NAME ${F}_agree_split_np5
             COMMAND ${launch} ${agree_preload} TOPOCOLL_TOPOLOGY=2x2x* TOPOCOLL_CONTEXT_AFTER=0 $<TARGET_FILE:test_agree>
                     ${MPIEXEC_POSTFLAGS} split 100)
    topocoll_coll_test(${F}_agree_split_np5 5 150)
    add_test(NAME ${F}_agree_check_match_np5
             COMMAND ${launch} ${agree_preload} TOPOCOLL_TOPOLOGY=2x2x* TOPOCOLL_CHECK=1
                     $<TARGET_FILE:test_agree> ${MPIEXEC_POSTFLAGS} match 100)
    topocoll_coll_test(${F}_agree_check_match_np5 5 150)
  else()
    set(agree_np 3)
  endif()
  topocoll_mpiexec(launch ${agree_np})
  add_test(NAME ${F}_agree_vsize_np${agree_np}
           COMMAND ${launch} ${agree_preload} TOPOCOLL_TOPOLOGY=2x2x* TOPOCOLL_CONTEXT_AFTER=0 $<TARGET_FILE:test_agree>
                   ${MPIEXEC_POSTFLAGS} vsize 60)
  topocoll_coll_test(${F}_agree_vsize_np${agree_np} ${agree_np} 90)
  foreach(mode root badroot counts)
    add_test(NAME ${F}_agree_check_${mode}_np${agree_np}
             COMMAND ${launch} ${agree_preload} TOPOCOLL_TOPOLOGY=2x2x* TOPOCOLL_CHECK=1 ${agree_forced}
                     $<TARGET_FILE:test_agree> ${MPIEXEC_POSTFLAGS} ${mode} 60)
    topocoll_coll_test(${F}_agree_check_${mode}_np${agree_np} ${agree_np} 90)
  endforeach()
  topocoll_mpiexec(launch 2)
  add_test(NAME ${F}_agree_check_malformed_np2
           COMMAND ${launch} ${agree_preload} TOPOCOLL_CHECK=yes $<TARGET_FILE:test_agree>
                   ${MPIEXEC_POSTFLAGS} malformed 60)
  topocoll_coll_test(${F}_agree_check_malformed_np2 2 90)
endif()
