import json, random, os, sys
sys.path.insert(0, os.path.dirname(__file__))
from h21_queries_part3 import Q
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
assert len(Q) == 44, len(Q)
rng = random.Random(2121)
order = Q[:]
rng.shuffle(order)
os.makedirs(os.path.join(root, "queries"), exist_ok=True)
rows = []
for i, q in enumerate(order, 1):
    name = f"queries/h21_q{i:02d}.txt"
    with open(os.path.join(root, name), "w", encoding="utf-8") as f:
        f.write(q["text"])
    rows.append({"query": name, "expected": q["expected"], "kind": q["kind"],
                 "source": q["source"], "note": q["note"]})
    q["file"] = name
with open(os.path.join(root, "labels.jsonl"), "w", encoding="utf-8") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
with open(os.path.join(root, "h21_tools", "h21_keymap.tsv"), "w") as f:
    for q in order:
        f.write(f"{q['file']}\t{q['key']}\t{q['kind']}\t{q['source']}\n")
print("written", len(rows))
