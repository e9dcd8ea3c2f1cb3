import re
s=open("h32_queries.py").read()
def drop(src):
    global s
    i=s.index('add("'); 
    m=re.search(r'add\("[a-z_]+",[^\n]*"%s",.*?"""\)\n'%re.escape(src), s, re.S)
    assert m, src
    s=s[:m.start()]+s[m.end():]
drop("facebookresearch/fairseq#5631")
drop("ShishirPatil/gorilla#371")
new='''
add("positive",F,"hiyouga/LlamaFactory#868","Chinese, prose only: asks why --streaming forces --max_steps; maintainer confirms max_steps must be computed by hand because a streamed dataset has no length. Maintainer replies removed.","""
我有个比较基础的问题想要请教，为什么使用了--streaming之后必须要指定--max_steps，指定了max_steps之后，是不是只会跑max_steps * batch_size条数据。
如果我想把所有数据都跑完，是不是max_steps的值就要设定为(最大数据量 / batch_size)向上取整？
""")
add("near_miss",None,"OpenGVLab/Ask-Anything#12","Chinese. Looks like a sentencepiece install problem, but sentencepiece is installed: the LLaMA path points at a checkpoint whose tokenizer is GPT2Tokenizer / a single file, so SentencePiece cannot parse it (maintainer: the vicuna/LLaMA weights were not prepared per the official README). Carries an unrelated FutureWarning. Source-file path lines containing the project name dropped; maintainer reply removed.","""
主要报错是Internal: src/sentencepiece_processor.cc(1101) [model_proto->ParseFromArray(serialized.data(), serialized.size())] 

报错行：
    model = model_cls.from_config(model_config).to('cuda:1')
    model = cls(
    self.llama_tokenizer = LlamaTokenizer.from_pretrained(llama_model, use_fast=False)  
请问是我安装的sentencepiece库出错了吗，

我的报错是 
/root/anaconda3/envs/LH/lib/python3.9/site-packages/transformers/tokenization_utils_base.py:1713: FutureWarning: Calling LlamaTokenizer.from_pretrained() with the path to a single file or url is deprecated and won't be possible anymore in v5. Use a model identifier or the path to a directory instead.
  warnings.warn(
The tokenizer class you load from this checkpoint is not the same type as the class this function is called from. It may result in unexpected tokenization. 
The tokenizer class you load from this checkpoint is 'GPT2Tokenizer'. 
The class this function is called from is 'LlamaTokenizer'.
Traceback (
""")
'''
k=s.index("random.seed(32)")
s=s[:k]+new+"\n"+s[k:]
open("h32_queries.py","w").write(s)
print("ok")
