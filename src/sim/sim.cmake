# The simulator library (src/sim, no MPI in its sources), shared by
# tools/sim (topocoll-sim) and tests/sim; whichever is added first defines it.
include_guard(GLOBAL)
get_filename_component(TOPOCOLL_SIM_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
file(GLOB TOPOCOLL_SIM_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
list(SORT TOPOCOLL_SIM_SOURCES)
add_library(topocoll_sim STATIC ${TOPOCOLL_SIM_SOURCES})
target_include_directories(topocoll_sim PUBLIC ${TOPOCOLL_SIM_ROOT}/include ${TOPOCOLL_SIM_ROOT}/src)
target_link_libraries(topocoll_sim PUBLIC topocoll_static)
