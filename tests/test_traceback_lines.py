"""Line classification and error-line extraction (kb.traceback.lines)."""
import time

import pytest

import kb.traceback.lines as L
from kb.traceback.lines import classify_line, clean_line, find_error_lines
from kb.traceback.signature import signature_of_line

CLASSIFY_CASES = [
    ("RuntimeError: shape '[4, 2]' is invalid for input of size 6", "exception"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "exception"),
    ("_pickle.UnpicklingError: invalid load key, 'x'.", "exception"),
    ("KeyError: 'llama4'", "exception"),
    ("AssertionError", "exception"),
    ("Exception: data did not match any variant of untagged enum ModelWrapper", "exception"),
    ("Error(s) in loading state_dict for GPT2LMHeadModel:", "exception"),
    ("\tsize mismatch for transformer.wte.weight: copying a param with shape torch.Size([50260, 768]) from "
     "checkpoint, the shape in current model is torch.Size([50257, 768]).", "exception"),
    ("Missing key(s) in state_dict: \"lm_head.weight\".", "exception"),
    ("RuntimeError: CUDA error: device-side assert triggered", "cuda"),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`", "cuda"),
    ("/opt/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
     "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.", "cuda"),
    ("torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, internal error", "nccl"),
    ("ncclInternalError: Internal check failed.", "nccl"),
    ("node7:1234:1290 [3] NCCL WARN Net : Connection closed by remote peer", "nccl"),
    ("[E ProcessGroupNCCL.cpp:828] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88, "
     "OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.", "nccl"),
    ("terminate called after throwing an instance of 'c10::Error'", "cpp"),
    ("what():  CUDA driver error: invalid argument", "cuda"),
    ("Exception raised from alloc at ../c10/cuda/CUDACachingAllocator.cpp:1089 (most recent call first):", "frame"),   # the header of a c10 backtrace
    ("Segmentation fault (core dumped)", "cpp"),
    ("/usr/lib/python3/site-packages/torch/utils/checkpoint.py:31: UserWarning: None of the inputs have "
     "requires_grad=True. Gradients will be None", "warning"),  # warnings.warn format: path:line: Category: msg
    ("UserWarning: None of the inputs have requires_grad=True. Gradients will be None", "warning"),
    ("model.layers.3.mlp.experts.0.w2 not in state_dict, loading shard-00001.safetensors", "warning"),
    ("WARNING: tokenizer has no pad token, using eos", "warning"),
    ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError:", "launcher"),
    ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 77) of "
     "binary: /usr/bin/python", "launcher"),
    ("Signal 9 (SIGKILL) received by PID 4242", "launcher"),
    ("Killed", "launcher"),
    ('  File "/srv/train.py", line 12, in <module>', "frame"),
    ("Traceback (most recent call last):", "frame"),
    ("During handling of the above exception, another exception occurred:", "frame"),
    ("ERROR: Could not build wheels for flash-attn", "log"),
    ("expected (4096, 512), got (8192, 512)", "log"),
    # an error record printed as JSON: a message key and a sign that it is an error
    ('{"object":"error","message":"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser '
     'to be set","type":"BadRequestError","param":null,"code":400}', "log"),
    ('{"error":{"message":"The model does not exist.","type":"NotFoundError","code":404}}', "log"),
    ('{"title": "Failed to load model", "cause": "llama.cpp error: unknown model architecture"}', "log"),
    ('{"loss": 0.51, "message": "step done", "code": 200}', None),
    ('{"name": "tokenizer", "message": "saved to the output folder"}', None),
    ("    raise RuntimeError(", None),
    ("                   ~~~~~~~~~^^^^^^^^^", None),
    ("For debugging consider passing CUDA_LAUNCH_BLOCKING=1.", None),
    ("I keep getting a CUDA error when the training starts, any idea what is wrong with this setup?", None),
    ("训练的时候报错了，显存不够，请问怎么解决", None),
    ("", None),
]


@pytest.mark.parametrize("line,kind", CLASSIFY_CASES, ids=[f"c{i:02d}" for i in range(len(CLASSIFY_CASES))])
def test_classify_line(line, kind):
    assert classify_line(line) == kind


@pytest.mark.parametrize(
    "raw,clean",
    [
        ("[rank3]: RuntimeError: boom", "RuntimeError: boom"),
        ("[default0]:[rank0]:   File \"a.py\", line 1, in f", 'File "a.py", line 1, in f'),
        ("\x1b[31mValueError: red\x1b[0m", "ValueError: red"),
        ("2024-05-01 12:03:04,512 - ValueError: x", "ValueError: x"),
        ("[2024-05-01T12:03:04.5Z] KeyError: 'a'", "KeyError: 'a'"),
        ("[1,0]<stderr>:OSError: disk", "OSError: disk"),
        ("worker-3: IndexError: y", "IndexError: y"),
        ("> `RuntimeError`: Expected all tensors", "RuntimeError: Expected all tensors"),
        # a compose service without a replica number, then FastChat's pipe-separated time, level and stream
        ("api-server | 2025-01-12 08:15:40 | ERROR | stderr |     raise KeyError(name)", "raise KeyError(name)"),
        ("2025-01-12 08:15:40.123 | ERROR    | app.main:run:42 - KeyError: 'x'", "KeyError: 'x'"),
        ("Qwen-7B | 32k | fits on one A100", "Qwen-7B | 32k | fits on one A100"),
        ("  0%|          | 0/10 [00:00<?, ?it/s]../Indexing.cu:1: f: block: [1,0,0], thread: [2,0,0] Assertion "
         "`a < b` failed.", "../Indexing.cu:1: f: block: [1,0,0], thread: [2,0,0] Assertion `a < b` failed."),
    ],
)
def test_clean_line(raw, clean):
    assert clean_line(raw) == clean


def test_prefixed_line_classifies():
    assert classify_line("[rank3]:RuntimeError: Expected all tensors to be on the same device") == "exception"
    assert classify_line("\x1b[1;31m[default1]:torch.OutOfMemoryError: CUDA out of memory.\x1b[0m") == "exception"


def test_find_error_lines_in_chinese_postmortem():
    text = (
        "## 问题现象\n"
        "第一个错误表现为AttributeError: module 'x.utils' has no attribute 'logging'，这是缺少 import 导致的。\n"
        "加载时报错如下：\n"
        "```\n"
        "RuntimeError: Error(s) in loading state_dict for MistralForCausalLM:\n"
        "\tsize mismatch for lm_head.weight: copying a param with shape torch.Size([32002, 4096]) from checkpoint,"
        " the shape in current model is torch.Size([32000, 4096]).\n"
        "```\n"
        "在 `.bin` 权重上则表现为 `_pickle.UnpicklingError: invalid load key, 'v'.`，并且提到 `KeyError` 时不算。\n"
        "用户的原话：训练时报错：ValueError: Attempting to unscale FP16 gradients.\n"
    )
    lines = find_error_lines(text)
    assert lines == [
        "RuntimeError: Error(s) in loading state_dict for MistralForCausalLM:",
        "size mismatch for lm_head.weight: copying a param with shape torch.Size([32002, 4096]) from checkpoint, the "
        "shape in current model is torch.Size([32000, 4096]).",
        "_pickle.UnpicklingError: invalid load key, 'v'.",
        "ValueError: Attempting to unscale FP16 gradients.",
    ]
    assert find_error_lines(text, inline=False)[-2:] == lines[1:2] + lines[-1:]


