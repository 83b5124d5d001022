/* one-way cache-line latency between two processes on cores 0 and 1:
   symmetric exchange as an np-2 allreduce would do: each writes its seq, waits for peer's seq */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(){ char *m=mmap(0,4096,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
 _Atomic long *f[2]={(void*)m,(void*)(m+128)}; int N=2000000;
 for(int mode=0;mode<2;mode++){
 atomic_store(f[0],0);atomic_store(f[1],0);
 pid_t p=fork(); int me=p==0; cpu_set_t s;CPU_ZERO(&s);CPU_SET(me,&s);sched_setaffinity(0,sizeof s,&s);
 double t0=now();
 for(long i=1;i<=N;i++){
   if(mode==0){ /* symmetric exchange */
     atomic_store_explicit(f[me],i,memory_order_release);
     while(atomic_load_explicit(f[1-me],memory_order_acquire)<i);
   } else { /* ping-pong */
     if(me==0){ atomic_store_explicit(f[0],i,memory_order_release); while(atomic_load_explicit(f[1],memory_order_acquire)<i);} 
     else { while(atomic_load_explicit(f[0],memory_order_acquire)<i); atomic_store_explicit(f[1],i,memory_order_release);} }
 }
 double t=now()-t0; if(p==0) _exit(0); wait(0);
 printf("%s: %.1f ns per iteration\n", mode? "ping-pong round trip":"symmetric exchange", t/N*1e9);}
}
