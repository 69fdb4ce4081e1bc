"""Host mode (``jit=False``): a Python/numpy ``run(spec, params, seed)`` per lane, through the
same lane keys, chunk store, resume, assembly and claims as the compiled path."""

import dataclasses
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import xarray as xr

from jaxtheory.claims import Claim
from jaxtheory.experiment import Experiment, Paper, Preset
from jaxtheory.sweep import (
    Space,
    categorical,
    host_seed,
    lane_key_data,
    open_results,
    static,
    sweep,
    values,
)


@dataclasses.dataclass(frozen=True)
class Spec:
    n: int = 4
    steps: int = 6


PARAMS = {"a": 0.0, "lr": 0.1, "kind": categorical("sum", "max")}
CALLS: list[tuple] = []  # (params, seed) of every call, to check what the engine hands the run


def run(spec, params, seed):
    """A random walk of ``steps`` steps in ``n`` dimensions, scaled by ``a``; NaN from step 3 when a > 5."""
    CALLS.append((dict(params), seed))
    rng = np.random.default_rng(seed)
    walk = np.cumsum(params["a"] + params["lr"] * rng.normal(size=(spec.steps, spec.n)), axis=0)
    if params["a"] > 5:
        walk[3:] = np.nan
    stat = walk.sum(axis=1) if params["kind"] == 0 else walk.max(axis=1)
    return {"path": stat, "last": walk[-1], "count": np.int64(spec.n), "diverged_step": np.int32(-1)}


DIMS = {"path": ("step",), "last": ("coord",)}


def _sweep(space, **kw):
    kw.setdefault("quiet", True)
    kw.setdefault("metric_dims", DIMS)
    return sweep(run, Spec(), space, PARAMS, jit=False, **kw)


def test_each_lane_is_the_run_called_alone_with_its_key_seed():
    space = Space(a=values(0.5, 1.5), kind=values("sum", "max"), seeds=3)
    ds = _sweep(space).dataset
    assert dict(ds["path"].sizes) == {"a": 2, "kind": 2, "seed": 3, "step": 6}
    for a in (0.5, 1.5):
        for code, kind in enumerate(("sum", "max")):
            for s in range(3):
                seed = host_seed(lane_key_data({"a": a, "kind": kind}, s))
                alone = run(Spec(), {"a": a, "lr": 0.1, "kind": code}, seed)
                # bitwise by construction: the same numpy code on the same seed
                np.testing.assert_array_equal(ds["path"].sel(a=a, kind=kind, seed=s).values, alone["path"])
                np.testing.assert_array_equal(ds["last"].sel(a=a, kind=kind, seed=s).values, alone["last"])


def test_params_arrive_as_python_scalars_in_float64_and_seeds_are_valid():
    CALLS.clear()
    _sweep(Space(a=values(0.1, 0.7), kind=values("max"), seeds=2))
    assert len(CALLS) == 4
    for params, seed in CALLS:
        assert type(params["a"]) is float and params["a"] in (0.1, 0.7)  # not rounded to float32
        assert type(params["kind"]) is int and params["kind"] == 1
        assert type(seed) is int and 0 <= seed < 2**63
    assert len({seed for _, seed in CALLS}) == 4


def test_adding_a_config_leaves_other_lanes_unchanged_and_paired_axes_share_seeds():
    small = _sweep(Space(a=values(0.5, 1.5), seeds=2)).dataset
    big = _sweep(Space(a=values(0.5, 1.0, 1.5), seeds=2)).dataset
    np.testing.assert_array_equal(small["path"].values, big["path"].sel(a=[0.5, 1.5]).values)
    paired = _sweep(Space(a=values(0.5, 1.5), lr=values(0.1, 0.2), seeds=2, paired=("lr",))).dataset
    # the same draws at both learning rates: (path - a*t) scales with lr exactly (up to round-off)
    t = np.arange(1, 7)[:, None]
    n01 = paired["path"].sel(lr=0.1).values - 4 * 0.5 * t.T
    n02 = paired["path"].sel(lr=0.2).values - 4 * 0.5 * t.T
    np.testing.assert_allclose(n02[0], 2 * n01[0], rtol=1e-12, atol=1e-12)


