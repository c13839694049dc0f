#!/usr/bin/env python3
"""Whole MLX programs on MLX's Metal backend over mslsim, each checked against MLX's CPU backend:
mlx-lm's language models of several families (tiny configurations, random weights) in float32,
float16 and 4 bits, a forward pass and greedy decoding with a KV cache, and one training step of a
small network with an optimizer.

  PYTHONPATH=MLX_SRC/python python3 programs.py MLX_LM_CHECKOUT [--modes default,none] [--only NAME]
      [--tokens N] [--timeout S] [--markdown FILE]

Each program runs in a process of its own (a failure of one does not stop the others), on the GPU
device and again on the CPU device, with MSLSIM_METAL_CHECKS for the mode: `default` is the default
checks with scripts/mlx-on-linux/mlx-bugs.supp (MLX's known bugs set aside, any other finding
fails), `none` no checks. The compile cache is whatever MSLSIM_CACHE_DIR says. Prints one table
row per program, dtype and mode: ok or differs (with the largest difference relative to the
largest value, or the first differing token), or failed (with the error's first line). Exit 0 when every row is ok."""
import argparse
import json
import os
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ("llama", "gpt2", "mixtral", "mamba")
DTYPES = ("float32", "float16", "4bit")
# GPU against CPU: both compute in the dtype, in different orders.
TOLERANCE = {"float32": 1e-4, "float16": 3e-2, "4bit": 1e-3}


# ------------------------------------------------------------------------------------------------
# In the child process: one program


def import_models(checkout):
    # mlx_lm's package __init__ imports its generation and conversion code (transformers, hub);
    # the models need none of it.
    package = types.ModuleType("mlx_lm")
    package.__path__ = [os.path.join(checkout, "mlx_lm")]
    sys.modules["mlx_lm"] = package
    import importlib
    return {name: importlib.import_module("mlx_lm.models." + name) for name in MODELS + ("cache",)}


def build(models, name):
    if name == "llama":  # dense, RMSNorm
        m = models["llama"]
        return m.Model(m.ModelArgs(model_type="llama", hidden_size=64, num_hidden_layers=2, intermediate_size=128,
                                   num_attention_heads=4, rms_norm_eps=1e-5, vocab_size=256, num_key_value_heads=2))
    if name == "gpt2":  # dense, LayerNorm
        m = models["gpt2"]
        return m.Model(m.ModelArgs(model_type="gpt2", n_ctx=64, n_embd=64, n_head=4, n_layer=2, n_positions=64,
                                   layer_norm_epsilon=1e-5, vocab_size=256))
    if name == "mixtral":  # mixture of experts
        m = models["mixtral"]
        return m.Model(m.ModelArgs(model_type="mixtral", vocab_size=256, hidden_size=64, intermediate_size=128,
                                   num_hidden_layers=2, num_attention_heads=4, num_experts_per_tok=2,
                                   num_key_value_heads=2, num_local_experts=4))
    m = models["mamba"]  # state-space
    return m.Model(m.ModelArgs(model_type="mamba", vocab_size=256, hidden_size=64, intermediate_size=128,
                               state_size=16, num_hidden_layers=2, conv_kernel=4, use_bias=False,
                               use_conv_bias=True, time_step_rank=4))


def close(mx, np, gpu, cpu, tol):
    g, c = np.array(gpu.astype(mx.float32)), np.array(cpu.astype(mx.float32))
    scale = max(1.0, float(np.abs(c).max()))
    worst = float(np.abs(g - c).max()) / scale
    return worst <= tol, worst


def run_language_model(args):
    import mlx.core as mx
    import mlx.nn as nn
    import numpy as np
    models = import_models(args.mlx_lm)
    mx.random.seed(0)
    model = build(models, args.program)
    if args.dtype == "float16":
        model.set_dtype(mx.float16)
    elif args.dtype == "4bit":
        # The layers whose rows have whole groups of 64 (not mamba's 4-wide convolution).
        nn.quantize(model, group_size=64, bits=4,
                    class_predicate=lambda _, m: hasattr(m, "to_quantized") and m.weight.shape[-1] % 64 == 0)
    mx.eval(model.parameters())
    prompt = mx.array([[(7 * i + 3) % 256 for i in range(8)]])
    result = {}

    def forward(stream):
        with mx.stream(stream):
            logits = model(prompt)
            mx.eval(logits)
        return logits

    start = time.perf_counter()
    gpu = forward(mx.gpu)
    result["forward_s"] = time.perf_counter() - start
    ok, worst = close(mx, np, gpu, forward(mx.cpu), TOLERANCE[args.dtype])
    result["forward"] = ("ok (%.1g)" if ok else "differs (%.2g)") % worst

    def decode(stream):
        with mx.stream(stream):
            cache = models["cache"].make_prompt_cache(model)
            logits = model(prompt, cache=cache)
            tokens = []
            for _ in range(args.tokens):
                token = mx.argmax(logits[:, -1, :], axis=-1)
                mx.eval(token)
                tokens.append(int(token.item()))
                logits = model(token[:, None], cache=cache)
        return tokens

    start = time.perf_counter()
    gpu_tokens = decode(mx.gpu)
    result["decode_s"] = time.perf_counter() - start
    cpu_tokens = decode(mx.cpu)
    if gpu_tokens == cpu_tokens:
        result["decode"] = "ok"
    else:
        first = next(i for i, (g, c) in enumerate(zip(gpu_tokens, cpu_tokens)) if g != c)
        result["decode"] = "differs at token %d" % first
    return result


