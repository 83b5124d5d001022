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

# ---- environment values, TOPOCOLL_FALLBACK, the run summary
# (tests/mpi/check_misc_env.sh runs tests/mpi/misc_calls.c, a plain MPI
# program, with the interposer preloaded at np 3, one case per test)
if(NOT TOPOCOLL_SANITIZE)   # a sanitized library cannot be preloaded into a plain program
  add_executable(misc_calls ${CMAKE_CURRENT_SOURCE_DIR}/mpi/misc_calls.c)
  target_link_libraries(misc_calls PRIVATE MPI::MPI_C)
  topocoll_mpiexec(launch 3)
  set(misc_bool "1, 0, true, false, yes, no, on, off")
  set(misc_cases
      "bad:TOPOCOLL_DISABLE=maybe:${misc_bool}" "bad:TOPOCOLL_CMA=nope:${misc_bool}"
      "bad:TOPOCOLL_EXPLAIN=yes:an integer from 0 to 2" "bad:TOPOCOLL_EXPLAIN=3:an integer from 0 to 2"
      "bad:TOPOCOLL_SCHED_CACHE=abc:an integer from 0 to 1000000"
      "bad:TOPOCOLL_FALLBACK=loud:print, silent, error"
      disable-true cma-no fallback-print fallback-silent fallback-error
      "stats:${CMAKE_CURRENT_BINARY_DIR}/misc_stats_${F}.json")
  foreach(c IN LISTS misc_cases)
    string(REGEX REPLACE "^bad:TOPOCOLL_([A-Z_]+)=([^:]*):.*" "bad_\\1_\\2" name "${c}")
    string(REGEX REPLACE "^stats:.*" "stats" name "${name}")
    string(TOLOWER "${name}" name)
    string(REPLACE "-" "_" name "${name}")
    add_test(NAME ${F}_misc_env_${name}_np3
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/check_misc_env.sh "${c}" ${launch}
                     ${TOPOCOLL_ENV_EXECUTABLE} LD_PRELOAD=$<TARGET_FILE:topocoll_pmpi> @ENV@
                     $<TARGET_FILE:misc_calls> ${MPIEXEC_POSTFLAGS})
    topocoll_coll_test(${F}_misc_env_${name}_np3 3 120)
    if(NOT TOPOCOLL_MPI_FLAVOR STREQUAL "openmpi")   # MPICH 4.0: no text for added error codes
      set_property(TEST ${F}_misc_env_${name}_np3 PROPERTY ENVIRONMENT MISC_ERROR_STRINGS=0)
    endif()
  endforeach()
endif()
