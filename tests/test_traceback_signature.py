"""Signatures: templates keep the discriminating literals, facts tell look-alikes apart, similarity explains itself."""
from pathlib import Path

import pytest

from kb.rules import version_inputs
from kb.traceback.facts import FACTS, shape_relation
from kb.traceback.frames import locate_file, reduce_frames
from kb.traceback.models import Frame
from kb.traceback.parse import parse_report
from kb.traceback import signature as signature_module
from kb.traceback.signature import (SIG_ACCEPT, SIGNATURE_VERSION, hard_conflicts, make_signature, related_types,
                                    rules_version, signature_of_event, signature_of_line, signature_ref, similarity)

SM = ("size mismatch for {p}: copying a param with shape torch.Size([{ck}]) from checkpoint, "
      "the shape in current model is torch.Size([{cur}]).")


def sm(p="model.embed_tokens.weight", ck="32008, 4096", cur="32000, 4096"):
    return signature_of_line(SM.format(p=p, ck=ck, cur=cur))


def test_the_version_is_derived_from_the_rule_files_and_changes_with_any_of_them(tmp_path):
    rules = version_inputs()
    assert Path(signature_module.__file__).resolve() in rules and {p.suffix for p in rules} == {".py", ".toml"}
    assert len(rules) > 3 and SIGNATURE_VERSION == rules_version(rules)
    assert sm().version == SIGNATURE_VERSION
    copies = []
    for path in rules:
        copies.append(tmp_path / path.name)
        copies[-1].write_bytes(path.read_bytes())
    assert rules_version(copies) == SIGNATURE_VERSION
    copies[0].write_bytes(copies[0].read_bytes() + b"\n")
    assert rules_version(copies) != SIGNATURE_VERSION


def test_a_signature_ref_has_one_length_and_names_the_whole_key():
    short, long_ = signature_ref("KeyError: 'x'"), signature_ref("KeyError: " + "x" * 5000)
    assert len(short) == len(long_) < 40 and short != long_
    assert signature_ref("KeyError: " + "x" * 4999) != long_
    assert sm().ref == signature_ref(sm().key)


@pytest.mark.parametrize(
    "line,template",
    [
        (SM.format(p="model.embed_tokens.weight", ck="151936, 896", cur="0"),
         "size mismatch for <param>: copying a param with shape torch.Size([<n>, <n>]) from checkpoint, the shape in "
         "current model is torch.Size([0])."),
        (SM.format(p="lm_head.weight", ck="0", cur="32000, 4096"),
         "size mismatch for <param>: copying a param with shape torch.Size([0]) from checkpoint, the shape in "
         "current model is torch.Size([<n>, <n>])."),
        ("RuntimeError: Error(s) in loading state_dict for Qwen2ForCausalLM:", "Error(s) in loading state_dict for <model>:"),
        ("_pickle.UnpicklingError: invalid load key, 'v'.", "invalid load key, 'v'."),
        ("RuntimeError: expected scalar type BFloat16 but found Float", "expected scalar type BFloat16 but found Float"),
        ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, CUDA:1 and "
         "cpu!", "Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cpu!"),
        ("/src/aten/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: [56,0,0], thread: [64,0,0] "
         "Assertion `srcIndex < srcSelectDimSize` failed.",
         "<path>/Indexing.cu:<n>: indexSelectLargeIndex: block: [<n>], thread: [<n>] Assertion "
         "`srcIndex < srcSelectDimSize` failed."),
        ("[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, "
         "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600888 milliseconds before timing out.",
         "[E ProcessGroupNCCL.cpp:<n>] [Rank <n>] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=<n>, "
         "OpType=ALLREDUCE, Timeout(ms)=<n>) ran for <n> milliseconds before timing out."),
        ("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
         "CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`"),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
         "79.15 GiB", "CUDA out of memory. Tried to allocate <mem>. GPU <n> has a total capacity of <mem>"),
        ("ValueError: Attempting to unscale FP16 gradients.", "Attempting to unscale FP16 gradients."),
        ("OSError: C:\\Users\\me\\models\\llama\\config.json not found at 0x7f3b2c1d8e50",
         "<path>/config.json not found at <hex>"),
    ],
)
def test_templates(line, template):
    assert signature_of_line(line).template == template


