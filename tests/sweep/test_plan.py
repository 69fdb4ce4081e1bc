"""``jaxtheory plan``: closed-form counts on a toy program, the CLI on three full presets,
every full preset planned (and its recorded plan current), and, marked slow, one chunk of
every static group of every full preset compiled on the CPU."""

import dataclasses
import json
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory import Experiment, Paper, Preset
from jaxtheory.cli import main
from jaxtheory.registry import experiments, get_experiment
from jaxtheory.sweep import Space, values
from jaxtheory.sweep._jaxpr_cost import jaxpr_cost
from jaxtheory.sweep.plan import (
    DEVICES,
    describe_preset,
    plan_experiment,
    planned_note,
    preset_key,
    read_plans,
)

ONE_HOUR = 3600.0
FULL = sorted(n for n, e in experiments().items() if "full" in e.presets)


@dataclasses.dataclass(frozen=True)
class MSpec:
    d: int = 16
    steps: int = 50


W = np.full((16, 16), 1.0 / 16, np.float32)


def matmul_run(spec, params, key):
    """``steps`` products of a lane's vector with a fixed matrix: 2·d² FLOPs a step."""
    w = jnp.asarray(W[: spec.d, : spec.d])
    x, _ = jax.lax.scan(lambda x, _: (x @ w, None), params["a"] * jnp.ones(spec.d), None, length=spec.steps)
    return {"x": x}


def _toy(chunk=8, **spec):
    return Experiment(
        name="toy-matmul",
        paper=Paper("A toy"),
        run=matmul_run,
        spec=MSpec(**spec),
        params={"a": 1.0},
        metric_dims={"x": ("i",)},
        presets={"full": Preset(Space(a=values(*[float(i) for i in range(1, 11)]), seeds=3), chunk=chunk)},
        default_preset="full",
    )


def _grid(grid):
    return Experiment(
        name="toy-grid",
        paper=Paper("A toy"),
        run=matmul_run,
        spec=MSpec(),
        params={"a": 1.0},
        metric_dims={"x": ("i",)},
        presets={"full": Preset(Space(a=values(*grid), seeds=3), chunk=8)},
        default_preset="full",
    )


def test_preset_key_ignores_last_bits_of_a_grid_but_not_its_values():
    # a log-spaced grid's last bits differ between CPUs (libm); the key must not
    grid = [float(v) for v in np.logspace(-3, 0, 7)]
    nudged = [float(np.nextafter(v, np.inf)) for v in grid]
    assert nudged != grid
    assert preset_key(_grid(grid), "full") == preset_key(_grid(nudged), "full")
    moved = [*grid[:-1], grid[-1] * (1 + 1e-9)]
    assert preset_key(_grid(grid), "full") != preset_key(_grid(moved), "full")