def test_find_error_lines_dedupes_ranks_and_threads():
    text = "\n".join(
        [f"[rank{r}]: RuntimeError: NCCL communicator was aborted on rank {r}." for r in range(4)]
        + [f"Indexing.cu:99: k: block: [7,0,0], thread: [{t},0,0] Assertion `idx < n` failed." for t in range(32)]
        + ["[default0]:x 10%|# | 1/10 [00:01<00:09, 1.0it/s][default1]:ValueError: glued after a progress bar"]
    )
    lines = find_error_lines(text)
    assert lines == [
        "RuntimeError: NCCL communicator was aborted on rank 0.",
        "Indexing.cu:99: k: block: [7,0,0], thread: [0,0,0] Assertion `idx < n` failed.",
        "ValueError: glued after a progress bar",
    ]


def test_find_error_lines_skips_frames_code_and_prose():
    text = (
        "I tried to run it and got an error, could you help me with this?\n"
        "Traceback (most recent call last):\n"
        '  File "t.py", line 3, in <module>\n'
        "    raise ValueError('bad')\n"
        "ValueError: bad\n"
    )
    assert find_error_lines(text) == ["ValueError: bad"]


def test_find_error_lines_is_fast_on_junk():
    junk = ("x" * 5000 + "`" + "Error: " * 300 + "\n") * 400 + "\x00\xff" * 100000
    start = time.perf_counter()
    find_error_lines(junk)
    # A guard against catastrophic backtracking (quadratic or worse on these 2 MB would take hours), not a speed
    # figure: about 1.5 s on an idle machine, and 5 s was exceeded on a loaded one.
    assert time.perf_counter() - start < 60
    assert find_error_lines("") == []


