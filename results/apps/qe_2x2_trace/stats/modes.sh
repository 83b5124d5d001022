P=/work/main/build-openmpi/libtopocoll_pmpi.so
base=(mpirun --allow-run-as-root --mca op ^avx -x OMP_NUM_THREADS=1 -np 4 -x TOPOCOLL_TOPOLOGY=2x2 --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -x LD_PRELOAD=$P -x TOPOCOLL_STATS=1)
forced=(); for c in BCAST REDUCE ALLTOALL ALLTOALLV ALLREDUCE BARRIER; do forced+=(-x TOPOCOLL_$c=native); done
for i in 1 2 3 4 5 6; do
  "${base[@]}" pw.x -in si8.scf.in > pw_t$i.out 2> st_t$i.txt
  "${base[@]}" "${forced[@]}" pw.x -in si8.scf.in > pw_f$i.out 2> st_f$i.txt
  "${base[@]}" -x TOPOCOLL_CONTEXT_AFTER=1000000 pw.x -in si8.scf.in > pw_c$i.out 2> st_c$i.txt
done
