import csv,glob,sys,collections,statistics as st
D=sys.argv[1]
for tag in ['builtin','tuned']:
    files=sorted(glob.glob(f'{D}/{tag}_*.csv'))
    print(f"== {tag}: {len(files)} launches")
    med=collections.defaultdict(list)
    for f in files:
        by=collections.defaultdict(dict)
        for r in csv.DictReader(open(f)):
            if r['status']=='ok': by[int(r['bytes'])][r['algorithm']]=float(r['median_us'])
        worst=0; within=0; over=[]
        for b,d in sorted(by.items()):
            ra=d['auto']/d['native']; med[b].append(ra)
            worst=max(worst,ra)
            if ra>1.05: over.append(f"{b}:{ra:.2f}")
            within+= d['auto']<=1.05*min(d.values())
        print(f"  {f.split('/')[-1]}: auto/native max {worst:.2f} ({'ok' if worst<=1.05 else 'over at '+' '.join(over)}); within 5% of fastest at {within}/{len(by)} sizes")
    print("  median over launches of auto/native:", ' '.join(f"{b}:{st.median(v):.2f}" for b,v in sorted(med.items())))
