"""Per-step cost of NSGD-M and normalized STORM against ``optax.sgd(momentum=0.9)``.

One optimizer step (``update`` then ``optax.apply_updates``, jitted, parameters and
state donated) on a pytree of about 10^6 float32 parameters in five leaves, for:

* the peer, ``optax.sgd(lr, momentum=0.9)`` (heavy ball: one moment, no norm);
* ``jaxtheory.optim.normalized_sgd_momentum`` (EMA moment + a global-norm reduction);
* the same with ``per_leaf=True`` (one norm per leaf);
* ``jaxtheory.optim.normalized_storm`` (reads a second gradient pytree, ``prev_grad``).

Each is timed as a Python loop of jitted steps; rounds of ``N`` steps interleave the
cases, and the reported ratio is the median over rounds of the peer's time / ours in the
same round (> 1: ours is faster), which keeps a shared machine's load out of it. Results are
printed and, unless ``--tiny`` or ``--no-record``, recorded in ``benchmarks/RESULTS.md``
(replacing the script's earlier section).

Usage: ``python benchmarks/normalized_step.py [--tiny] [--no-record]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim import normalized_sgd_momentum, normalized_storm

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

# ~10^6 parameters: 524,288 + 262,144 + 131,072 + 81,920 + 512 = 999,936.
FULL_SHAPES = {"w1": (1024, 512), "w2": (512, 512), "w3": (512, 256), "emb": (256, 320), "b": (512,)}
TINY_SHAPES = {"w1": (64, 64), "w2": (32, 32), "b": (16,)}
PEER = "optax.sgd(momentum=0.9) [peer]"
INTRO = (
    "Peer measured in the same run: `optax.sgd(0.01, momentum=0.9)`. The normalized "
    "methods read the moment once more for the norm; STORM also reads `prev_grad`. "
    "Best = the best round (warm); the median per-round ratio compares the cases within "
    "each round, which keeps a shared machine's load out of it."
)


def _tree(shapes, seed):
    rng = np.random.default_rng(seed)
    return {k: jnp.asarray(rng.standard_normal(s), jnp.float32) for k, s in shapes.items()}


def make_step(opt, shapes, extra):
    """A jitted step (params and state donated) and its initial (params, state, grads, prev)."""

    def step(params, state, g, gp):
        kw = {"prev_grad": gp} if extra else {}
        u, state = opt.update(g, state, params, **kw)
        return optax.apply_updates(params, u), state

    params = _tree(shapes, 0)
    return jax.jit(step, donate_argnums=(0, 1)), [
        params,
        opt.init(params),
        _tree(shapes, 1),
        _tree(shapes, 2),
    ]


def run_steps(fn, args, steps):
    """Seconds per step over ``steps`` jitted steps (the carried params/state are updated)."""
    t0 = time.perf_counter()
    for _ in range(steps):
        args[0], args[1] = fn(*args)
    jax.block_until_ready(args[0])
    return (time.perf_counter() - t0) / steps


def main(argv=None) -> dict:
    args = C.parser(__doc__).parse_args(argv)
    shapes, steps, reps = (TINY_SHAPES, 5, 2) if args.tiny else (FULL_SHAPES, 20, 25)
    n_params = sum(int(np.prod(s)) for s in shapes.values())
    cases = {
        PEER: (optax.sgd(0.01, momentum=0.9), False),
        "normalized_sgd_momentum": (normalized_sgd_momentum(0.01, 0.9), False),
        "normalized_sgd_momentum(per_leaf)": (normalized_sgd_momentum(0.01, 0.9, per_leaf=True), False),
        "normalized_storm": (normalized_storm(0.01, 0.1), True),
    }
    built = {name: make_step(opt, shapes, extra) for name, (opt, extra) in cases.items()}
    cold = {}
    for name, (fn, carry) in built.items():
        cold[name] = C.timed(run_steps, fn, carry, 1, reps=0).cold
    # Rounds interleave the cases, so load on a shared machine hits them alike; the ratio
    # is the median over rounds of (peer / ours) within a round.
    per_round = {name: [] for name in built}
    for _ in range(reps):
        for name, (fn, carry) in built.items():
            per_round[name].append(run_steps(fn, carry, steps))
    peer = np.asarray(per_round[PEER])
    times = {name: float(np.min(v)) for name, v in per_round.items()}
    ratios = {name: float(np.median(C.ratio(peer, np.asarray(v)))) for name, v in per_round.items()}
    lines = [
        f"one step (update + apply_updates, jitted, donated) on {n_params:,} float32 "
        f"params in {len(shapes)} leaves; {reps} interleaved rounds of {steps} steps"
    ]
    for name in built:
        lines.append(
            f"  {name:36s} best {times[name] * 1e3:7.3f} ms/step (peer/ours of bests "
            f"{C.ratio(times[PEER], times[name]):4.2f}x)   median per-round peer/ours "
            f"{ratios[name]:4.2f}x   (cold {cold[name]:.2f} s)"
        )
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record("normalized_step", lines, intro=INTRO, script="normalized_step.py")
    return {"times": times, "ratios": ratios, "n_params": n_params}


if __name__ == "__main__":
    main()
