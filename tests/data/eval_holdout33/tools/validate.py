import json,os,re,sys
base='/work/staging/eval_holdout33'
L=[json.loads(l) for l in open(os.path.join(base,'labels.jsonl'))]
ok=True
def bad(m):
    global ok; ok=False; print('FAIL',m)
docs=set('corpus/'+f for f in os.listdir(os.path.join(base,'corpus')))
used=set(x.strip().lower() for x in open('/work/staging/USED_THREADS.txt') if x.strip())
alias={'microsoft/deepspeed':'deepspeedai/deepspeed','volcengine/verl':'verl-project/verl','hiyouga/llama-factory':'hiyouga/llamafactory'}
def norm(t):
    r,n=t.lower().split('#')
    for a,b in alias.items():
        if r==a: r=b
    return r+'#'+n
usedn=set(norm(u) for u in used if '#' in u)
expected_docs=set()
for x in L:
    q=x['query']
    if not os.path.basename(q).startswith('h33_'): bad('prefix '+q)
    if not os.path.exists(os.path.join(base,q)): bad('missing '+q)
    if x['kind'] in ('near_miss','negative'):
        if x['expected'] is not None: bad('expected not null '+q)
    elif x['kind']=='positive':
        if not x['expected'] or not os.path.exists(os.path.join(base,x['expected'])): bad('bad expected '+q)
        expected_docs.add(x['expected'])
    else: bad('kind '+q)
    if norm(x['source']) in usedn: bad('USED source '+x['source'])
    t=open(os.path.join(base,q)).read().lower()
    repo,num=x['source'].split('#')
    owner,name=repo.split('/')
    if repo.lower() in t: bad(f'{q} contains owner/repo')
    if re.search(r'(?<![\d.])#?'+num+r'(?![\d])',t) and ('#'+num in t or 'issues/'+num in t or 'pull/'+num in t): bad(f'{q} contains #{num}')
    if 'github.com' in t: bad(f'{q} link')
    if name.lower() in t: print('WARN repo name in',q,name)
    if '@' in t and re.search(r'@[A-Za-z]',t): print('WARN @ in',q)
for d in docs:
    if not os.path.basename(d).startswith('h33_'): bad('doc prefix '+d)
    txt=open(os.path.join(base,d)).read()
    for m in re.findall(r'([\w.-]+/[\w.-]+#\d+)',txt):
        if norm(m) in usedn: bad(f'{d} cites USED {m}')
        if any(norm(m)==norm(x['source']) for x in L): bad(f'{d} cites query thread {m}')
print('docs',len(docs),'expected docs',len(expected_docs))
print('docs never expected:',sorted(docs-expected_docs))
from collections import Counter
print(Counter(x['kind'] for x in L))
print('OK' if ok else 'NOT OK')