def test_zero_size_side_both_ways():
    cur0 = sm(ck="151936, 896", cur="0")
    ck0 = sm(ck="0", cur="151936, 896")
    assert cur0.facts["mismatch.zero_side"] == "current_model"
    assert ck0.facts["mismatch.zero_side"] == "checkpoint"
    assert cur0.facts["mismatch.relation"] == ck0.facts["mismatch.relation"] == "zero"
    assert any("kept zero size on the current-model side" in s for s in cur0.steps)
    assert any("kept zero size on the checkpoint side" in s for s in ck0.steps)
    score, why = similarity(cur0, ck0)
    assert score < 0.35 and any("CONFLICTS (hard)" in w for w in why)


def test_zero_side_vs_small_delta_pulls_down_hard():
    zero = sm(ck="151936, 896", cur="0")
    delta = sm(ck="32008, 4096", cur="32000, 4096")
    same_zero = sm(p="bert.encoder.layer.0.attention.self.query.weight", ck="768, 768", cur="0")
    s_conflict, _ = similarity(zero, delta)
    s_same, why = similarity(zero, same_zero)
    assert s_conflict < 0.25
    assert s_same > 0.8                       # parameter role is excused when both sides are 0-sized placeholders
    assert any("not compared" in w for w in why)


@pytest.mark.parametrize(
    "ck,cur,relation,factor",
    [
        ("32008, 4096", "32000, 4096", "small_delta", None),     # added tokens
        ("32001, 4096", "32000, 4096", "small_delta", None),
        ("128256, 4096", "16032, 4096", "multiple", "8"),        # a TP shard of an unpadded vocabulary
        ("128256, 8192", "16064, 8192", "multiple", "8"),        # a TP shard of a padded vocabulary (rounded up)
        ("151936, 1024", "75968, 1024", "multiple", "2"),
        ("65536, 1024", "65535, 1024", "multiple", "pad"),       # padded up to a TP multiple
        ("151936, 896", "151665, 896", "multiple", "pad"),
        ("50400, 4096", "50258, 4096", "other", None),
        ("9, 768", "5, 768", "small_delta", None),
        ("4096, 11008", "4096, 5504", "multiple", "2"),
        ("32000, 4096", "32000, 5120", "other", None),
    ],
)
def test_mismatch_relation(ck, cur, relation, factor):
    facts = sm(ck=ck, cur=cur).facts
    assert facts["mismatch.relation"] == relation
    assert facts.get("mismatch.factor") == factor


def test_small_delta_vs_multiple_conflict():
    a, b = sm(ck="32001, 4096", cur="32000, 4096"), sm(ck="65536, 4096", cur="65535, 4096")
    score, why = similarity(a, b)
    assert score < 0.3
    assert any("mismatch.relation CONFLICTS" in w for w in why)


def test_delta_bucket_and_direction():
    f = sm(ck="32005, 2048", cur="32000, 2048").facts
    assert f["mismatch.delta"] == "2-8" and f["mismatch.direction"] == "checkpoint_larger"
    assert f["mismatch.dim"] == "0"
    assert shape_relation([1], [1])["mismatch.relation"] == "other"


@pytest.mark.parametrize(
    "name,role",
    [("model.embed_tokens.weight", "embedding"), ("transformer.wte.weight", "embedding"),
     ("lm_head.weight", "lm_head"), ("base_model.model.lm_head.weight", "lm_head"),
     ("classifier.weight", "classifier"), ("model.layers.0.mlp.up_proj.weight", "other")],
)
def test_param_role(name, role):
    assert sm(p=name).facts["mismatch.param_role"] == role


