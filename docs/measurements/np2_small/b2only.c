#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int c,char**v){MPI_Init(&c,&v);int r;MPI_Comm_rank(MPI_COMM_WORLD,&r);
 int n=atoi(v[1])/8, it=atoi(v[2]); double s[64]={0},o[64];
 MPI_Barrier(MPI_COMM_WORLD);double t=MPI_Wtime();
 for(int i=0;i<it;i++)MPI_Allreduce(s,o,n,MPI_DOUBLE,MPI_SUM,MPI_COMM_WORLD);
 t=MPI_Wtime()-t; if(!r)printf("%.3f us\n",t/it*1e6);
 MPI_Finalize();}
