# ==== outside test suites, preloaded (scripts/suites.sh) ====
# MPICH's test/mpi/coll nonblocking and persistent programs and the OSU
# Micro-Benchmarks' nonblocking collectives (-c, validation), each natively
# and with libtopocoll_pmpi.so preloaded, plus a few TOPOCOLL_<COLL>=<entry>
# runs.  A run fails the test only where the program fails preloaded and
# passes natively.  The suites' sources are not part of the project: a test
# whose sources are not in the cache (scripts/suites.sh fetch) is skipped
# (exit 77, the reason printed).  Label suites.  docs/development.md,
# "Outside test suites".
if(NOT TOPOCOLL_SANITIZE)
  foreach(suite mpich osu)
    set(name ${F}_suites_${suite})
    add_test(NAME ${name}
             COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/suites.sh run --check
                     --flavours ${TOPOCOLL_MPI_FLAVOR} --suites ${suite}
                     --preload ${TOPOCOLL_MPI_FLAVOR}=$<TARGET_FILE:topocoll_pmpi>
                     --out ${CMAKE_CURRENT_BINARY_DIR}/suites_${suite})
    topocoll_mpi_test(${name} 2 1800)
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77
                         LABELS "suites;${TOPOCOLL_MPI_FLAVOR}")
  endforeach()
endif()
# ==== end of the outside test suites ====
