# ==== real applications, preloaded (tests/apps/check_apps.sh) ====
# Debian's LAMMPS, HPC Challenge and Quantum ESPRESSO (built against Open
# MPI) with libtopocoll_pmpi.so preloaded give the native run's results:
# LAMMPS melt's thermo lines at np 2 and at np 4 on the virtual 2 x 2
# topology, hpcc's Success, pw.x's total energy as printed.  Correctness
# only.  A test whose program is not installed is skipped (exit 77, the
# reason printed); scripts/setup.sh installs the packages.  Open MPI only:
# the packages' programs are linked with it.  docs/apps.md.
if(TOPOCOLL_MPI_FLAVOR STREQUAL "openmpi" AND NOT TOPOCOLL_SANITIZE)
  set(apps_check ${CMAKE_CURRENT_SOURCE_DIR}/apps/check_apps.sh)
  set(apps_inputs ${PROJECT_SOURCE_DIR}/tools/apps/inputs)
  # name, application, np, environment of the ranks
  foreach(spec "melt_np2;melt;2;" "melt_2x2_np4;melt;4;TOPOCOLL_TOPOLOGY=2x2"
               "hpcc_np2;hpcc;2;" "qe_np2;qe;2;")
    list(GET spec 0 name)
    list(GET spec 1 app)
    list(GET spec 2 np)
    list(GET spec 3 env)
    topocoll_mpiexec(launch ${np})
    set(envcmd "")
    if(env)
      set(envcmd ${TOPOCOLL_ENV_EXECUTABLE} ${env})
    endif()
    add_test(NAME ${F}_apps_${name}
             COMMAND bash ${apps_check} ${app} ${apps_inputs} $<TARGET_FILE:topocoll_pmpi> ${launch} ${envcmd})
    topocoll_mpi_test(${F}_apps_${name} ${np} 300)
    set_tests_properties(${F}_apps_${name} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endif()

# The census library (tools/apps/census.c) counts what a program made:
# census_program's known calls, with the interposer preloaded after it
# (check_census.sh, check_census.py).  Both flavours, np 3.
if(TARGET topocoll_census AND NOT TOPOCOLL_SANITIZE)
  add_executable(census_program ${CMAKE_CURRENT_SOURCE_DIR}/apps/census_program.c)
  target_link_libraries(census_program PRIVATE MPI::MPI_C)
  find_program(TOPOCOLL_APPS_PYTHON3 python3)
  if(NOT TOPOCOLL_APPS_PYTHON3)
    set(TOPOCOLL_APPS_PYTHON3 sh -c "echo 'python3 not found' >&2; exit 1")   # no silent skip
  endif()
  topocoll_mpiexec(launch 3)
  set(report ${CMAKE_CURRENT_BINARY_DIR}/census_np3.json)
  add_test(NAME ${F}_apps_census_np3
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/apps/check_census.sh 3 ${report} ${TOPOCOLL_APPS_PYTHON3}
                   ${CMAKE_CURRENT_SOURCE_DIR}/apps/check_census.py ${launch} ${TOPOCOLL_ENV_EXECUTABLE}
                   LD_PRELOAD=$<TARGET_FILE:topocoll_census>:$<TARGET_FILE:topocoll_pmpi>
                   TOPOCOLL_CENSUS=${report} TOPOCOLL_STATS=1 $<TARGET_FILE:census_program> ${MPIEXEC_POSTFLAGS})
  topocoll_mpi_test(${F}_apps_census_np3 3 120)
endif()
# ==== end of the real applications ====
