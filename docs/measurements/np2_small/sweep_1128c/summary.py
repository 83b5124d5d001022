"""Launches of topocoll-bench -c allreduce -a native,auto at np 2: per size, auto / native over the launches."""
import csv,glob,statistics as st,sys
D=sys.argv[1]
files=sorted(glob.glob(D+'/*.csv'))
rat={};nat={}
for f in files:
    by={}
    for r in csv.DictReader(open(f)): by.setdefault(int(r['bytes']),{})[r['algorithm']]=float(r['median_us'])
    for b,d in by.items(): rat.setdefault(b,[]).append(d['auto']/d['native']); nat.setdefault(b,[]).append(d['native'])
print(len(files),"launches")
print("bytes  median  min  max  launches<=0.67  native_us(min-max)")
for b in sorted(rat):
    v=rat[b]; print(f"{b:>9} {st.median(v):.2f} {min(v):.2f} {max(v):.2f} {sum(x<=0.67 for x in v):>3}/{len(v)}  {min(nat[b]):.2f}-{max(nat[b]):.2f}")
