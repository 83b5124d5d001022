# ---- communicator churn (tests/mpi/test_ctx_churn.c): short-lived
# communicators of odd shapes (one rank, pairs, irregular groups,
# MPI_Comm_create_group, a duplicate of a duplicate, an inter-communicator)
# through every collective, results checked; which of them get a context
# (duplicates counted by an attribute's copy callback) and that none is left.
add_executable(test_ctx_churn ${CMAKE_CURRENT_SOURCE_DIR}/mpi/test_ctx_churn.c)
target_include_directories(test_ctx_churn PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src
                           ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_ctx_churn PRIVATE topocoll_static)
foreach(np 1 2 3 4)
  if(np GREATER 3 AND NOT TOPOCOLL_MPI_FLAVOR STREQUAL "openmpi")
    continue()   # MPICH busy-polls when oversubscribed
  endif()
  topocoll_mpiexec(launch ${np})
  add_test(NAME ${F}_ctx_churn_np${np} COMMAND ${launch} $<TARGET_FILE:test_ctx_churn> ${MPIEXEC_POSTFLAGS})
  topocoll_coll_test(${F}_ctx_churn_np${np} ${np} 180)
endforeach()
