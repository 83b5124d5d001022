"""The main job's launches of 2026-11-28: per launch, over launches, and the
spread of two columns that run the same algorithm (auto and linear, 8 B - 2 KiB,
where both tables choose linear)."""
import csv, glob, statistics as st, sys

D = sys.argv[1] if len(sys.argv) > 1 else '.'

def load(f):
    by = {}
    for r in csv.DictReader(open(f)):
        if r['status'] == 'ok':
            by.setdefault(int(r['bytes']), {})[r['algorithm']] = float(r['median_us'])
    return by

for tag in ['builtin', 'tuned']:
    files = sorted(glob.glob(f'{D}/{tag}_*.csv')) + sorted(glob.glob(f'{D}/r15_{tag}_*.csv'))
    an, af = {}, {}
    print(f'== {tag}: {len(files)} launches (auto / native, auto / fastest column)')
    for f in files:
        by = load(f)
        over = [f'{b}:{d["auto"] / d["native"]:.2f}' for b, d in sorted(by.items()) if d['auto'] > 1.05 * d['native']]
        within = sum(d['auto'] <= 1.05 * min(d.values()) for d in by.values())
        print(f'  {f.split("/")[-1]}: over 1.05x native at {" ".join(over) or "no size"}; '
              f'within 5 % of the fastest at {within}/{len(by)} sizes')
        for b, d in by.items():
            an.setdefault(b, []).append(d['auto'] / d['native'])
            af.setdefault(b, []).append(d['auto'] / min(d.values()))
    print('  median over launches:', ' '.join(f'{b}:{st.median(an[b]):.2f}/{st.median(af[b]):.2f}' for b in sorted(an)))

v = []
for f in glob.glob(f'{D}/builtin_*.csv') + glob.glob(f'{D}/tuned_*.csv') + glob.glob(f'{D}/r15_*.csv'):
    by = load(f)
    v += [by[b]['auto'] / by[b]['linear'] for b in [8, 16, 32, 64, 128, 256, 512, 1024, 2048]]
v.sort()
q = lambda p: v[int(p * (len(v) - 1))]
print(f'auto / linear, the same algorithm, {len(v)} cells: min {v[0]:.2f}, 10th percentile {q(.1):.2f}, '
      f'median {q(.5):.2f}, 90th {q(.9):.2f}, max {v[-1]:.2f}; outside 0.95-1.05: {sum(x < .95 or x > 1.05 for x in v)}')

for tag in ['none', 'core']:
    runs = [load(f) for f in sorted(glob.glob(f'{D}/bind_{tag}*.csv'))]
    cells = {}
    for by in runs:
        for b, d in by.items():
            for a, t in d.items():
                cells.setdefault((a, b), []).append(t)
    sp = sorted(max(x) / min(x) for x in cells.values())
    qq = lambda p: sp[int(p * (len(sp) - 1))]
    print(f'--bind-to {tag}: {len(runs)} launches; a cell\'s slowest / fastest launch: '
          f'quartiles {qq(.25):.2f} {qq(.5):.2f} {qq(.75):.2f}, max {sp[-1]:.2f}')
