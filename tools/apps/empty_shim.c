/*
 * A preload that defines no MPI function: loaded with LD_PRELOAD it changes
 * only what loading any library changes (one more object in the process,
 * the address-space layout, the dynamic linker's search), so that an
 * application's difference under it is the cost of being preloaded at all,
 * apart from any call an interposer wraps (tools/apps/randomaccess_trace.sh,
 * mode "empty").
 */
int tc_empty_shim_loaded = 1;