def test_toy_matmul_counts_in_closed_form():
    d, steps, n = 16, 50, 8
    rep = plan_experiment(_toy(), "full", device="h200")
    (g,) = rep.groups
    assert (rep.lanes, rep.chunk, g.chunks) == (30, n, 4)
    assert g.chunks * g.chunk >= g.lanes > (g.chunks - 1) * g.chunk
    # loop-multiplied: every step's product, exactly
    assert g.ops["flops_by_kind"]["matmul:float32"] == steps * 2 * n * d * d
    assert g.ops["iterations"] == steps
    # XLA counts the loop body once: one product, plus the lanes' initial vectors (n·d)
    # and the loop counter
    assert 2 * n * d * d <= g.xla["flops"] <= 2 * n * d * d + 2 * n * d + 16
    # memory analysis: the argument is a (float32) per lane (jit drops the unused key
    # words), the output the final vectors
    assert g.memory["arguments"] == n * 4
    assert g.memory["outputs"] == n * d * 4
    assert g.memory_per_chunk == g.memory["total"] > 0
    # results.nc: x per lane, plus diverged_step (int32) and status (int8)
    assert rep.results_bytes == 30 * d * 4 + 30 * 5
    # the roofline: max(compute, memory) per chunk, times the chunks
    p = g.projection
    assert p["chunk_s"] == max(p["compute_s"], p["memory_s"])
    assert p["total_s"] == p["chunk_s"] * g.chunks == rep.projected_s
    h200 = DEVICES["h200"]
    want_compute = (
        steps * 2 * n * d * d / h200.matmul["float32"]
        + sum(v for k, v in g.ops["flops_by_kind"].items() if k.startswith("vector")) / h200.vector["float32"]
        + g.ops["transcendentals"] / h200.vector["float32"]
    )
    assert p["compute_s"] == pytest.approx(want_compute, rel=1e-12)
    assert g.max_chunk == int(h200.usable_bytes // (g.memory_per_chunk / n))
    assert rep.fits


def test_projection_scales_with_the_device_table():
    exp = _toy()
    h200 = plan_experiment(exp, "full", device="h200", compile=False).groups[0].projection
    h100 = plan_experiment(exp, "full", device="h100", compile=False).groups[0].projection
    a100 = plan_experiment(exp, "full", device="a100", compile=False).groups[0].projection
    # same program, same counts: the memory time scales with the bandwidth, compute with the peaks
    assert h100["memory_s"] / h200["memory_s"] == pytest.approx(4.8 / 3.35, rel=1e-12)
    assert h100["compute_s"] == pytest.approx(h200["compute_s"], rel=1e-12)
    assert a100["memory_s"] / h200["memory_s"] == pytest.approx(4.8 / 2.039, rel=1e-12)


def test_device_table_cites_a_source_for_every_device():
    for dev in DEVICES.values():
        assert dev.source.count("https://") == 1 and dev.memory > 0 and dev.bandwidth > 0
        assert all(v > 0 for v in [*dev.vector.values(), *dev.matmul.values()])
    assert DEVICES["h200"].memory == 141e9 and DEVICES["h200"].bandwidth == 4.8e12


def test_default_chunk_is_the_engines_for_the_device():
    exp = _toy(chunk=None)
    rep = plan_experiment(exp, "full", compile=False)
    assert rep.chunk == 30 and rep.chunks == 1  # every lane fits one chunk of an H200


def test_while_loop_counted_to_its_bound():
    def f(x):
        return jax.lax.while_loop(lambda s: s[0] < 7, lambda s: (s[0] + 1, s[1] * 2.0), (0, x))[1]

    c = jaxpr_cost(jax.jit(f).trace(jnp.ones(5)).jaxpr)
    assert c.flops["vector:float32"] == 7 * 5 and c.iterations == 7 and not c.notes

    def g(x):
        return jax.lax.while_loop(lambda s: s.sum() < 100.0, lambda s: s * 2.0, x)

    c = jaxpr_cost(jax.jit(g).trace(jnp.ones(5)).jaxpr)
    assert any("unknown trip count" in n for n in c.notes)


def test_loops_whose_bounds_a_scan_supplies_are_resolved():
    # a scan over segments whose bodies run fori_loops between the segment's bounds: the
    # bounds are traced inside the scan, known only step by step
    lo, hi = np.array([0, 10, 100], np.int32), np.array([10, 100, 1000], np.int32)

    def f(x):
        def segment(x, b):
            return jax.lax.fori_loop(b[0], b[1], lambda t, x: x * 0.5 + 1.0, x), x

        return jax.lax.scan(segment, x, (jnp.asarray(lo), jnp.asarray(hi)))

    c = jaxpr_cost(jax.jit(f).trace(jnp.ones(6)).jaxpr)
    assert c.flops["vector:float32"] == 1000 * 2 * 6 and c.iterations == 1000 + 3 and not c.notes


def test_while_loop_whose_counter_an_inner_scan_advances():
    # rounds played in scans of 16 under a while loop capped at 1024 rounds (a lane counts
    # its live rounds): at most 1024 / 16 = 64 passes of the loop
    def f(x):
        def chunk(c):
            def rnd(c, _):
                t, x = c
                return (t + (x < 100.0).astype(jnp.int32), x * 1.1), None

            return jax.lax.scan(rnd, c, None, length=16)[0]

        return jax.lax.while_loop(lambda c: (c[0] < 1024) & jnp.any(c[1] < 100.0), chunk, (jnp.int32(0), x))

    c = jaxpr_cost(jax.jit(jax.vmap(f)).trace(jnp.ones(4)).jaxpr)
    assert c.iterations == 64 + 1024 and c.flops["vector:float32"] == 1024 * 4 and not c.notes


# -- the command line on three full presets of different kinds ---------------------------


def test_cli_json_on_a_compiled_preset(capsys):
    # one static group per chunk size, the preset's own chunk: a jit experiment
    assert main(["plan", "high-arity-compression", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["mode"] == "jit" and rep["preset"] == "full" and rep["device"]["key"] == "h200"
    exp = get_experiment("high-arity-compression")
    assert rep["chunk"] == exp.presets["full"].chunk
    assert rep["chunks_per_group"] * rep["chunk"] >= rep["lanes_per_group"]
    assert rep["lanes"] == rep["lanes_per_group"] * rep["static_groups"]
    for g in rep["groups"]:
        assert g["compiled"] and g["xla"]["flops"] > 0 and g["memory"]["total"] > 0
        assert g["ops"]["flops"] >= g["ops"]["flops_once"] > 0
    assert rep["projected_s"] == pytest.approx(sum(g["projection"]["total_s"] for g in rep["groups"]))
    assert "roofline projection" in rep["planned"] and rep["fits"] is True


def test_cli_table_on_static_groups_and_host_mode(capsys):
    assert main(["plan", "noisy-quadratic", "--no-compile", "--device", "a100"]) == 0
    text = capsys.readouterr().out
    assert "PROJECTION" in text and "not a measurement" in text and "A100" in text
    assert text.count("dim=") == 3  # one row per static group
    assert main(["plan", "adversary-directed-online"]) == 0
    text = capsys.readouterr().out
    assert "host mode" in text and "do not apply" in text and "PROJECTION" not in text
    exp = get_experiment("adversary-directed-online")
    assert not exp.jit


def test_cli_bad_input():
    assert main(["plan"]) == 2
    assert main(["plan", "noisy-quadratic", "--device", "nope"]) == 2
    assert main(["plan", "no-such-experiment"]) == 2


# -- every full preset: planned without compiling; its recorded plan current ---------


@pytest.mark.parametrize("name", FULL)
def test_full_preset_planned_and_recorded(name):
    exp = get_experiment(name)
    entry = read_plans()["experiments"].get(name, {}).get("full")
    assert entry is not None, f"no recorded plan: run `jaxtheory plan {name} --record`"
    # traced without compiling: the group whose compiled chunk needed the most memory
    rep = plan_experiment(exp, "full", compile=False, groups=[entry["heaviest_group"]])
    assert rep.groups and rep.chunks * rep.chunk >= rep.lanes_per_group > (rep.chunks - 1) * rep.chunk
    assert (entry["key"], entry["lanes"], entry["chunk"], entry["static_groups"]) == (
        rep.key,
        rep.lanes,
        rep.chunk,
        len(rep.groups),
    ), f"the recorded plan of {name} is stale: run `jaxtheory plan {name} --record`"
    assert entry["device"] == "h200"
    desc = exp.presets["full"].description
    assert not re.search(r"not (yet )?run|estimated|untested on a device", desc, re.I), desc
    assert describe_preset(exp, "full").endswith(entry["planned"][1:] + ".")
    assert planned_note(name) == entry["planned"]
    if exp.jit:
        # XLA's memory analysis of the compiled chunk (recorded for this very preset: the
        # key above), per lane, times the chunk the preset carries, fits what JAX gives a
        # program on an H200 (75 % of 141 GB); the live-value estimate of the trace is an
        # upper one (2-8x XLA's on the heaviest presets), so it is reported, not judged
        assert entry["memory_source"] == ["XLA memory analysis"]
        per_lane = entry["memory_per_chunk"] / entry["chunk"]
        assert per_lane * rep.chunk <= DEVICES["h200"].usable_bytes and entry["fits"]
        assert rep.memory_per_chunk > 0 and rep.groups[entry["heaviest_group"]].ops["flops"] > 0
        assert entry["projected_s"] <= ONE_HOUR


# -- slow: one chunk of every static group of every full preset, compiled on the CPU ------


@pytest.mark.slow
@pytest.mark.parametrize("name", FULL)
def test_full_preset_compiles(name):
    exp = get_experiment(name)
    rep = plan_experiment(exp, "full")
    if not exp.jit:
        assert rep.mode == "host" and rep.results_bytes > 0
        return
    assert all(g.compiled for g in rep.groups)
    assert rep.fits, f"{name}: {rep.memory_per_chunk / 1e9:.1f} GB per chunk of {rep.chunk}"
    assert rep.projected_s <= ONE_HOUR
