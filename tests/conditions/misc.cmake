# Empty blocks described two ways, aliased buffers, strict environment
# values, TOPOCOLL_FALLBACK, and the run summary without topocoll's own calls.

# ---- zero-size blocks and sendbuf == recvbuf (tests/mpi/misc_zero_alias.c)
add_executable(misc_zero_alias ${CMAKE_CURRENT_SOURCE_DIR}/mpi/misc_zero_alias.c)
target_include_directories(misc_zero_alias PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(misc_zero_alias PRIVATE topocoll_static)
if(TOPOCOLL_MPI_FLAVOR STREQUAL "openmpi")
  set(misc_nps 2 5 8)
else()
  set(misc_nps 2)
endif()
foreach(np IN LISTS misc_nps)
  topocoll_mpiexec(launch ${np})
  add_test(NAME ${F}_misc_zero_alias_np${np}
           COMMAND ${launch} $<TARGET_FILE:misc_zero_alias> ${MPIEXEC_POSTFLAGS})
  topocoll_coll_test(${F}_misc_zero_alias_np${np} ${np} 300)
endforeach()