def test_param_roles_of_several_lines_are_alternatives():
    msg = "Error(s) in loading state_dict for X:\n\t" + SM.format(p="model.embed_tokens.weight", ck="32001, 8",
                                                                   cur="32000, 8") + "\n\t" + SM.format(
        p="lm_head.weight", ck="32001, 8", cur="32000, 8")
    sig = make_signature("RuntimeError", msg)
    assert sig.facts["mismatch.param_role"] == "embedding|lm_head"
    score, _ = similarity(sig, sm(ck="32008, 64", cur="32000, 64"))
    assert score > 0.75


def test_load_key_byte():
    v = signature_of_line("_pickle.UnpicklingError: invalid load key, 'v'.")
    lt = signature_of_line("_pickle.UnpicklingError: invalid load key, '<'.")
    v2 = signature_of_line("UnpicklingError: invalid load key, 'v'.")
    assert v.facts["load_key.byte"] == "v" and lt.facts["load_key.byte"] == "<"
    assert similarity(v, v2)[0] > 0.95
    assert similarity(v, lt)[0] < 0.3


@pytest.mark.parametrize(
    "line,dtypes",
    [
        ("ValueError: Attempting to unscale FP16 gradients.", "fp16"),
        ("ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0",
         "bf16"),
        ("RuntimeError: expected scalar type Half but found Float", "fp16|fp32"),
        ("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'", None),
        ("TypeError: torch.bfloat16 is not supported with dtype float32 inputs", "bf16|fp32"),
    ],
)
def test_dtypes(line, dtypes):
    assert signature_of_line(line).facts.get("dtype.mentioned") == dtypes


def test_dtype_expected_found_and_conflict():
    a = signature_of_line("RuntimeError: expected scalar type Half but found Float")
    assert (a.facts["dtype.expected"], a.facts["dtype.found"]) == ("fp16", "fp32")
    fp16 = signature_of_line("ValueError: Attempting to unscale FP16 gradients.")
    bf16 = signature_of_line("ValueError: Your setup doesn't support bf16/gpu.")
    score, why = similarity(fp16, bf16)
    assert score < 0.2 and any("dtype.mentioned CONFLICTS" in w for w in why)


def test_device_facts():
    a = signature_of_line("RuntimeError: Expected all tensors to be on the same device, but found at least two "
                          "devices, cuda:0 and cpu! (when checking argument for argument index in method "
                          "wrapper_CUDA__index_select)")
    b = signature_of_line("RuntimeError: Expected all tensors to be on the same device, but found at least two "
                          "devices, cpu and cuda:0! (when checking argument for argument mat2 in method "
                          "wrapper_CUDA_bmm)")
    assert a.facts["device.op"] == "index_select" and b.facts["device.op"] == "bmm"
    assert a.facts["device.pair"] == b.facts["device.pair"] == "cpu+cuda"
    assert a.facts["device.order"] == "cuda_first" and b.facts["device.order"] == "cpu_first"
    assert similarity(a, b)[0] < 0.35
    trimmed = signature_of_line("RuntimeError: Expected all tensors to be on the same device, but found at least "
                                "two devices, ...")
    assert similarity(b, trimmed)[0] > 0.7          # a postmortem's trimmed line carries no op: no conflict


def test_cuda_facts():
    a = signature_of_line("/x/Indexing.cu:1292: indexSelectLargeIndex: block: [152,0,0], thread: [95,0,0] "
                          "Assertion `srcIndex < srcSelectDimSize` failed.")
    b = signature_of_line("Assertion `srcIndex < srcSelectDimSize` failed.")
    c = signature_of_line("/x/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] "
                          "Assertion `t >= 0 && t < n_classes` failed.")
    assert a.facts["cuda_assert.kernel"] == "indexSelectLargeIndex"
    assert b.facts["cuda_assert.condition"] == "srcIndex < srcSelectDimSize"
    assert similarity(a, b)[0] > 0.6
    assert similarity(a, c)[0] < 0.3
    d = signature_of_line("CUDA runtime error (59) : device-side assert triggered")
    e = signature_of_line("RuntimeError: CUDA error: device-side assert triggered")
    assert d.facts["cuda.error"] == e.facts["cuda.error"] == "device-side assert triggered"
    f = signature_of_line("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`")
    assert f.facts["cuda.status"] == "CUBLAS_STATUS_NOT_INITIALIZED"