def run_training_step(args):
    import mlx.core as mx
    import mlx.nn as nn
    import mlx.optimizers as optim
    import numpy as np
    from mlx.utils import tree_flatten

    def step(stream):
        with mx.stream(stream):
            mx.random.seed(0)
            model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
            x = mx.random.normal((16, 32), key=mx.random.key(1))
            y = mx.array([i % 10 for i in range(16)])
            optimizer = optim.Adam(learning_rate=1e-2)

            def loss(m):
                return nn.losses.cross_entropy(m(x), y, reduction="mean")

            value, grads = nn.value_and_grad(model, loss)(model)
            optimizer.update(model, grads)
            mx.eval(model.parameters(), value)
        return value, dict(tree_flatten(model.parameters()))

    start = time.perf_counter()
    gpu_loss, gpu_params = step(mx.gpu)
    seconds = time.perf_counter() - start
    cpu_loss, cpu_params = step(mx.cpu)
    worst = max(close(mx, np, gpu_params[k], cpu_params[k], 1e-5)[1] for k in cpu_params)
    worst = max(worst, close(mx, np, gpu_loss, cpu_loss, 1e-5)[1])
    return {"forward": ("ok (%.1g)" if worst <= 1e-5 else "differs (%.2g)") % worst, "forward_s": seconds,
            "decode": "-", "decode_s": 0.0}


def child(args):
    try:
        result = run_training_step(args) if args.program == "train_mlp" else run_language_model(args)
    except Exception as e:  # the row says what stopped the program
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        result = {"failed": "%s: %s" % (type(e).__name__, first[:200])}
    print("RESULT " + json.dumps(result))
    return 0


# ------------------------------------------------------------------------------------------------
# In the parent: the table


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mlx_lm")
    p.add_argument("--modes", default="default,none")
    p.add_argument("--only", default="")
    p.add_argument("--tokens", type=int, default=6)
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--markdown", default="")
    p.add_argument("--child", nargs=3, metavar=("PROGRAM", "DTYPE", "MODE"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        args.program, args.dtype, args.mode = args.child
        return child(args)

    runs = [(m, d) for m in MODELS for d in DTYPES] + [("train_mlp", "float32")]
    if args.only:
        runs = [r for r in runs if r[0] in args.only.split(",")]
    rows = ["| program | dtype | mode | forward | greedy decoding, KV cache | GPU seconds (forward, decoding) |",
            "|---|---|---|---|---|---|"]
    print("\n".join(rows), flush=True)
    all_ok = True
    for mode in args.modes.split(","):
        env = dict(os.environ)
        if mode == "default":
            env["MSLSIM_METAL_CHECKS"] = "bounds,sync"
            env["MSLSIM_METAL_SUPPRESSIONS"] = os.path.join(HERE, "mlx-bugs.supp")
        else:
            env["MSLSIM_METAL_CHECKS"] = mode
            env.pop("MSLSIM_METAL_SUPPRESSIONS", None)
        for program, dtype in runs:
            cmd = [sys.executable, os.path.abspath(__file__), args.mlx_lm, "--tokens", str(args.tokens),
                   "--child", program, dtype, mode]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
                line = next((l for l in proc.stdout.splitlines() if l.startswith("RESULT ")), None)
                if line:
                    r = json.loads(line[7:])
                else:
                    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                    r = {"failed": "exit %d: %s" % (proc.returncode, tail[:200])}
            except subprocess.TimeoutExpired:
                r = {"failed": "timeout after %.0f s" % args.timeout}
            if "failed" in r:
                row = "| %s | %s | %s | failed: %s | | |" % (program, dtype, mode, r["failed"].replace("|", "/"))
                all_ok = False
            else:
                ok = r["forward"].startswith("ok") and r["decode"] in ("ok", "-")
                all_ok = all_ok and ok
                row = "| %s | %s | %s | %s | %s | %.1f, %.1f |" % (program, dtype, mode, r["forward"], r["decode"],
                                                                  r["forward_s"], r["decode_s"])
            rows.append(row)
            print(row, flush=True)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(rows) + "\n")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
