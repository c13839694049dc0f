#!/usr/bin/env python3
"""A new user's first minutes: a tiny model built with mlx-lm's own model code (random weights)
runs its first forward pass on MLX's Metal backend over mslsim, as issue 37 measured it (2 layers,
64 wide). Prints the first and the second forward pass's time, and checks the logits against
MLX's CPU backend (an independent reference).

  PYTHONPATH=MLX_SRC/python python3 first_forward.py MLX_LM_CHECKOUT [--model llama|gpt2] [--tokens N]

The compile cache is whatever MSLSIM_CACHE_DIR says: an empty directory measures a cold start.
Exit 0 when the logits match, 1 when they do not."""
import argparse
import os
import sys
import time
import types


def import_models(checkout):
    # mlx_lm's package __init__ imports its generation and conversion code (transformers, hub);
    # the models need none of it.
    package = types.ModuleType("mlx_lm")
    package.__path__ = [os.path.join(checkout, "mlx_lm")]
    sys.modules["mlx_lm"] = package
    from mlx_lm.models import gpt2, llama
    return {"llama": llama, "gpt2": gpt2}


def build(models, name):
    if name == "llama":
        args = models["llama"].ModelArgs(model_type="llama", hidden_size=64, num_hidden_layers=2,
                                         intermediate_size=128, num_attention_heads=4, rms_norm_eps=1e-5,
                                         vocab_size=256, num_key_value_heads=2)
        return models["llama"].Model(args)
    args = models["gpt2"].ModelArgs(model_type="gpt2", n_ctx=64, n_embd=64, n_head=4, n_layer=2, n_positions=64,
                                    layer_norm_epsilon=1e-5, vocab_size=256)
    return models["gpt2"].Model(args)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mlx_lm")
    p.add_argument("--model", choices=("llama", "gpt2"), default="llama")
    p.add_argument("--tokens", type=int, default=8)
    args = p.parse_args()

    import mlx.core as mx
    import numpy as np
    models = import_models(args.mlx_lm)
    mx.random.seed(0)
    model = build(models, args.model)
    mx.eval(model.parameters())
    tokens = mx.array([[(7 * i + 3) % 256 for i in range(args.tokens)]])

    times = []
    for _ in range(2):
        start = time.perf_counter()
        logits = model(tokens)
        mx.eval(logits)
        times.append(time.perf_counter() - start)
    with mx.stream(mx.cpu):
        reference = model(tokens)
        mx.eval(reference)
    same = np.allclose(np.array(logits), np.array(reference), rtol=1e-4, atol=1e-4)
    print(f"{args.model}: first forward {times[0]:.2f} s, second {times[1]:.3f} s, "
          f"logits {'match' if same else 'DIFFER from'} MLX's CPU backend")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