def test_rank_copies_that_differ_in_timestamps_and_counters_are_one_line():
    lines = [
        "[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 600061 milliseconds before timing out.",
        "[rank4]:[E1206 18:44:12.755262105 ProcessGroupNCCL.cpp:607] [Rank 4] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE) ran for 600099 milliseconds before timing out.",
    ]
    got = find_error_lines("\n".join(lines))
    assert len(got) == 1 and "600061" in got[0]
    # without a rank or process, lines that differ in a number are different lines
    assert len(find_error_lines("ValueError: expected 3 got 4\nValueError: expected 3 got 5")) == 2


def test_a_dynamic_loader_line_without_a_prefix_is_an_error_line():
    text = ("$ ldd -r _C.abi3.so | grep undefined\n"
            "\tundefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationE\t(/tmp/vllm/_C.abi3.so)\n")
    assert find_error_lines(text) == ["undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationE\t(/tmp/vllm/_C.abi3.so)"]


@pytest.mark.parametrize("line, said", [
    ("Failed to open the NVML library: driver not loaded", True),
    ("wandb: ERROR run initialisation failed (timed out)", True),
    ("    timeout: Optional[timedelta] = None,", False),         # a parameter with its type and default
    ("03/02 10:11:12 - mylib - WARNING - Can not find vocab.json, building it may take a while", False),
    ("[INFO] could not find a cached engine, building a new one", False),
])
def test_output_failure_is_a_message_not_code_or_a_lower_level_record(line, said):
    assert (L.output_failure(line) is not None) is said


def test_a_chinese_sentence_embeds_a_header_up_to_where_the_chinese_resumes():
    got = L.embedded_errors("训练到一半出现RuntimeError: CUDA error: an illegal memory access was encountered的报错，怎么办")
    assert got == ["RuntimeError: CUDA error: an illegal memory access was encountered"]
    assert L.embedded_errors("RuntimeError: no Chinese here at all") == []


def test_bold_spans_are_marked_and_an_unclosed_bold_is_not():
    spans = L.marked_spans("got **KeyError: 'x'** and `ValueError: y` then **unclosed")
    assert ("**", "got ", "KeyError: 'x'") in spans
    assert ("`", "got **KeyError: 'x'** and ", "ValueError: y") in spans
    assert len(spans) == 2