def test_static_axes_make_groups_of_their_own_shapes():
    ds = _sweep(Space(a=values(0.5), n=static(2, 5), seeds=2)).dataset
    assert dict(ds["last"].sizes) == {"n": 2, "a": 1, "seed": 2, "coord": 5}
    assert ds["count"].sel(n=2).values.ravel().tolist() == [2, 2]
    # the smaller group's metric is padded with NaN past its own length, as in the compiled path
    assert np.isnan(ds["last"].sel(n=2).values[..., 2:]).all()
    assert np.isfinite(ds["last"].sel(n=5).values).all()


def test_nonfinite_lanes_are_flagged_at_their_first_nonfinite_step():
    # the run's own diverged_step is -1; the engine finds the first non-finite index along
    # each metric's first axis, as for a compiled run: step 3 of ``path``, index 0 of ``last``
    ds = _sweep(Space(a=values(1.0, 9.0), seeds=2), metric_dims={"path": ("step",), "last": ("coord",)})
    ds = ds.dataset
    assert (ds["diverged_step"].sel(a=9.0).values == 0).all()
    assert (ds["diverged_step"].sel(a=1.0).values == -1).all()
    assert ds["status"].sel(a=9.0).values.tolist() == [1, 1]
    assert ds["status"].sel(a=1.0).values.tolist() == [0, 0]

    def late(spec, params, seed):
        path = np.arange(6.0)
        path[4:] = np.inf if params["a"] > 5 else path[4:]
        return {"path": path}

    ds = sweep(late, Spec(), Space(a=values(1.0, 9.0)), {"a": 0.0}, jit=False, quiet=True).dataset
    assert ds["diverged_step"].values.ravel().tolist() == [-1, 4]


def test_store_resumes_its_own_chunks_and_recomputes_other_codes(tmp_path):
    space = Space(a=values(0.5, 1.5, 2.5), seeds=4)
    first = _sweep(space, run_dir=tmp_path, chunk=3)
    assert first.manifest["mode"] == "host" and first.manifest["compiles"] == 0
    assert first.manifest["chunks_run"] == 4 and first.manifest["chunks_resumed"] == 0
    CALLS.clear()
    again = _sweep(space, run_dir=tmp_path, chunk=3)
    assert again.manifest["chunks_run"] == 0 and again.manifest["chunks_resumed"] == 4 and not CALLS
    xr.testing.assert_identical(open_results(tmp_path).drop_attrs(), first.dataset.drop_attrs())
    other = sweep(
        run, Spec(), space, PARAMS, metric_dims=DIMS, jit=False, quiet=True, run_dir=tmp_path, chunk=3,
        fingerprint="another code",
    )  # fmt: skip
    assert other.manifest["chunks_run"] == 4


def test_default_chunks_are_small_enough_to_resume_from():
    res = _sweep(Space(a=values(*np.linspace(0, 1, 16).tolist()), seeds=8))
    assert res.manifest["chunk_size"] == 4 and res.manifest["chunks_run"] == 32


def test_bad_host_outputs_fail_clearly():
    def ragged(spec, params, seed):
        return {"x": np.zeros(2 if params["a"] < 1 else 3)}

    with pytest.raises(ValueError, match="same metrics with the same shapes"):
        sweep(ragged, Spec(), Space(a=values(0.5, 1.5)), {"a": 0.0}, jit=False, quiet=True)
    with pytest.raises(TypeError, match="non-empty dict"):
        sweep(lambda s, p, k: [1.0], Spec(), Space(a=values(0.5)), {"a": 0.0}, jit=False, quiet=True)
    with pytest.raises(TypeError, match="not numeric"):
        sweep(lambda s, p, k: {"x": np.array("a")}, Spec(), Space(), {}, jit=False, quiet=True)
    with pytest.raises(ValueError, match="metric_dims"):
        _sweep(Space(a=values(0.5)), metric_dims={"path": ("step", "extra")})
    with pytest.raises(TypeError, match="jit must be"):
        sweep(run, Spec(), Space(), PARAMS, jit="no", quiet=True)


