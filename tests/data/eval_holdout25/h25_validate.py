import json, os, re, sys
base=__import__('os').path.dirname(__import__('os').path.abspath(__file__))
os.chdir(base)
labels=[json.loads(l) for l in open('labels.jsonl')]
errs=[]; warns=[]
DISTRACTORS={"corpus/h25_ulysses_sp_size_head_divisibility_en.md","corpus/h25_trl_vlm_dataset_prepared_columns_dropped_zh.md",
"corpus/h25_smart_resize_zero_dimension_extreme_ratio_zh.md","corpus/h25_vllm_max_model_len_above_derived_en.md",
"corpus/h25_llava_processor_patch_size_deprecation_warning_zh.md","corpus/h25_decord_video_read_hang_en.md",
"corpus/h25_neat_packing_mrope_position_ids_zh.md","corpus/h25_vllm_encoder_cache_smaller_than_mm_item_en.md",
"corpus/h25_siglip_text_padding_max_length_en.md"}
docs={"corpus/"+f for f in os.listdir('corpus')}
for f in os.listdir('corpus')+os.listdir('queries'):
    if not f.startswith('h25_'): errs.append('prefix '+f)
for d in DISTRACTORS:
    if d not in docs: errs.append('missing distractor '+d)
used=set()
doctext={d:open(d).read() for d in docs}
for L in labels:
    q=L['query']
    if not os.path.exists(q): errs.append('missing '+q)
    if L['kind'] not in ('positive','near_miss','negative'): errs.append('kind '+q)
    if L['kind']=='positive':
        if not L['expected'] or not os.path.exists(L['expected']): errs.append('bad expected '+q)
        else: used.add(L['expected'])
        if L['expected'] in DISTRACTORS: errs.append('positive points to distractor '+q)
    else:
        if L['expected'] is not None: errs.append('expected not null '+q)
    t=open(q).read()
    src=L['source']; m=re.match(r'([^/]+)/([^#]+)#(\d+)$',src)
    if not m: errs.append('bad source '+src); continue
    owner,repo,num=m.groups()
    if f"{owner}/{repo}".lower() in t.lower(): errs.append(f'{q} contains owner/repo')
    if re.search(r'#\s*'+num+r'\b',t) or re.search(r'/(issues|pull)/'+num+r'\b',t): errs.append(f'{q} contains its number')
    if 'github.com' in t.lower(): errs.append(f'{q} contains github link')
    if re.search(r'https?://',t): warns.append(f'{q} contains a URL')
    if repo.lower() in t.lower(): warns.append(f'{q} mentions repo name "{repo}" (check it is only a package name)')
    if owner.lower() in t.lower() and len(owner)>3: warns.append(f'{q} mentions owner "{owner}"')
    # no doc cites a query thread
    for d,dt in doctext.items():
        if re.search(re.escape(f"{owner}/{repo}")+r'#'+num+r'\b',dt): errs.append(f'doc {d} cites query thread {src}')
        if f"{owner}/{repo}" in dt and re.search(r'#'+num+r'\b',dt) and f"{owner}/{repo}#{num}" not in dt:
            warns.append(f'doc {d} mentions {owner}/{repo} and #{num} separately')
for d in docs-DISTRACTORS:
    if d not in used: errs.append('doc not expected by any positive '+d)
for d in DISTRACTORS:
    if d in used: errs.append('distractor used '+d)
print('queries',len(labels),'docs',len(docs),'distractors',len(DISTRACTORS))
print('ERRORS' if errs else 'OK', *errs, sep='\n')
print('WARNINGS:', *warns, sep='\n')
