import json, os, re, sys, glob
BASE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(BASE)
ok = True
def bad(m):
    global ok; ok = False; print('FAIL:', m)
labels = [json.loads(l) for l in open('labels.jsonl')]
docs = sorted(glob.glob('corpus/*.md'))
qfiles = sorted(glob.glob('queries/*.txt'))
for p in docs + qfiles:
    if not os.path.basename(p).startswith('h27_'): bad('prefix '+p)
if len(labels) != len(qfiles): bad('labels vs query files')
seen=set(); used={}
for L in labels:
    for k in ('query','expected','kind','source','note'):
        if k not in L: bad(f'missing {k} in {L}')
    q=L['query']
    if q in seen: bad('dup '+q)
    seen.add(q)
    if not os.path.isfile(q): bad('no query file '+q)
    if L['kind'] not in ('positive','near_miss','negative'): bad('kind '+q)
    if L['kind']=='positive':
        if not L['expected'] or not os.path.isfile(L['expected']): bad('expected missing '+q)
        used[L['expected']]=used.get(L['expected'],0)+1
    elif L['expected'] is not None: bad('expected not null '+q)
    text=open(q).read()
    src=L['source']; owner_repo, num = src.split('#')
    owner, repo = owner_repo.split('/')
    low=text.lower()
    if owner_repo.lower() in low: bad(f'{q} contains {owner_repo}')
    if 'github.com' in low: bad(f'{q} contains github.com')
    if re.search(r'(?<![0-9])#?'+re.escape(num)+r'(?![0-9])', text) and ('#'+num in text or 'issues/'+num in text or 'pull/'+num in text): bad(f'{q} contains own number {num}')
    if re.search(r'https?://', text): bad(f'{q} contains a URL')
    if repo.lower() in low and repo.lower() not in ('vllm','peft','trl','transformers','nccl','ray','pytorch','bitsandbytes','llama.cpp','megatron-lm','deepspeed'):
        print('NOTE: repo name', repo, 'appears in', q)
# documents must not cite any query thread
qsrc=set(L['source'] for L in labels)
for d in docs:
    t=open(d).read()
    for s in qsrc:
        o,n=s.split('#')
        if re.search(re.escape(o)+r'#'+n+r'(?![0-9])', t): bad(f'{d} cites query thread {s}')
distractors=[d for d in docs if d not in used]
print('docs',len(docs),'positives per doc:')
for d in docs: print('  ',used.get(d,0),d)
from collections import Counter
print(Counter(L['kind'] for L in labels))
print('distractors (no positive):',len(distractors))
print('ALL OK' if ok else 'ERRORS')