@pytest.mark.parametrize(
    "line,kind",
    [
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB", "cuda"),
        ("RuntimeError: CUDA out of memory. Tried to allocate 1.2 GiB", "cuda"),
        ("RuntimeError: [enforce fail at alloc_cpu.cpp:83] err == 0. DefaultCPUAllocator: can't allocate memory: "
         "you tried to allocate 123 bytes.", "cpu"),
        ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 1) of "
         "binary: /usr/bin/python", "host_killed"),
        ("traceback : Signal 9 (SIGKILL) received by PID 77", "host_killed"),
        ("the job runs out of GPU memory in the backward pass", "cuda"),     # a reporter's words
        ("训练到第 10 步爆显存", "cuda"),
    ],
)
def test_oom_kind(line, kind):
    assert signature_of_line(line).facts["oom.kind"] == kind


def test_nccl_and_exit_facts():
    w = signature_of_line("[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation timeout: "
                          "WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
                          "600888 milliseconds before timing out.")
    assert w.facts["nccl.op"] == "allreduce" and w.facts["nccl.timeout_ms"] == "600000"
    assert w.facts["nccl.error"] == "timeout"
    s = make_signature("torch.distributed.DistBackendError",
                       "NCCL error in: /p/NCCLUtils.hpp:268, unhandled system error (run with NCCL_DEBUG=INFO for "
                       "details), NCCL version 2.21.5\nncclSystemError: System call failed.\nLast error:\n"
                       "Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)")
    assert s.facts["nccl.error"] == "ncclSystemError" and s.facts["nccl.resource"] == "shm"
    assert similarity(w, s)[0] < 0.3
    e = signature_of_line("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0")
    assert e.facts["exitcode"] == "1" and "signal" not in e.facts


def test_name_facts():
    assert signature_of_line("KeyError: 'qwen2'").facts["key.value"] == "qwen2"
    assert signature_of_line("ModuleNotFoundError: No module named 'flash_attn'").facts["import.module"] == "flash_attn"
    imp = signature_of_line("ImportError: /x/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
                            "_ZN2at4_ops15sum_IntList_out4callERKNS_6TensorE")
    assert imp.facts["import.undefined_symbol"] == "torch" and "<symbol>" in imp.template
    assert signature_of_line("RuntimeError: FlashAttention only supports Ampere GPUs or newer.").facts[
        "hw.requirement"] == "ampere"


def test_a_missing_package_said_in_words_is_the_same_fact():
    words = signature_of_line("ValueError: Couldn't instantiate the backend tokenizer. You need to have sentencepiece "
                              "installed to convert a slow tokenizer to a fast one.")
    backend = signature_of_line("ImportError: LlamaTokenizer requires the SentencePiece library but it was not found "
                                "in your environment.")
    proto = signature_of_line("ImportError: LlamaConverter requires the protobuf library but it was not found in your "
                              "environment.")
    assert words.facts["import.module"] == backend.facts["import.module"] == "sentencepiece"
    assert hard_conflicts(words, proto) == ["import.module: report has sentencepiece, entry has protobuf"]


