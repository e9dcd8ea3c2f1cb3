#!/bin/bash
# usage: chk.sh owner/repo#N ...
for t in "$@"; do
  alt="$t"
  case "$t" in
    microsoft/DeepSpeed*) alt="deepspeedai/DeepSpeed${t#microsoft/DeepSpeed}";;
    deepspeedai/DeepSpeed*) alt="microsoft/DeepSpeed${t#deepspeedai/DeepSpeed}";;
    volcengine/verl*) alt="verl-project/verl${t#volcengine/verl}";;
    verl-project/verl*) alt="volcengine/verl${t#verl-project/verl}";;
    hiyouga/LLaMA-Factory*) alt="hiyouga/LlamaFactory${t#hiyouga/LLaMA-Factory}";;
    hiyouga/LlamaFactory*) alt="hiyouga/LLaMA-Factory${t#hiyouga/LlamaFactory}";;
  esac
  if grep -qix -e "$t" -e "$alt" /work/staging/USED_THREADS.txt; then echo "USED $t"; else echo "ok $t"; fi
done
