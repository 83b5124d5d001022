/* TC_THREAD_LOCAL: thread-local state on the per-call path.  Initial-exec:
 * no __tls_get_addr call per access (the library is loaded at start-up, as
 * a preload or a link dependency; glibc keeps room for a few such bytes in
 * libraries opened later, too). */
#ifndef TC_CORE_THREAD_LOCAL_H
#define TC_CORE_THREAD_LOCAL_H

#if defined(__GNUC__)
#define TC_THREAD_LOCAL _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define TC_THREAD_LOCAL _Thread_local
#endif

#endif