def test_torch_build_tells_a_cpu_wheel_from_an_extension_built_for_another_cuda_torch():
    msg = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
           "PyTorch 2.2.1+cu121 with CUDA 1201 (you have {})")
    cpu, other = signature_of_line(msg.format("2.2.1+cpu")), signature_of_line(msg.format("2.3.0+cu121"))
    assert cpu.facts["torch.build"] == "cpu" and other.facts["torch.build"] == "cuda"
    assert signature_of_line("AssertionError: Torch not compiled with CUDA enabled").facts["torch.build"] == "cpu"
    assert hard_conflicts(cpu, other) and similarity(cpu, other)[0] < SIG_ACCEPT


def test_steps_explain_rules():
    sig = signature_of_line("[rank3]: RuntimeError: x at 0x7ffe12 on rank 3 took 12.5 s, see https://a.b/c")
    joined = " | ".join(sig.steps)
    for word in ("hex addresses", "ranks", "numbers", "URLs"):
        assert word in joined


def test_similarity_type_and_text():
    a = signature_of_line("ValueError: Attempting to unscale FP16 gradients.")
    b = make_signature(None, "Attempting to unscale FP16 gradients")       # quoted in prose, no type
    c = signature_of_line("TypeError: Attempting to unscale FP16 gradients.")
    s_ab, why = similarity(a, b)
    assert s_ab > 0.8 and any("generic" in w for w in why)
    assert similarity(a, c)[0] < s_ab
    assert similarity(a, a)[0] == pytest.approx(1.0, abs=0.01)
    unrelated = signature_of_line("KeyError: 'qwen2'")
    assert similarity(a, unrelated)[0] < 0.2


def test_state_dict_key_lists():
    head = "Error(s) in loading state_dict for Net:\n\t"
    renamed = make_signature("RuntimeError", head + 'Missing key(s) in state_dict: "fc.weight". \n\tUnexpected key(s) in '
                                'state_dict: "module.fc.weight".')
    extra = make_signature("RuntimeError", head + 'Unexpected key(s) in state_dict: "bert.embeddings.position_ids".')
    cut = make_signature("RuntimeError", head + 'Missing key(s) in state_dict: "fc.weight", "fc.bias", ...')
    assert renamed.facts["state_dict.keys"] == "missing+unexpected" and extra.facts["state_dict.keys"] == "unexpected"
    assert "state_dict.keys" not in cut.facts          # the Unexpected list may follow below the cut
    # A bare list line (an entry's error_lines split one message) says nothing about the other list.
    assert "state_dict.keys" not in signature_of_line('Unexpected key(s) in state_dict: "module.fc.weight".').facts
    assert hard_conflicts(extra, renamed) == ["state_dict.keys: report has unexpected, entry has missing+unexpected"]


def test_a_parent_and_a_child_exception_type_are_related():
    # torch 1.x raised RuntimeError for this message, 2.x raises DistNetworkError (a RuntimeError subclass).
    msg = "The server socket has failed to listen on any local network address."
    old, new = signature_of_line(f"RuntimeError: {msg}"), signature_of_line(f"torch.distributed.DistNetworkError: {msg}")
    other = signature_of_line(f"ValueError: {msg}")
    related, why = similarity(old, new)
    assert related > SIG_ACCEPT > similarity(other, new)[0] and any("related types" in w for w in why)
    assert related < similarity(new, new)[0]
    assert related_types("ModuleNotFoundError", "ImportError") and not related_types("KeyError", "ValueError")


def test_every_fact_is_documented():
    lines = [SM.format(p="lm_head.weight", ck="9, 8", cur="5, 8"), "invalid load key, 'v'.",
             "RuntimeError: expected scalar type Half but found Float",
             "x.cu:1: k: block: [0,0,0], thread: [0,0,0] Assertion `a` failed.",
             "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `x`",
             "found at least two devices, cpu and cuda:0! (when checking argument for argument index in method f)",
             "CUDA out of memory. 2.00 GiB is reserved by PyTorch but unallocated",
             "Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=5)",
             "failed (exitcode: -9)", "ncclSystemError: shared memory segment",
             "ImportError: cannot import name 'x' from 'y'", "KeyError: 'a'", "has no attribute 'b'",
             "Error while deserializing header: HeaderTooLarge", "needs Ampere"]
    for line in lines:
        for name in signature_of_line(line).facts:
            assert name in FACTS, name


