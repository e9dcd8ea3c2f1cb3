# nice -n 19 python3 h26_validate.py  -- checks the eval_holdout26 set
import json, os, re, sys, glob
base = os.path.dirname(os.path.abspath(__file__))
L = [json.loads(l) for l in open(os.path.join(base, 'labels.jsonl'))]
errs = []
docs = sorted(glob.glob(os.path.join(base, 'corpus', '*.md')))
qs = sorted(glob.glob(os.path.join(base, 'queries', '*.txt')))
for f in docs + qs + [os.path.join(base, 'labels.jsonl')]:
    n = os.path.basename(f)
    if not n.startswith('h26') and n != 'labels.jsonl':
        errs.append('bad prefix ' + n)
seen = set()
for l in L:
    for k in ('query', 'expected', 'kind', 'source', 'note'):
        if k not in l: errs.append('missing %s in %s' % (k, l))
    if l['query'] in seen: errs.append('dup ' + l['query'])
    seen.add(l['query'])
    if not os.path.exists(os.path.join(base, l['query'])): errs.append('no file ' + l['query'])
    if l['kind'] == 'positive':
        if not l['expected'] or not os.path.exists(os.path.join(base, l['expected'])): errs.append('bad expected ' + str(l))
    elif l['kind'] in ('near_miss', 'negative'):
        if l['expected'] is not None: errs.append('expected must be null ' + l['query'])
    else:
        errs.append('bad kind ' + l['kind'])
    # leakage: own owner/repo, number, github link
    txt = open(os.path.join(base, l['query'])).read()
    repo, num = l['source'].split('#')
    if repo.lower() in txt.lower(): errs.append('own repo in ' + l['query'])
    if re.search(r'#\s*%s\b' % num, txt): errs.append('own number in ' + l['query'])
    if 'github.com' in txt.lower(): errs.append('github link in ' + l['query'])
if set(os.path.relpath(q, base) for q in qs) != seen: errs.append('query files and labels differ')
# every non-distractor doc expected by >=1 positive; no doc cites a query thread
expected = {l['expected'] for l in L if l['kind'] == 'positive'}
sources = {l['source'] for l in L}
distractors = []
for d in docs:
    rel = os.path.relpath(d, base)
    if rel not in expected: distractors.append(rel)
    t = open(d).read()
    for s in sources:
        repo, num = s.split('#')
        if re.search(re.escape(repo) + r'(#| PR #| #)' + num + r'\b', t, re.I):
            errs.append('%s cites query thread %s' % (rel, s))
print('docs', len(docs), 'queries', len(qs), 'labels', len(L))
print('kinds', {k: sum(1 for l in L if l['kind'] == k) for k in ('positive', 'near_miss', 'negative')})
print('docs without positives (distractors):', len(distractors))
for d in distractors: print('  ', d)
print('ERRORS' if errs else 'OK', *errs, sep='\n')
sys.exit(1 if errs else 0)
