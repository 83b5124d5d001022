import csv,sys,glob,collections,statistics as st
D,coll=sys.argv[1],sys.argv[2]
R=collections.defaultdict(list); T=collections.defaultdict(list)
for f in sorted(glob.glob(f"{D}/{coll}_*_*.csv")):
    ver=f.split('/')[-1].split('_')[1]
    for r in csv.DictReader(open(f)):
        if r['status']!='ok': continue
        R[(ver,r['algorithm'],int(r['bytes']))].append(float(r['ratio_to_native']))
        T[(ver,r['algorithm'],int(r['bytes']))].append(float(r['median_us']))
algos=sorted({k[1] for k in R}); sizes=sorted({k[2] for k in R})
print("bytes | "+" | ".join(f"{a} old|new" for a in algos))
for s in sizes:
    print(s, " | ".join(f"{st.median(R[('old',a,s)]):.2f}|{st.median(R[('new',a,s)]):.2f} ({st.median(T[('old',a,s)]):.3f}|{st.median(T[('new',a,s)]):.3f}us)" for a in algos))
print("per-run ratios auto:", {s:[ (round(x,2)) for x in R[('new','auto',s)]] for s in sizes})