def test_frames_helpers():
    assert locate_file("/venv/lib/python3.10/site-packages/torch/nn/modules/module.py") == (
        "torch.nn.modules.module", "torch")
    assert locate_file(r"C:\env\Lib\site-packages\peft\tuners\__init__.py") == ("peft.tuners", "peft")
    assert locate_file("/usr/lib/python3.11/json/decoder.py") == ("json.decoder", "stdlib")
    assert locate_file("/workspace/flash-attention/flash_attn/flash_attn_interface.py") == (
        "flash_attn.flash_attn_interface", "flash_attn")
    assert locate_file("/home/me/proj/train.py") == ("train", None)
    assert locate_file("<stdin>") == (None, None)
    frames = [Frame(file="/a/train.py", module="train", function="main"),
              Frame(file="x", module="torch.nn.modules.module", function="_call_impl", library="torch"),
              Frame(file="x", module="torch.nn.modules.module", function="_call_impl", library="torch"),
              Frame(file="x", module="peft.peft_model", function="forward", library="peft")]
    assert reduce_frames(frames) == ["peft.peft_model:forward", "torch.nn.modules.module:_call_impl", "train:main"]
    assert reduce_frames(frames, libraries_only=True) == ["peft.peft_model:forward",
                                                          "torch.nn.modules.module:_call_impl"]


def test_oom_phase_from_the_message_and_from_the_frames():
    assert signature_of_line("反向传播时爆显存").facts["oom.phase"] == "backward"
    assert "oom.phase" not in signature_of_line("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB").facts
    assert "oom.phase" not in signature_of_line("KeyError: 'evaluation_loop'").facts      # no OOM, no phase
    text = ('Traceback (most recent call last):\n'
            '  File "/venv/lib/python3.10/site-packages/transformers/trainer.py", line 2515, in evaluation_loop\n'
            '    preds_host = nested_concat(preds_host, logits, padding_index=-100)\n'
            '  File "/venv/lib/python3.10/site-packages/transformers/trainer_pt_utils.py", line 97, in nested_concat\n'
            '    return torch.cat((tensor1, tensor2), dim=0)\n'
            'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.81 GiB\n')
    sig = signature_of_event(parse_report(text).primary)
    assert sig.facts["oom.phase"] == "evaluation"
    assert any("oom.phase=evaluation from the frames" in s for s in sig.steps)


def test_world_size_one_in_deepspeeds_batch_check_is_another_cause():
    line = ("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
            "gradient_acc_step * world_size {} != {} * {} * {}")
    single = signature_of_line(line.format(1024, 64, 2, 1))
    odd = signature_of_line(line.format(256, 2, 18, 7))
    assert single.facts["batch.world_size"] == "single" and odd.facts["batch.world_size"] == "several"
    assert similarity(single, odd)[0] < SIG_ACCEPT


def test_generation_and_export_literals():
    default = signature_of_line("Input length of input_ids is 31, but `max_length` is set to 20. This can lead to "
                                "unexpected behavior. You should consider increasing `max_new_tokens`.")
    chosen = signature_of_line("Input length of input_ids is 2511, but `max_length` is set to 2048. This can lead to "
                               "unexpected behavior. You should consider increasing `max_new_tokens`.")
    assert default.facts["generate.max_length"] == "default" and chosen.facts["generate.max_length"] == "set"
    assert similarity(default, chosen)[0] < SIG_ACCEPT
    onnx = ("torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::scaled_dot_product_attention' "
            "to ONNX opset version {} is not supported. {}")
    later = signature_of_line(onnx.format(12, "Support for this operator was added in version 14, try exporting "
                                              "with this version."))
    never = signature_of_line(onnx.format(15, "Please feel free to request support or submit a pull request on "
                                              "PyTorch GitHub."))
    assert later.facts["onnx.support"] == "later_opset" and never.facts["onnx.support"] == "none"
    assert similarity(later, never)[0] < SIG_ACCEPT
    padding = signature_of_line("A decoder-only architecture is being used, but right-padding was detected! For "
                                "correct generation results, please set `padding_side='left'` when initializing the "
                                "tokenizer.")
    assert padding.facts["symptom"] == "right_padding"


