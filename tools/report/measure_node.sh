#!/usr/bin/env bash
# One-node measurements on a quiet many-core machine (no oversubscription):
# build (build-q, Open MPI), then allreduce / alltoall / bcast / reduce / the
# allgather layout of scripts/main.sh, every rank bound to a core; CSVs and tables in
# $OUT (default out/q).  results/node16/ holds one such run.
# usage: bash tools/report/measure_node.sh PART...
#   parts: build ar2 ar8 ar16 a2a main rooted omp
# A machine without the jansson headers: a pkg-config file and the headers in
# out/devkit (then the build step links the system's libjansson.so.4).
set -u
[ -d out/devkit/lib/pkgconfig ] && export PKG_CONFIG_PATH=$PWD/out/devkit/lib/pkgconfig
O=${OUT:-out/q}; mkdir -p "$O"
B=build-q/tools/bench
M="mpiexec.openmpi --allow-run-as-root --bind-to core --map-by core"
AR=native,auto,recursive_doubling,ring,reduce_scatter_allgather,shm_rb2_1s,shm_rb4_2s,shm_tiled_naive,shm_tiled_cyclic_16k,shm_dissemination${AR_EXTRA:-}
S=${S:-8,64,512,4K,16K,64K,256K,1M,4M,16M}
for part in "$@"; do
  echo "== $part $(date +%T)"
  case $part in
    build)
      [ -d out/devkit/lib ] && ln -sf /usr/lib/x86_64-linux-gnu/libjansson.so.4 out/devkit/lib/libjansson.so
      { cmake -S . -B build-q -DMPI_C_COMPILER=/usr/bin/mpicc.openmpi -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi \
          -DTOPOCOLL_BUILD_TESTS=OFF && cmake --build build-q -j16; } > "$O/build.log" 2>&1 || { tail -40 "$O/build.log"; exit 1; } ;;
    ar2|ar8|ar16)
      np=${part#ar}
      $M -np $np $B/topocoll-bench -c allreduce -s $S -r 5 -a $AR --csv "$O/allreduce_np$np.csv" > "$O/allreduce_np$np.txt" 2>&1
      TOPOCOLL_EXPLAIN=1 $M -np $np $B/topocoll-model > "$O/model_np$np.csv" 2>"$O/model_np$np.err" ;;
    a2a)
      for np in 2 8 16; do
        $M -np $np $B/topocoll-bench -c alltoall -s 8,64,512,4K,16K,64K,256K -r 5 -a native,auto,pairwise,linear,bruck,h1_shm${A2A_EXTRA:-} \
          --csv "$O/alltoall_np$np.csv" > "$O/alltoall_np$np.txt" 2>&1
      done ;;
    main)
      $M -np 4 $B/topocoll-bench -t 2x2 -r 3 --csv "$O/main_2x2.csv" > "$O/main_2x2.txt" 2>&1 ;;
    rooted)
      for np in 2 8; do
        $M -np $np $B/topocoll-bench -c bcast -s $S -r 5 -a native,auto,binomial,scatter_allgather,shm_1stage,shm_1stage_64k,shm_2stage_64k \
          --csv "$O/bcast_np$np.csv" > "$O/bcast_np$np.txt" 2>&1
        $M -np $np $B/topocoll-bench -c reduce -s $S -r 5 -a native,auto,binomial,rabenseifner,shm_tree2,shm_tree4_16k,shm_tiled_naive \
          --csv "$O/reduce_np$np.csv" > "$O/reduce_np$np.txt" 2>&1
      done ;;
    omp)
      ulimit -s unlimited; export OMP_STACKSIZE=256M   # the reduction clause keeps private copies of the array section on the stack
      for p in 2 8; do $B/topocoll-omp-allreduce -p $p -s 8:16M -r 5 --csv "$O/omp_p$p.csv" > "$O/omp_p$p.txt" 2>&1; done
      build-q/tools/overhead/topocoll-kernels > "$O/kernels.txt" 2>&1 || true ;;
  esac
done
echo "== done $(date +%T)"
[ -n "${OUT:-}" ] && (cd "$O" && tar czf /tmp/all.tgz --exclude=all.tgz . && rm -f ./* && mv /tmp/all.tgz .)
