/* phase probe: world h1_shm_rsa vs leaders-only rsa, interleaved */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "topocoll.h"
static double run(const char *alg, MPI_Comm c, int *s, int *r, int n, int it, double *skew) {
  double tot=0, sk=0; int rank; MPI_Comm_rank(c,&rank);
  for (int i=0;i<it+2;i++){ MPI_Barrier(c); double t0=MPI_Wtime();
    if (alg) topocoll_allreduce_algorithm(alg,s,r,n,MPI_INT,MPI_SUM,c); else MPI_Allreduce(s,r,n,MPI_INT,MPI_SUM,c);
    double t1=MPI_Wtime(), d=t1-t0, mx, t0max, t0min;
    MPI_Allreduce(&d,&mx,1,MPI_DOUBLE,MPI_MAX,c); MPI_Allreduce(&t0,&t0max,1,MPI_DOUBLE,MPI_MAX,c); MPI_Allreduce(&t0,&t0min,1,MPI_DOUBLE,MPI_MIN,c);
    if (i>=2){tot+=mx; sk+=t0max-t0min;} }
  *skew=sk/it*1e6; return tot/it*1e6; }
int main(int argc,char**argv){ MPI_Init(&argc,&argv); int rank,np; MPI_Comm_rank(MPI_COMM_WORLD,&rank); MPI_Comm_size(MPI_COMM_WORLD,&np);
  int n=atoi(argv[1])/4; int *s=malloc(n*4),*r=malloc(n*4); for(int i=0;i<n;i++)s[i]=rank+i;
  MPI_Comm lead; MPI_Comm_split(MPI_COMM_WORLD, rank%2==0?0:MPI_UNDEFINED, rank, &lead);
  /* note: block order 2,2,2,2: even ranks are node leaders */
  for (int rep=0;rep<3;rep++){ double sk1,sk2,sk3,sk4;
    double a=run("h1_shm_rsa",MPI_COMM_WORLD,s,r,n,16,&sk1);
    double b=0,c=0; if(lead!=MPI_COMM_NULL){ b=run("reduce_scatter_allgather",lead,s,r,n,16,&sk2); c=run(NULL,lead,s,r,n,16,&sk3);} 
    MPI_Barrier(MPI_COMM_WORLD);
    double d=run(NULL,MPI_COMM_WORLD,s,r,n,16,&sk4);
    if(rank==0) printf("world h1_shm_rsa %.0f (skew %.0f) | leaders rsa %.0f (skew %.0f) native %.0f | world native %.0f\n",a,sk1,b,sk2,c,d);}
  MPI_Finalize(); }