def test_configuration_checks_that_fail_on_equal_numbers_are_another_cause():
    ds = ("ValueError: Please correct the following DeepSpeed config values that mismatch TrainingArguments values:\n"
          "- ds gradient_accumulation_steps={} vs hf gradient_accumulation_steps={}\n"
          "The easiest method is to set these DeepSpeed config values to 'auto'.")
    typed, differ = (signature_of_event(parse_report(ds.format(a, b)).primary) for a, b in ((8, 8), (4, 8)))
    assert typed.facts["config.values"] == "equal" and differ.facts["config.values"] == "differ"
    assert similarity(typed, differ)[0] < SIG_ACCEPT
    grpo = ("ValueError: The global train batch size ({} x {}) must be evenly divisible by the number of generations "
            "per prompt ({}).")
    assert signature_of_line(grpo.format(1, 1, 1)).facts["batch.divides"] == "yes"
    assert signature_of_line(grpo.format(7, 1, 8)).facts["batch.divides"] == "no"


def test_an_api_error_body_is_compared_by_its_message_not_by_how_the_server_frames_it():
    server = signature_of_line("BadRequestError: Error code: 400 - {'object': 'error', 'message': 'Conversation roles "
                               "must alternate user/assistant/user/assistant/...', 'type': 'invalid_request_error', "
                               "'param': None, 'code': None}")
    client = signature_of_line("openai.BadRequestError: Error code: 400 - {'error': {'message': 'Conversation roles "
                               "must alternate user/assistant/user/assistant/...', 'type': 'BadRequestError', "
                               "'param': None, 'code': 400}")
    assert server.template == client.template == "Conversation roles must alternate <path>/..."
    assert similarity(server, client)[0] == 1.0
    # cut before its `message` key: what precedes the fields is the message
    cut = signature_of_line("alternate user/assistant/user/assistant/...', 'type': 'BadRequestError', 'param': None, "
                            "'code': 400}")
    assert cut.template == "alternate <path>/..." and "BadRequestError" not in cut.template
    # braces that are no error body, and a body with a one-word message, stay as they were
    assert "{" in signature_of_line("KeyError: {'a': 1}").template
    assert signature_of_line('ValueError: {"detail": "x"}').template == '{"detail": "x"}'
    # JSON escapes the quotes inside the message; the message is read without the escapes
    escaped = signature_of_line('{"object":"error","message":"\\"auto\\" tool choice requires '
                                '--enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError",'
                                '"param":null,"code":400}')
    plain = signature_of_line("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': '\"auto\" tool "
                              "choice requires --enable-auto-tool-choice and --tool-call-parser to be set', 'type': "
                              "'BadRequestError', 'param': None, 'code': 400}")
    assert "\\" not in escaped.template and escaped.template == plain.template
    # an app's error record: its `cause` is the message, the title and the data around it frame it
    app = parse_report('{\n  "title": "Failed to load model",\n  "cause": "llama.cpp error: \'error loading model '
                       'architecture: unknown model architecture: \'deepseek2\'\'",\n  "errorData": {\n    "n_ctx": 8192\n'
                       '  }\n}\n')
    assert signature_of_event(app.primary).template == ("llama.cpp error: 'error loading model architecture: unknown "
                                                         "model architecture: 'deepseek2''")