@pytest.mark.parametrize("line,command", [
    ("bash: llamafactory-cli: command not found", "llamafactory-cli"),
    ("/bin/sh: 1: nvcc: not found", "nvcc"),
    ("bash: line 1: /usr/local/cuda/bin/nvcc: No such file or directory", None),   # another failure: a path
    ("zsh: command not found: torchrun", "torchrun"),
    ("deepspeed: command not found", "deepspeed"),
    ("'llamafactory-cli' is not recognized as an internal or external command,", "llamafactory-cli"),
    ("'swift' 不是内部或外部命令，也不是可运行的程序", "swift"),
    ("xtuner : The term 'xtuner' is not recognized as the name of a cmdlet, function, script file, or operable "
     "program.", "xtuner"),
    ("llamafactory-cli : 无法将“llamafactory-cli”项识别为 cmdlet、函数、脚本文件或可运行程序的名称。", "llamafactory-cli"),
    ("I ran it and the command not found error came back", None),
])
def test_a_shell_that_cannot_find_the_command_is_an_error_line_naming_it(line, command):
    """Each shell says it in its own words; they are one failure, and the command is the fact that tells them apart
    (kb.traceback.facts `command.missing`)."""
    assert L.missing_command(line) == command
    if command:
        assert classify_line(line) == "log"
        assert signature_of_line(line).facts["command.missing"] == command


def test_a_components_warning_is_a_warning_line():
    from kb.traceback.lines import locate_error

    line = "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths..."
    assert locate_error(line) == ("warning", line)
    # a sentence that merely starts with a capital word and a colon is not one
    assert locate_error("Note: warning signs appeared after the upgrade to the new driver version") is None


def test_a_bare_exception_header_inside_a_chinese_sentence_is_its_error():
    from kb.traceback.lines import embedded_errors

    line = "训练时报错。Failed to load sample 12. Exception: height:29 and width:27 must be larger than factor:28。怎么办"
    assert embedded_errors(line) == ["Exception: height:29 and width:27 must be larger than factor:28"]
    # a sentence that only names the word stays prose
    assert embedded_errors("这个Exception出现了很多次，不知道为什么") == []


@pytest.mark.parametrize("line", [
    "csrc/flash_api.cpp:12:10: fatal error: cuda.h: No such file or directory",
    "/tmp/x/ops.cu:5:3: error: identifier \"__hmax\" is undefined",
    "gcc: fatal error: cannot read spec file 'libgomp.spec': No such file or directory",
    "gcc: 致命错误：cannot read spec file ‘libgomp.spec’: No such file or directory",
    "cc1plus: 致命错误：Python.h：没有那个文件或目录",
    "nvcc fatal   : Unsupported gpu architecture 'compute_89'",
    "/usr/bin/ld: cannot find -lcuda",
    "C:/mingw/bin/ld.exe: cannot find -lpthread",
])
def test_compiler_and_linker_diagnostics_are_error_lines(line):
    from kb.traceback.lines import classify_line

    assert classify_line(line) == "cpp"


def test_sentences_about_compilers_are_not_diagnostics():
    from kb.traceback.lines import classify_line

    for line in ["Note: gcc: the error went away after upgrading", "we build with gcc 11 and nvcc 12.1 here"]:
        assert classify_line(line) is None, line


def test_a_clock_time_glued_to_an_exception_is_a_prefix_but_not_in_a_sentence():
    rest, _, stamped, _ = L.strip_prefixes("14:07ValueError: The checkpoint you are trying to load has model type")
    assert rest.startswith("ValueError: The checkpoint") and stamped
    assert L.strip_prefixes("09:15:02torch.OutOfMemoryError: CUDA out of memory.")[0].startswith("torch.OutOfMemory")
    for kept in ("12:30 is when it failed", "3:1 ratio of Error: none", "14:07 loading shards"):
        assert L.strip_prefixes(kept)[0] == kept


