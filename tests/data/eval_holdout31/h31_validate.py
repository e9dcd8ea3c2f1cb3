import json,os,re,glob,collections
B=os.path.dirname(os.path.abspath(__file__)); os.chdir(B)
L=[json.loads(l) for l in open('labels.jsonl')]
err=[]
docs=sorted(glob.glob('corpus/*.md'))
for d in docs:
    if not os.path.basename(d).startswith('h31_'): err.append('bad doc name '+d)
for q in glob.glob('queries/*'):
    if not os.path.basename(q).startswith('h31_'): err.append('bad query name '+q)
used=set(x.strip().lower() for x in open('/work/staging/USED_THREADS.txt') if x.strip())
exp=collections.Counter()
for l in L:
    if not os.path.exists(l['query']): err.append('missing '+l['query'])
    if l['kind']=='positive':
        if not l['expected'] or not os.path.exists(l['expected']): err.append('bad expected '+str(l))
        exp[l['expected']]+=1
    elif l['kind'] in ('near_miss','negative'):
        if l['expected'] is not None: err.append('expected not null '+l['query'])
    else: err.append('bad kind '+l['query'])
    if l['source'].lower() in used: err.append('USED source '+l['source'])
    owner,rest=l['source'].split('/',1); repo,num=rest.split('#')
    t=open(l['query']).read().lower()
    for bad in [l['source'].lower(), (owner+'/'+repo).lower(), 'github.com', '#'+num, 'issues/'+num, 'pull/'+num]:
        if bad in t: err.append(f'query {l["query"]} contains {bad}')
    if owner.lower() in t: err.append(f'query {l["query"]} contains owner {owner}')
# documents must not cite any query thread
srcs=set(l['source'].lower() for l in L)
for d in docs:
    t=open(d).read().lower()
    for s in srcs:
        if s in t: err.append(f'doc {d} cites query thread {s}')
    for u in re.findall(r'[\w.-]+/[\w.-]+#\d+',t):
        if u in used: err.append(f'doc {d} cites USED thread {u}')
distractors=[d for d in docs if d not in exp]
print('docs',len(docs),'expected-by-positive',len(exp),'distractors',len(distractors))
for d in distractors: print('  distractor',d)
for d,c in sorted(exp.items()): print('  ',c,d)
print('kinds',collections.Counter(l['kind'] for l in L))
print('ERRORS' if err else 'OK'); [print(' ',e) for e in err]