def test_a_name_the_entry_itself_varies_is_read_as_the_entrys():
    from kb.traceback.signature import named_like

    line = signature_of_line("unknown model architecture: 'gemma'")
    sibling = signature_of_line("llama_model_load: error loading model architecture: unknown model architecture: "
                                "'llama4'")
    report = signature_of_line("unknown model architecture: 'granite'")
    read = named_like(report, line, [line, sibling])
    assert read is not None and read.template == line.template and similarity(read, line)[0] >= SIG_ACCEPT
    assert similarity(report, line)[0] < SIG_ACCEPT
    # an entry that names one architecture only does not say the name varies
    assert named_like(report, line, [line]) is None
    # nor does a sibling about something else, or a report that differs in two names
    other = signature_of_line("RuntimeError: CUDA error: out of memory in 'llama4'")
    assert named_like(report, line, [line, other]) is None
    two = signature_of_line("unknown model 'x1' architecture: 'granite'")
    assert named_like(two, line, [line, sibling]) is None


def test_the_http_status_tells_an_unauthenticated_request_from_a_forbidden_one():
    unauth = signature_of_line("huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-68a;b9)")
    forbidden = signature_of_line("403 Client Error. (Request ID: Root=1-6824e511-0a1d;85e8)")
    again = signature_of_line("GatedRepoError: 401 Client Error. (Request ID: Root=1-6800c1a8-6951;b91c)")
    assert (unauth.facts["http.status"], forbidden.facts["http.status"]) == ("401", "403")
    assert hard_conflicts(forbidden, unauth) and not hard_conflicts(again, unauth)
    assert similarity(forbidden, unauth)[0] < similarity(again, unauth)[0]
    assert signature_of_line("RateLimitError: Error code: 429 - {'error': 'x'}").facts["http.status"] == "429"
    assert "http.status" not in signature_of_line("ValueError: shape 403 mismatch").facts


def test_an_error_raised_in_a_pydantic_validator_is_that_error():
    """pydantic renders a ValueError raised in a validator as `Value error, <message> [type=value_error, ...]` under
    its ValidationError header: the same failure as the plain `ValueError: <message>` another release raises."""
    plain = signature_of_line("ValueError: Requested block size 96 is larger than the cache page of 64 tokens")
    wrapped = make_signature(
        "pydantic_core._pydantic_core.ValidationError",
        "1 validation error for CacheConfig\n  Value error, Requested block size 128 is larger than the cache page of "
        "64 tokens [type=value_error, input_value=ArgsKwargs((), {'block_size': 128}), input_type=ArgsKwargs]\n"
        "    For further information visit https://errors.pydantic.dev/2.11/v/value_error")
    bare = signature_of_line("Value error, Requested block size 96 is larger than the cache page of 64 tokens")
    assert wrapped.exc_type == bare.exc_type == "ValueError"
    assert wrapped.template == bare.template == plain.template
    assert any("pydantic validator" in s for s in wrapped.steps)
    # an assert in a validator; several errors stay one ValidationError (which of them failed is not one thing)
    assert signature_of_line("Assertion failed, world size 3 does not divide 8 heads").exc_type == "AssertionError"
    many = make_signature("ValidationError", "2 validation errors for Settings\nport\n  Value error, port is not free")
    assert many.exc_type == "ValidationError"
    assert signature_of_line("ValueError: Value error, ok").exc_type == "ValueError"


def test_the_interpreters_guess_at_the_name_meant_is_not_part_of_the_message():
    a = signature_of_line("AttributeError: 'PackedTokenizer' object has no attribute 'vocab'. Did you mean: 'vocab_'?")
    b = signature_of_line("AttributeError: 'PackedTokenizer' object has no attribute 'vocab'")
    assert a.template == b.template and similarity(a, b)[0] > 0.99
    assert signature_of_line("NameError: name 'np' is not defined. Did you mean: 'nn'?").template == \
        "name 'np' is not defined"
    assert "Did you mean" in signature_of_line("RuntimeError: Did you mean: 'x'?").template   # nothing else said