def test_the_program_name_argparse_puts_before_its_error_is_a_prefix():
    rest, *_ = L.strip_prefixes("text_generation_tp.py: error: unrecognized arguments: --local_rank=3")
    assert rest == "error: unrecognized arguments: --local_rank=3"
    assert L.strip_prefixes("deepspeed: error: the following arguments are required: user_script")[0].startswith("error:")
    # an exception type is no program name
    assert L.strip_prefixes("RuntimeError: error: x")[0] == "RuntimeError: error: x"
    assert find_error_lines("usage: train.py [-h] [--lr LR]\ntrain.py: error: unrecognized arguments: --local_rank=0\n") \
        == ["error: unrecognized arguments: --local_rank=0"]


def test_a_bare_exception_header_takes_the_message_printed_below_it():
    text = ("Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    import bitsandbytes\n"
            "RuntimeError:\n        CUDA Setup failed despite GPU being available. Please run the following\n")
    assert find_error_lines(text) == ["RuntimeError: CUDA Setup failed despite GPU being available. Please run the "
                                      "following"]
    # a header followed by a frame or another error line keeps no continuation
    assert find_error_lines("KeyError:\n  File \"x.py\", line 2, in f\n") == ["KeyError:"]
    assert find_error_lines("RuntimeError:\nValueError: bad value\n") == ["RuntimeError:", "ValueError: bad value"]


def test_a_one_word_label_before_a_known_message_is_dropped():
    line = ("error：size mismatch for decoder.blocks.3.fc1.weight: copying a param with shape torch.Size([2048, 512]) "
            "from checkpoint, the shape in current model is torch.Size([512, 2048]).")
    assert find_error_lines(line) == [line[len("error："):]]
    assert find_error_lines("报错: CUDA error: an illegal memory access was encountered") == [
        "CUDA error: an illegal memory access was encountered"]
    # a label before the writer's own words, or before a plain log line, is no error line
    assert find_error_lines("Cause: the tokenizer files were from an older release") == []
    assert find_error_lines("Note: loss went to nan after step 300 of the run") == []


def test_a_loader_message_quoted_inline_is_an_error_line():
    msg = "libnccl.so.2: cannot open shared object file: No such file or directory"
    assert msg in " ".join(find_error_lines(f"The trainer stops at start with `{msg}`, although conda lists nccl."))
    # a log line in inline code that says no failure is not one
    assert find_error_lines("The server logs `INFO: Started server process [1234] on port 8000` at start.") == []


def test_a_traceback_in_pipe_separated_log_records_keeps_its_frames():
    from kb.traceback.parse import parse_report

    text = "\n".join(f"api | 2025-01-12 08:15:40 | ERROR | stderr | {line}" for line in [
        "Traceback (most recent call last):",
        '  File "/app/serve.py", line 88, in handle',
        "    cfg = CONFIGS[name]",
        "KeyError: 'mixtral-8x22b'"])
    primary = parse_report(text).primary
    assert primary.type == "KeyError" and primary.message == "'mixtral-8x22b'"
    assert [f.function for f in primary.frames] == ["handle"]


def test_ray_names_the_error_it_relays_after_its_own_type():
    line = "ray.exceptions.RayTaskError(KeyError): ray::Trainer.fit() (pid=4121, ip=10.0.3.7)"
    assert L.exception_head(line) == ("ray.exceptions.RayTaskError", "ray::Trainer.fit() (pid=4121, ip=10.0.3.7)")
    assert classify_line(line) == "exception"
    assert L.exception_head("print(x): y") is None          # a call is no type


def test_an_ipython_traceback_gives_its_exception_not_the_source_line_it_points_at():
    text = ("File ~/proj/net.py:42, in Net.forward(self, x)\n"
            "     41     h = self.body(x)\n"
            "---> 42     raise ValueError(f\"bad shape {h.shape}\")\n"
            "\n"
            "ValueError: bad shape torch.Size([4, 10])\n")
    assert find_error_lines(text) == ["ValueError: bad shape torch.Size([4, 10])"]
    assert classify_line("---> 42     raise ValueError(f\"bad shape {h.shape}\")") == "frame"
    assert classify_line("File ~/proj/net.py:42, in Net.forward(self, x)") == "frame"


