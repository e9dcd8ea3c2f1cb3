import json,os,re,sys
base=sys.argv[1]
L=[json.loads(l) for l in open(f'{base}/labels.jsonl')]
ok=True
docs=sorted('corpus/'+f for f in os.listdir(f'{base}/corpus'))
qs=sorted('queries/'+f for f in os.listdir(f'{base}/queries'))
assert all(os.path.basename(d).startswith('x_') for d in docs+qs), 'prefix'
assert len(L)==len(qs)==44, (len(L),len(qs))
assert sorted(l['query'] for l in L)==qs
used={}
for l in L:
    for k in ('query','expected','kind','source','note'): assert k in l
    assert os.path.exists(f"{base}/{l['query']}")
    if l['kind']=='positive':
        assert l['expected'] and os.path.exists(f"{base}/{l['expected']}"), l
        used[l['expected']]=used.get(l['expected'],0)+1
    else:
        assert l['kind'] in ('near_miss','negative') and l['expected'] is None, l
    txt=open(f"{base}/{l['query']}",encoding='utf-8').read()
    src=l['source']; repo,num=src.split('#')
    low=txt.lower()
    if repo.lower() in low: print('OWNER/REPO LEAK',l['query'],repo); ok=False
    if re.search(r'#'+num+r'\b',txt): print('NUMBER LEAK',l['query'],num); ok=False
    if 'github.com' in low: print('LINK',l['query']); ok=False
    if re.search(r'@[A-Za-z0-9][\w-]+',txt) and 'noqa' not in txt: print('possible @mention',l['query'],re.findall(r'@[A-Za-z0-9][\w-]+',txt))
# docs must not cite query threads
qsrc=set(l['source'].lower() for l in L)
for d in docs:
    t=open(f'{base}/{d}',encoding='utf-8').read().lower()
    for s in qsrc:
        repo,num=s.split('#')
        name=repo.split('/')[1]
        for m in re.finditer(re.escape(name)+r'[^\n#]{0,12}#'+num+r'\b',t):
            print('DOC CITES QUERY THREAD',d,s); ok=False
print('docs',len(docs)); print('expected counts:'); 
for d in docs: print(' ',used.get(d,0),d)
from collections import Counter
print(Counter(l['kind'] for l in L))
print('OK' if ok else 'PROBLEMS')
