#!/usr/bin/env bash
# measure_newer.sh BUILD OUT [part...]: the measurements behind the performance
# page's newer collectives and nonblocking overlap, each part into OUT/:
#   colls    barrier, reduce_scatter, scan, exscan, gatherv, scatterv, alltoallw
#            with every entry: np 2 bound to cores, the virtual 2x2 (4 ranks on
#            the machine's cores: oversubscribed where it has fewer)
#   colls_auto  the colls part's collectives with topocoll's choice, the MPI
#            library's, and MPI_<Coll> through the null shim preloaded (the
#            least any PMPI layer adds: tools/overhead/null_shim.c), np 2
#            bound and the virtual 2x2, LAUNCHES launches (default 10) into
#            rN_np2_COLL, rN_v2x2_COLL: cells of a few hundred nanoseconds
#            whose ratio changes from launch to launch
#            (tools/report/auto_native_summary.py)
#   cluster_auto  the colls_auto columns on the emulated cluster (4 hosts x
#            2 ranks at 1 Gbit/s) at 8 B and 4 KiB, against tuned and HAN
#            (coll_han_priority 100), LAUNCHES launches (default 5) into
#            rN_clANCHOR_COLL (tools/report/auto_native_summary.py)
#   pass_cost  the interposer's pass-through alone at np 2 and 8 B: scan,
#            scatterv, barrier and bcast with TOPOCOLL_<COLL>=native,
#            MPI_<Coll> through libtopocoll_pmpi.so (interposed) against
#            PMPI_<Coll>, LAUNCHES launches (default 30) into rN_np2_COLL
#   overlap  topocoll-bench --overlap (allreduce, alltoall, allgather, bcast),
#            preloaded, native beside topocoll's: np 2 bound, virtual 2x2
#   cluster  the emulated cluster, 4 hosts x 2 ranks at 1 Gbit/s
#            (tools/cluster/topocoll-cluster, root): topocoll-pingpong's
#            latency between two hosts (cl_pingpong.txt), the colls part against
#            Open MPI's tuned and HAN (coll_han_priority 100), the overlap part
#            against the MPI library's nonblocking collectives
#   cluster_overlap  the overlap part alone on the emulated cluster, topocoll's
#            choice beside the MPI library's, without and with 8 MPI_Test calls
#   cluster_overlap_repeat  four of those cells (bcast 4 KiB and allgather
#            256 KiB with 8 test calls, allreduce 4 KiB and 256 KiB without),
#            LAUNCHES launches (default 5)
#   request_cost  topocoll-overhead -m nb at np 2: a small nonblocking (and,
#            with MPICH 4, persistent) call against the blocking one and the
#            generalized request's round trip, LAUNCHES launches into rN.txt
#            (LEARN_INITS="0 400": per launch each TOPOCOLL_LEARN_INIT value,
#            into rN_initV.txt)
#   overlap_auto  the overlap part with topocoll's choice and the MPI library's
#            only, at 8 B, 512 B and 64 KiB: np 2 bound and the virtual 2x2,
#            LAUNCHES launches (default 3) into rN_ov_np2_COLL, rN_ov_v2x2_COLL
#            (LEARN_INITS="0 400" as for request_cost: _initV appended)
#   overlap_base  the overlap_auto cells with this build and a base build
#            (BASE=DIR, its libtopocoll_pmpi.so) in turn in each launch, the
#            virtual 2x2 and np 2, LAUNCHES launches (default 3) into
#            rN_{new,base}_ov_{v2x2,np2}_COLL: a change's before and after on
#            the machine of the same minutes
#   nbonly   topocoll-overhead -m nbonly at np 2: a program that makes
#            nonblocking calls only (allreduce, alltoall, allgather, bcast at
#            8 B, 512 B and 64 KiB), topocoll's MPI_I<coll> against the MPI
#            library's PMPI_I<coll>, by selection (rN_selected.txt) and with
#            message schedules forced (allgather linear, allreduce
#            recursive_doubling, bcast binomial, alltoall pairwise:
#            rN_forced.txt), LAUNCHES launches (default 3)
# Default: all three; COLLS="barrier alltoallw" limits the collectives.  Run
# on an idle machine; the load before and after is kept beside the data
# (load_before.txt, load_after.txt).
set -u
B=$(cd "${1:?build directory}" && pwd); out=${2:?output directory}; shift 2
parts=${*:-colls overlap cluster}
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=$B/tools/bench/topocoll-bench
pre=$B/libtopocoll_pmpi.so
null_shim=$B/tools/overhead/libtopocoll_null_shim.so   # MPI_<Coll> -> PMPI_<Coll> only
tool=$root/tools/cluster/topocoll-cluster
colls=${COLLS:-barrier reduce_scatter scan exscan gatherv scatterv alltoallw}
nbcolls="allreduce alltoall allgather bcast"
L=(mpirun --allow-run-as-root --mca op ^avx)
O=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
sizes() { [ "$1" = barrier ] && echo 8 || echo "$2"; }
# The bench's default columns leave families out (native, auto and the
# single entries); where a collective's hierarchical entry is a family
# (barrier, alltoallw), every variant is named.
algos() {
  case $1 in
  barrier|alltoallw) echo "-a native,auto,variants" ;;
  esac
}
# the barrier's microseconds on the oversubscribed cluster vary most: more repetitions
reps() { [ "$1" = barrier ] && echo 10 || echo 3; }
# The build's MPI library is MPICH (else Open MPI).
is_mpich() { grep -qs '^MPIEXEC_EXECUTABLE:.*mpich' "$B/CMakeCache.txt"; }
# run: np 2 bound to cores with the interposer preloaded, in the launcher's syntax.
np2_preloaded() {
  if is_mpich; then run=(mpiexec.mpich -np 2 -bind-to core -env LD_PRELOAD "$pre")
  else run=("${L[@]}" -np 2 --bind-to core -x LD_PRELOAD="$pre")
  fi
}
# envargs: NAME=VALUE ... as the launcher's environment arguments.
env_args() {
  envargs=()
  for kv; do
    if is_mpich; then envargs+=(-env "${kv%%=*}" "${kv#*=}"); else envargs+=(-x "$kv"); fi
  done
}
# The emulated cluster of 4 hosts at 1 Gbit/s, started afresh.
cluster_up() {
  export TOPOCOLL_CLUSTER_NAME=newer
  "$tool" down > /dev/null 2>&1
  "$tool" up --hosts 4 --rate 1gbit > "$out/cluster_up.txt" 2>&1 || { echo "cluster up failed"; exit 1; }
}
# cluster_overlap_run COLL ENTRIES SIZES TESTS: topocoll-bench --overlap on the
# cluster, preloaded, into ov_cl_COLL (ov_cl_testsTESTS_COLL with MPI_Test calls).
cluster_overlap_run() {   # COLL ENTRIES SIZES TESTCALLS [TOPOCOLL_LEARN_INIT value]
  local name=ov_cl_$1 extra=() env=()
  [ "$4" -gt 0 ] && extra=(--test-calls "$4") && name=ov_cl_tests${4}_$1
  [ -n "${5:-}" ] && env=(--env TOPOCOLL_LEARN_INIT="$5") && name=${name}_init$5
  "$tool" run --ranks 2,2,2,2 --order block --timeout 600 --env LD_PRELOAD="$pre" "${env[@]}" -- "$bench" \
    --overlap -c "$1" -a "$2" -s "$3" "${extra[@]}" -r 3 -q --csv "$out/$name.csv" > "$out/$name.txt" 2>&1
}
# the entries compared in the overlap part (those with a nonblocking form)
entries() {
  case $1 in
  allreduce) echo native,auto,recursive_doubling,reduce_scatter_allgather,ring,hierarchical ;;
  alltoall) echo native,auto,pairwise,linear,bruck,hierarchical ;;
  allgather) echo native,auto,linear,ring,recursive_doubling,bruck,hierarchical ;;
  bcast) echo native,auto,binomial,scatter_allgather,hierarchical ;;
  esac
}
mkdir -p "$out"
uptime > "$out/load_before.txt"
for part in $parts; do
  case $part in
  colls)
    for c in $colls; do
      timeout 600 "${L[@]}" -np 2 --bind-to core "$bench" -c "$c" $(algos "$c") -s "$(sizes "$c" 8,4K,64K,1M)" -r 5 -q \
        --csv "$out/np2_$c.csv" > "$out/np2_$c.txt" 2>&1
      timeout 600 "${L[@]}" -np 4 "${O[@]}" "$bench" -c "$c" $(algos "$c") -t 2x2 -s "$(sizes "$c" 8,4K,64K)" -r 3 -q \
        --csv "$out/v2x2_$c.csv" > "$out/v2x2_$c.txt" 2>&1
    done ;;
  colls_auto)
    shim=(-x LD_PRELOAD="$null_shim")
    for ((r = 1; r <= ${LAUNCHES:-10}; r++)); do
      for c in $colls; do
        timeout 600 "${L[@]}" -np 2 --bind-to core "${shim[@]}" "$bench" -c "$c" -a native,interposed,auto \
          -s "$(sizes "$c" 8,4K,64K,1M)" -r 5 -q --csv "$out/r${r}_np2_$c.csv" > "$out/r${r}_np2_$c.txt" 2>&1
        timeout 600 "${L[@]}" -np 4 "${O[@]}" "${shim[@]}" "$bench" -c "$c" -a native,interposed,auto -t 2x2 \
          -s "$(sizes "$c" 8,4K,64K)" -r 5 -q --csv "$out/r${r}_v2x2_$c.csv" > "$out/r${r}_v2x2_$c.txt" 2>&1
      done
    done ;;
  cluster_auto)
    cluster_up
    for ((r = 1; r <= ${LAUNCHES:-5}; r++)); do
      for c in $colls; do
        for anchor in tuned han; do
          env=(); [ $anchor = han ] && env=(--env OMPI_MCA_coll_han_priority=100)
          "$tool" run --ranks 2,2,2,2 --order block --timeout 600 "${env[@]}" \
            --env LD_PRELOAD="$null_shim" -- "$bench" -c "$c" \
            -a native,interposed,auto -s "$(sizes "$c" 8,4K)" -r "$(reps "$c")" -q --csv "$out/r${r}_cl${anchor}_$c.csv" \
            > "$out/r${r}_cl${anchor}_$c.txt" 2>&1
        done
      done
    done
    "$tool" down > /dev/null 2>&1 ;;
  pass_cost)
    for ((r = 1; r <= ${LAUNCHES:-30}; r++)); do
      for c in scan scatterv barrier bcast; do
        u=$(echo "$c" | tr a-z A-Z)
        timeout 600 "${L[@]}" -np 2 --bind-to core -x LD_PRELOAD="$pre" -x "TOPOCOLL_$u=native" "$bench" -c "$c" \
          -a native,interposed -s 8 -r 6 -q --csv "$out/r${r}_np2_$c.csv" > "$out/r${r}_np2_$c.txt" 2>&1
      done
    done ;;
  overlap)
    for c in $nbcolls; do
      timeout 600 "${L[@]}" -np 2 --bind-to core -x LD_PRELOAD="$pre" "$bench" --overlap -c "$c" \
        -a "$(entries "$c")" -s 8,1K,64K,1M -r 3 -q \
        --csv "$out/ov_np2_$c.csv" > "$out/ov_np2_$c.txt" 2>&1
      timeout 600 "${L[@]}" -np 4 "${O[@]}" -x LD_PRELOAD="$pre" "$bench" --overlap -c "$c" -t 2x2 \
        -a "$(entries "$c")" -s 8,1K,64K -r 3 -q \
        --csv "$out/ov_v2x2_$c.csv" > "$out/ov_v2x2_$c.txt" 2>&1
      timeout 600 "${L[@]}" -np 2 --bind-to core -x LD_PRELOAD="$pre" "$bench" --overlap -c "$c" \
        -a native,auto -s 1K,64K,1M --test-calls 8 -r 3 -q \
        --csv "$out/ov_np2_tests8_$c.csv" > "$out/ov_np2_tests8_$c.txt" 2>&1
    done ;;
  cluster)
    cluster_up
    # the one-way zero-byte latency between two hosts: the bound of the barrier
    "$tool" run --ranks 2,2,2,2 --order block --timeout 300 -- "$B/tools/bench/topocoll-pingpong" -r 5 \
      > "$out/cl_pingpong.txt" 2>&1
    for c in $colls; do
      for anchor in tuned han; do
        env=(); [ $anchor = han ] && env=(--env OMPI_MCA_coll_han_priority=100)
        "$tool" run --ranks 2,2,2,2 --order block --timeout 600 "${env[@]}" -- "$bench" -c "$c" \
          $(algos "$c") -s "$(sizes "$c" 8,4K,256K)" -r "$(reps "$c")" -q --csv "$out/cl_${anchor}_$c.csv" \
          > "$out/cl_${anchor}_$c.txt" 2>&1
      done
    done
    for c in $nbcolls; do cluster_overlap_run "$c" "$(entries "$c")" 8,4K,256K 0; done
    "$tool" down > /dev/null 2>&1 ;;
  overlap_auto)
    # topocoll's selection against the MPI library's own only, np 2 and the
    # virtual 2 x 2, launches LAUNCHES (default 3) times
    # (LEARN_INITS="0 400": per launch each TOPOCOLL_LEARN_INIT value, the
    # files' names ending in _initV)
    for ((r = 1; r <= ${LAUNCHES:-3}; r++)); do
      for v in ${LEARN_INITS:-default}; do
        sfx=; [ "$v" = default ] || sfx=_init$v
        export TOPOCOLL_LEARN_INIT=${v/default/400}
        for c in $nbcolls; do
          timeout 600 "${L[@]}" -np 2 --bind-to core -x LD_PRELOAD="$pre" -x TOPOCOLL_LEARN_INIT "$bench" --overlap \
            -c "$c" -a native,auto -s 8,512,64K -r 3 -q --csv "$out/r${r}_ov_np2_$c$sfx.csv" \
            > "$out/r${r}_ov_np2_$c$sfx.txt" 2>&1
          timeout 600 "${L[@]}" -np 4 "${O[@]}" -x LD_PRELOAD="$pre" -x TOPOCOLL_LEARN_INIT "$bench" --overlap \
            -c "$c" -t 2x2 -a native,auto -s 8,512,64K -r 3 -q --csv "$out/r${r}_ov_v2x2_$c$sfx.csv" \
            > "$out/r${r}_ov_v2x2_$c$sfx.txt" 2>&1
        done
      done
      unset TOPOCOLL_LEARN_INIT
    done ;;
  nbonly)
    np2_preloaded
    env_args TOPOCOLL_ALLGATHER=linear TOPOCOLL_ALLREDUCE=recursive_doubling TOPOCOLL_BCAST=binomial \
      TOPOCOLL_ALLTOALL=pairwise
    forced=("${envargs[@]}")
    for ((r = 1; r <= ${LAUNCHES:-3}; r++)); do
      for form in selected forced; do
        extra=(); [ "$form" = forced ] && extra=("${forced[@]}")
        for c in $nbcolls; do
          for s in 8 512 65536; do
            n=2000; [ "$s" = 65536 ] && n=200
            timeout 600 "${run[@]}" "${extra[@]}" "$B/tools/overhead/topocoll-overhead" -m nbonly -c "$c" -s "$s" \
              -n "$n" -b 11 >> "$out/r${r}_$form.txt" 2>&1
          done
        done
      done
    done ;;
  request_cost)
    # topocoll-overhead -m nb at np 2 (the build's MPI: with MPICH 4 the
    # persistent forms too), LAUNCHES launches (default 3) into rN.txt
    np2_preloaded
    # LEARN_INITS="0 400": each launch runs every TOPOCOLL_LEARN_INIT value
    # in turn, into rN_initV.txt (persistent inits without and with learning)
    for ((r = 1; r <= ${LAUNCHES:-3}; r++)); do
      for v in ${LEARN_INITS:-default}; do
        f=$out/r$r.txt; [ "$v" = default ] || f=$out/r${r}_init$v.txt
        for c in $nbcolls barrier; do
          for s in 8 512; do
            [ "$c" = barrier ] && [ "$s" != 8 ] && continue
            pass=("${run[@]}")
            if [ "$v" != default ] && [ "${run[0]}" = mpirun ]; then
              pass=(env TOPOCOLL_LEARN_INIT="$v" mpirun -x TOPOCOLL_LEARN_INIT "${run[@]:1}")
            elif [ "$v" != default ]; then
              pass=(env TOPOCOLL_LEARN_INIT="$v" "${run[@]}")
            fi
            timeout 600 "${pass[@]}" "$B/tools/overhead/topocoll-overhead" -m nb -c "$c" -s "$s" -n 10000 -b 21 \
              >> "$f" 2>&1
          done
        done
      done
    done ;;
  overlap_base)
    base=$(cd "${BASE:?BASE=the base build directory}" && pwd)
    for ((r = 1; r <= ${LAUNCHES:-3}; r++)); do
      for c in $nbcolls; do
        for which in new base; do
          lib=$pre
          [ "$which" = base ] && lib=$base/libtopocoll_pmpi.so
          timeout 600 "${L[@]}" -np 4 "${O[@]}" -x LD_PRELOAD="$lib" "$bench" --overlap -c "$c" -t 2x2 \
            -a native,auto -s 8,512,64K -r 3 -q --csv "$out/r${r}_${which}_ov_v2x2_$c.csv" \
            > "$out/r${r}_${which}_ov_v2x2_$c.txt" 2>&1
          timeout 600 "${L[@]}" -np 2 --bind-to core -x LD_PRELOAD="$lib" "$bench" --overlap -c "$c" \
            -a native,auto -s 8,512,64K -r 3 -q --csv "$out/r${r}_${which}_ov_np2_$c.csv" \
            > "$out/r${r}_${which}_ov_np2_$c.txt" 2>&1
        done
      done
    done ;;
  cluster_overlap_repeat)
    # the cells whose reading one launch left open, LAUNCHES launches (default
    # 5) of topocoll's choice against the MPI library's, into
    # rN_COLL_SIZE_tTESTS.csv/.txt
    cluster_up
    for ((r = 1; r <= ${LAUNCHES:-5}; r++)); do
      for spec in "bcast 4K 8" "allreduce 256K 0" "allgather 256K 8" "allreduce 4K 0"; do
        set -- $spec
        cluster_overlap_run "$1" native,auto "$2" "$3"
        ran=ov_cl_$1
        [ "$3" -gt 0 ] && ran=ov_cl_tests${3}_$1
        for f in csv txt; do mv "$out/$ran.$f" "$out/r${r}_$1_$2_t$3.$f"; done
      done
    done
    "$tool" down > /dev/null 2>&1 ;;
  cluster_overlap)
    cluster_up
    # (LEARN_INITS="0 400": each TOPOCOLL_LEARN_INIT value in turn, _initV)
    for c in $nbcolls; do
      for t in 0 8; do
        if [ -n "${LEARN_INITS:-}" ]; then
          for v in $LEARN_INITS; do cluster_overlap_run "$c" native,auto 4K,256K $t "$v"; done
        else
          cluster_overlap_run "$c" native,auto 4K,256K $t
        fi
      done
    done
    "$tool" down > /dev/null 2>&1 ;;
  *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done
uptime > "$out/load_after.txt"
