"""Parameters left on the meta device after a low-memory load; `.to()` then cannot copy them.

The model is built the way `low_cpu_mem_usage=True` / `init_empty_weights` build it: on the `meta` device, shapes
only. The checkpoint's tensors are assigned in (`load_state_dict(assign=True)`), but the checkpoint names the
projector `mm_projector.*` while the model calls it `multi_modal_projector.*`, so those parameters keep no data.
Moving the model then fails in torch with "Cannot copy out of meta tensor; no data!".

--fix builds the model fully on CPU (`low_cpu_mem_usage=False`), loads the same checkpoint, and moves it: no tensor
may be left on meta, and every tensor the checkpoint has must equal the checkpoint's.
"""
import argparse

import torch
import torch.nn as nn

HIDDEN = 32


class TinyLlava(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_tower = nn.Linear(HIDDEN, HIDDEN)
        self.multi_modal_projector = nn.Linear(HIDDEN, HIDDEN)
        self.language_model = nn.Linear(HIDDEN, HIDDEN)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="build on CPU (low_cpu_mem_usage=False)")
    fix = parser.parse_args().fix

    torch.manual_seed(0)
    saved = TinyLlava().state_dict()
    checkpoint = {k.replace("multi_modal_projector", "mm_projector"): v for k, v in saved.items()}
    if fix:
        model = TinyLlava()
        result = model.load_state_dict(checkpoint, strict=False)
    else:
        with torch.device("meta"):
            model = TinyLlava()
        result = model.load_state_dict(checkpoint, strict=False, assign=True)
    print(f"missing keys: {result.missing_keys}; unexpected keys: {result.unexpected_keys}", flush=True)
    model = model.to("cpu")                      # raises while any tensor is still on meta
    left = [n for n, p in model.named_parameters() if p.is_meta]
    state = model.state_dict()
    shared = [k for k in checkpoint if k in state]
    differ = [k for k in shared if not torch.equal(state[k], checkpoint[k])]
    if left or differ:
        raise SystemExit(f"on meta: {left}; differ from the checkpoint: {differ}")
    print(f"repro-check: passed: built on CPU the model moves; no tensor on meta, the {len(shared)} tensors the "
          "checkpoint names equal it, the renamed projector keeps its initialisation", flush=True)


if __name__ == "__main__":
    main()
