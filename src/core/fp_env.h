/* The caller's floating-point environment around the library's own
 * floating-point arithmetic.
 *
 * Programs run with exceptions trapped (feenableexcept, gfortran's
 * -ffpe-trap=invalid,zero,overflow) or test the exception flags after a
 * computation (Fortran's IEEE_GET_FLAG).  Arithmetic the library does on
 * values of its own (the reduction kernels' probe on infinities and NaNs,
 * the one-node calibration's timings and reductions, the cost models'
 * formulas) must neither take a trap nor leave a flag behind: between
 * tc_fp_hold and tc_fp_restore traps are off and flags are cleared
 * (feholdexcept); tc_fp_restore puts back the caller's environment exactly
 * (fesetenv: traps, rounding mode and flags as they were, the flags raised
 * in between dropped).  Reductions of the user's values run in the user's
 * environment, as in the MPI library's own collectives.
 *
 * Cost: about 0.1 us per pair (x87 and SSE state on x86-64), so only
 * on paths that a warm call does not take (first use, cache misses, explain
 * text), the one-node allreduce's model choice on the full path aside. */
#ifndef TC_CORE_FP_ENV_H
#define TC_CORE_FP_ENV_H

#include <fenv.h>

typedef struct tc_fp_saved {
    fenv_t env;
} tc_fp_saved;

static inline void tc_fp_hold(tc_fp_saved *s)
{
    (void)feholdexcept(&s->env);
}

static inline void tc_fp_restore(const tc_fp_saved *s)
{
    (void)fesetenv(&s->env);
}

#endif