def test_a_host_experiment_has_claims_figures_and_a_run_directory(tmp_path):
    def draw(ds, spec, fig):
        ax = fig.add_subplot()
        ax.plot(ds["path"].mean("seed").sel(kind="sum").values.T)

    exp = Experiment(
        name="host-walk",
        paper=Paper("A random walk", arxiv="0000.00000"),
        run=run,
        spec=Spec(),
        params=PARAMS,
        presets={"smoke": Preset(Space(a=values(0.5, 1.0), kind=values("sum", "max"), seeds=8))},
        claims=[
            Claim.identity(
                "count-is-n",
                "every lane reports n",
                lambda ds, spec: ds["count"].values.astype(float) - spec.n,
                0.0,
                source="sanity",
            )
        ],
        metric_dims=DIMS,
        jit=False,
    )
    result = exp.sweep(out=tmp_path, quiet=True).check()
    assert [c.verdict for c in result.claims] == ["pass"]
    stored = json.loads((result.run_dir / "claims.json").read_text())
    assert stored[0]["name"] == "count-is-n" and stored[0]["verdict"] == "pass"
    with pytest.raises(TypeError, match="jit must be"):
        dataclasses.replace(exp, jit=1)


SCRIPT = textwrap.dedent("""
    import dataclasses, sys, time
    import numpy as np
    from jaxtheory.sweep import Space, log, sweep

    @dataclasses.dataclass(frozen=True)
    class Spec:
        n: int = 50

    def run(spec, params, seed):
        rng = np.random.default_rng(seed)
        if sys.argv[2] == "slow":  # each lane takes visibly long, so a kill lands mid-sweep
            time.sleep(0.05)
        return {"x": np.cumsum(params["lr"] * rng.standard_normal(spec.n))}

    sweep(run, Spec(), Space(lr=log(0.01, 0.5, num=24), seeds=4), {"lr": 0.1},
          run_dir=sys.argv[1], chunk=8, quiet=True, jit=False, fingerprint="host-kill-test")
""")


def test_sigkill_mid_sweep_then_resume_equals_uninterrupted(tmp_path, kill_mid_sweep):
    # bitwise: every chunk, before or after the kill, ran the same program on the same inputs
    kill_mid_sweep(tmp_path, SCRIPT, chunks_total=12)


TWO = textwrap.dedent("""
    import dataclasses, os, sys
    run_dir, port, nproc, pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    from jaxtheory.sweep.mesh import init_distributed
    if nproc > 1:
        init_distributed(f"127.0.0.1:{port}", nproc, pid)
    import numpy as np
    import jaxtheory.sweep.store as store
    from jaxtheory.sweep import Space, log, static, sweep
    writes = []
    orig = store.save_chunk
    def save(path, arrays):
        writes.append(os.path.basename(path))
        orig(path, arrays)
    store.save_chunk = save

    @dataclasses.dataclass(frozen=True)
    class Spec:
        n: int = 5

    def run(spec, params, seed):
        rng = np.random.default_rng(seed)
        return {"x": np.cumsum(params["lr"] * rng.standard_normal(spec.n))}

    r = sweep(run, Spec(), Space(lr=log(0.01, 0.5, num=5), n=static(3, 5), seeds=3), {"lr": 0.1},
              run_dir=run_dir, chunk=4, quiet=True, jit=False, fingerprint="host-two-processes")
    print("WRITES", ",".join(writes), "LANES", r.manifest["lanes"])
""")


@pytest.mark.slow  # three jax.distributed processes (~10 s): run with -m slow
def test_two_processes_split_each_chunk_and_equal_one_process(tmp_path):
    import socket

    job = tmp_path / "two.py"
    job.write_text(TWO)
    env = dict(os.environ, JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="3")
    one = tmp_path / "one"
    subprocess.run([sys.executable, str(job), str(one), "0", "1", "0"], env=env, check=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    two = tmp_path / "two"
    procs = [
        subprocess.Popen(
            [sys.executable, str(job), str(two), port, "2", str(i)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for i in range(2)
    ]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    writes = [o.split("WRITES ")[1].split()[0].split(",") for o in outs]
    # 15 lanes per static group in chunks of 4: 4 chunks per group, each split in two parts
    assert sorted(writes[0]) == sorted(w.replace("_p001", "_p000") for w in writes[1]) and len(writes[0]) == 8
    assert all(w.endswith(f"_p{i:03d}.npz") for i, ws in enumerate(writes) for w in ws)
    a, b = open_results(one), open_results(two)
    # bitwise by construction: the same numpy code on the same seeds, in one process or two
    np.testing.assert_array_equal(a["x"].values, b["x"].values)
    assert np.isfinite(a["x"].sel(n=5).values).all() and a["x"].shape == (2, 5, 3, 5)