def test_the_line_that_ends_a_traceback_is_an_error_line_whatever_its_type_is_called():
    text = ("Traceback (most recent call last):\n"
            '  File "train.py", line 9, in <module>\n'
            "    model = torch.compile(model)(batch)\n"
            "torch._dynamo.exc.Unsupported: call_method UserDefinedObjectVariable(Sampler) draw\n")
    assert find_error_lines(text) == ["torch._dynamo.exc.Unsupported: call_method UserDefinedObjectVariable(Sampler) "
                                      "draw"]
    # outside a traceback, the same shape is a writer's label or a setting, not an error
    assert find_error_lines("Sampler.Config: draw three times per step\nNote: this is expected") == []


def test_llama_cpp_error_records_are_error_lines_and_its_info_records_are_not():
    text = ("0.00.000.512 I build: 4521 (e2a4f1c) with cc (GCC) 13.2\n"
            "0.01.002.310 E llama_model_load: error loading model: missing tensor 'blk.0.attn_q.weight'\n")
    assert find_error_lines(text) == ["0.01.002.310 E llama_model_load: error loading model: missing tensor "
                                      "'blk.0.attn_q.weight'"]


def test_pips_note_under_a_failed_build_is_no_error_line():
    text = ("error: subprocess-exited-with-error\n"
            "note: This error originates from a subprocess, and is likely not a problem with pip.\n")
    assert find_error_lines(text) == ["error: subprocess-exited-with-error"]


@pytest.mark.parametrize("line", [
    "GGML_ASSERT: /build/ggml/src/ggml-quants.c:4120: n % QK_K == 0",
    "/src/ggml/ggml-backend.c:512: GGML_ASSERT(buf != NULL && \"tensor buffer not set\") failed",
])
def test_llama_cpps_assert_is_an_error_line_in_either_wording(line):
    assert find_error_lines("loading the model\n" + line + "\nAborted\n")[0] == line


def test_a_ggml_assert_in_c_source_is_no_error_line():
    assert find_error_lines("static void f(int n) {\n    GGML_ASSERT(n > 0);\n}\n") == []


@pytest.mark.parametrize("line", [
    "llama_model_load: error loading model: unknown model architecture: 'mystery'",
    "error loading model: missing tensor 'output_norm.weight'",
    "llama.cpp error: 'error loading model hyperparameters: key not found in model'",
    "llama_load_model_from_file: failed to load model",
])
def test_llama_cpps_loader_failures_are_error_lines(line):
    assert find_error_lines("loading the GGUF file\n" + line + "\n") == [line]


def test_a_sentence_about_an_error_loading_a_model_is_no_error_line():
    assert find_error_lines("I got an error loading model weights yesterday, any idea?") == []


def test_a_level_before_a_bracketed_source_file_is_a_log_prefix():
    for line in ("ERROR [engine.py] RuntimeError: worker died while loading shard 3",
                 "WARNING  [scheduler.py:88] RuntimeError: worker died while loading shard 3",
                 "[engine.py:412] RuntimeError: worker died while loading shard 3"):
        assert clean_line(line) == "RuntimeError: worker died while loading shard 3", line
    # a bracketed file with neither a level before it nor a line number is not taken for a prefix
    assert clean_line("[engine.py] RuntimeError: worker died").startswith("[engine.py]")


def test_a_quoted_line_that_ends_a_traceback_is_an_error_line():
    text = ("The job died in the reader: `datasets.builder.DatasetGenerationError: An error occurred while "
            "generating the dataset` and before that `pyarrow.lib.ArrowInvalid: Column 2 named label expected length 8 but "
            "got length 5`."
            " We set `config.Note: use the v2 loader` afterwards.")
    found = find_error_lines(text)
    assert "pyarrow.lib.ArrowInvalid: Column 2 named label expected length 8 but got length 5" in found
    assert not any(f.startswith("config.Note") for f in found)
