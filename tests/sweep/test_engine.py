"""The sweep engine: lanes, keys, chunking, compiles, divergence, resume."""

import dataclasses
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import xarray as xr
from jax import monitoring

from jaxtheory.divergence import guarded_scan
from jaxtheory.sweep import (
    Space,
    SpaceError,
    categorical,
    clear_compile_cache,
    compute_timings,
    lane_key_data,
    lane_key_table,
    log,
    make_key,
    open_results,
    static,
    sweep,
    values,
    zipped,
)


@dataclasses.dataclass(frozen=True)
class Spec:
    dim: int = 3
    steps: int = 20


PARAMS = {"lr": 0.1, "scale": 1.0}


def run(spec, params, key):
    """A noisy gradient descent on ½|x|²; diverges when lr > 2."""

    def step(x, t):
        g = x + params["scale"] * jax.random.normal(jax.random.fold_in(key, t), x.shape)
        x = x - params["lr"] * g
        return x, jnp.sum(x * x)

    x, losses, div = guarded_scan(step, jnp.ones(spec.dim), jnp.arange(spec.steps))
    return {"loss": losses, "final": jnp.sum(x), "diverged_step": div}


DIMS = {"loss": ("step",)}
#: Relative tolerance between runs of one lane under two batch shapes (another chunk size,
#: another number of lanes, vmapped against alone): XLA compiles another batch into another
#: program, whose FMA contractions and reduction orders may round each step differently by
#: about one float32 epsilon. The recursion is linear and stable (lr < 2), so the
#: differences add up at most linearly over the horizon: steps * eps32 = 2.4e-6.
RTOL = Spec.steps * float(np.finfo(np.float32).eps)


def _sweep(space, **kw):
    kw.setdefault("quiet", True)
    return sweep(run, Spec(), space, PARAMS, metric_dims=DIMS, **kw).dataset


class CompileCounter:
    def __init__(self):
        self.n = 0
        monitoring.register_event_duration_secs_listener(self._on)

    def _on(self, name, duration, **kw):
        if name == "/jax/core/compile/backend_compile_duration":
            self.n += 1


COUNTER = CompileCounter()


def test_lane_equals_the_same_config_run_alone():
    space = Space(lr=log(0.01, 0.5, num=5), scale=values(0.0, 1.0), seeds=3, base_seed=7)
    ds = _sweep(space)
    single = jax.jit(lambda p, kd: run(Spec(), p, make_key(kd)))
    for lr in ds["lr"].values[[0, 3]]:
        for scale in ds["scale"].values:
            for s in range(3):
                kd = lane_key_data({"lr": lr, "scale": scale}, s, base_seed=7)
                p = {"lr": jnp.float32(lr), "scale": jnp.float32(scale)}
                alone = single(p, jnp.asarray(kd))
                lane = ds.sel(lr=lr, scale=scale, seed=s)
                # a batch of 30 lanes against one lane alone: round-off, not bitwise
                np.testing.assert_allclose(lane["loss"].values, np.asarray(alone["loss"]), rtol=RTOL)
                np.testing.assert_allclose(float(lane["final"]), float(alone["final"]), rtol=RTOL)


def test_adding_a_config_or_reordering_axes_leaves_other_lanes_unchanged():
    spaces = [
        Space(lr=values(0.1, 0.2), scale=values(1.0), seeds=2),
        Space(lr=values(0.3, 0.1, 0.2, 0.05), scale=values(1.0, 0.5), seeds=3),
        Space(scale=values(1.0), lr=values(0.2, 0.1), seeds=2),
    ]
    for chunk, check in [
        (4, np.testing.assert_array_equal),
        (None, lambda a, b: np.testing.assert_allclose(a, b, rtol=RTOL)),
    ]:
        # chunk=4: every sweep runs batches of 4 lanes, the same program, so the lanes
        # (keys from config and seed, at other positions in other chunks) are bitwise
        # equal. By default the chunk holds all lanes (4, 24 and 4): another batch shape,
        # another program, so only round-off equality holds.
        base, more, swapped = (_sweep(s, chunk=chunk) for s in spaces)
        for other in (more, swapped):
            sub = other.sel(lr=[0.1, 0.2], scale=[1.0], seed=[0, 1]).transpose(*base["loss"].dims)
            check(sub["loss"].values, base["loss"].values)
    # and the keys really differ across configs and seeds (not one shared stream)
    assert not np.allclose(base["loss"].sel(lr=0.1, seed=0), base["loss"].sel(lr=0.1, seed=1))


def test_chunked_equals_unchunked_and_compiles_once_per_static_group():
    space = Space(lr=log(0.01, 0.5, num=7), scale=values(0.5, 1.0), dim=static(2, 3, 5), seeds=3)
    clear_compile_cache()
    before = COUNTER.n
    chunked = sweep(run, Spec(), space, PARAMS, metric_dims=DIMS, chunk=4, quiet=True)
    compiles = COUNTER.n - before
    whole = _sweep(space, chunk=10_000)
    # 42 lanes per group in chunks of 4 (the last one padded): still one compile per group
    assert chunked.manifest["compiles"] == 3
    assert compiles == 3, f"{compiles} backend compilations for 3 static groups"
    xr.testing.assert_allclose(chunked.dataset, whole, rtol=RTOL)  # batches of 4 against 42
    assert dict(chunked.dataset["loss"].sizes) == {"dim": 3, "lr": 7, "scale": 2, "seed": 3, "step": 20}
    # other dynamic values of the same shapes reuse the compiled programs
    before = COUNTER.n
    other = Space(lr=log(0.02, 0.9, num=7), scale=values(0.1, 2.0), dim=static(2, 3, 5), seeds=3)
    again = sweep(run, Spec(), other, PARAMS, metric_dims=DIMS, chunk=4, quiet=True)
    assert COUNTER.n == before and again.manifest["compiles"] == 0


def test_diverged_lanes_are_flagged_and_isolated():
    ok_only = _sweep(Space(lr=values(0.1, 0.5), seeds=2))
    mixed = _sweep(Space(lr=values(0.1, 50.0, 0.5, 1e6), seeds=2))
    st = mixed["status"]
    assert (st.sel(lr=[0.1, 0.5]) == 0).all() and (st.sel(lr=[50.0, 1e6]) == 1).all()
    div = mixed["diverged_step"]
    assert (div.sel(lr=[0.1, 0.5]) == -1).all()
    # lr = 1e6 overflows on its first few steps; lr = 50 (x grows 49x a step) near step 11
    assert (div.sel(lr=1e6) < div.sel(lr=50.0)).all() and (div.sel(lr=50.0) < 20).all()
    # frozen lanes report NaN from the divergence step on, finite before it
    lane = mixed["loss"].sel(lr=50.0, seed=0).values
    t = int(div.sel(lr=50.0, seed=0))
    assert np.isfinite(lane[:t]).all() and np.isnan(lane[t:]).all()
    assert np.isfinite(mixed["final"].sel(lr=50.0)).all()  # the last finite state
    # 8 lanes against 4 (another batch shape): round-off
    xr.testing.assert_allclose(mixed["loss"].sel(lr=[0.1, 0.5]), ok_only["loss"], rtol=RTOL)


def test_guarded_scan_freezes_carry():
    def step(x, _):
        return x * 10.0, x

    x, ys, t = guarded_scan(step, jnp.float32(1.0), length=50)
    assert int(t) == 38 and float(x) == pytest.approx(1e38, rel=1e-5)
    assert np.isnan(np.asarray(ys[38:])).all() and np.isfinite(np.asarray(ys[:38])).all()


def test_nonfinite_metrics_without_guard_are_still_flagged():
    def bad(spec, params, key):
        return {"y": jnp.log(params["lr"] - 0.15) * jnp.ones(4)}

    ds = sweep(bad, Spec(), Space(lr=values(0.1, 0.2)), PARAMS, quiet=True).dataset
    assert ds["status"].sel(lr=0.1).item() == 1 and ds["status"].sel(lr=0.2).item() == 0


def test_unknown_parameter_fails_before_compiling():
    before = COUNTER.n
    with pytest.raises(ValueError, match="axis 'lrate' is not a parameter"):
        _sweep(Space(lrate=values(0.1)))
    assert COUNTER.n == before


def test_store_writes_results_and_manifest_and_resumes(tmp_path):
    space = Space(lr=values(0.1, 0.2, 0.3), dim=static(2, 3), seeds=2)
    first = sweep(run, Spec(), space, PARAMS, metric_dims=DIMS, run_dir=tmp_path, chunk=2, quiet=True)
    assert first.manifest["chunks_run"] == 6 and first.manifest["chunks_resumed"] == 0
    chunks = sorted((tmp_path / "chunks").iterdir())
    assert len(chunks) == 6 and not [p for p in tmp_path.rglob("*.tmp")]
    again = sweep(run, Spec(), space, PARAMS, metric_dims=DIMS, run_dir=tmp_path, chunk=2, quiet=True)
    assert again.manifest["chunks_run"] == 0 and again.manifest["compiles"] == 0
    # bitwise: the rerun reads back the very arrays the first call stored
    xr.testing.assert_identical(open_results(tmp_path).drop_attrs(), first.dataset.drop_attrs())
    # a chunk written by a different sweep (other keys) is recomputed, not trusted
    other = Space(lr=values(0.1, 0.2, 0.3), dim=static(2, 3), seeds=2, base_seed=1)
    third = sweep(run, Spec(), other, PARAMS, metric_dims=DIMS, run_dir=tmp_path, chunk=2, quiet=True)
    assert third.manifest["chunks_run"] == 6
    m = first.manifest
    for k in ("space", "spec", "versions", "git", "devices", "timings", "status_counts"):
        assert k in m
    # every call is kept in the history; computing time sums the calls that ran chunks
    hist = third.manifest["history"]
    assert [h["chunks_run"] for h in hist] == [6, 0, 6]
    assert [h["chunks_resumed"] for h in hist] == [0, 6, 0]
    comp = compute_timings(third.manifest)
    assert comp["calls"] == 2 and comp["chunks_run"] == 12
    want = first.manifest["timings"]["run_s"] + third.manifest["timings"]["run_s"]
    assert comp["timings"]["run_s"] == pytest.approx(want)
    assert compute_timings(again.manifest)["calls"] == 1
    assert (
        sweep(run, Spec(), space, PARAMS, metric_dims=DIMS, chunk=2, quiet=True).manifest["history"][0][
            "chunks_run"
        ]
        == 6
    )  # in memory: this call only


SCRIPT = textwrap.dedent("""
    import sys, time, dataclasses
    import jax, jax.numpy as jnp
    from jaxtheory.sweep import Space, log, values, sweep

    @dataclasses.dataclass(frozen=True)
    class Spec:
        steps: int = 4000

    def run(spec, params, key):
        def step(x, t):
            x = x - params["lr"] * (x + jax.random.normal(jax.random.fold_in(key, t), x.shape))
            return x, None
        x, _ = jax.lax.scan(step, jnp.ones(64), jnp.arange(spec.steps))
        return {"x": x}

    slow = sys.argv[2] == "slow"
    def slow_run(spec, params, key):
        return run(spec, params, key)

    space = Space(lr=log(0.01, 0.5, num=24), seeds=4)
    if slow:  # make each chunk take visibly long, so a kill lands mid-sweep
        import jaxtheory.sweep.store as store
        orig = store.save_chunk
        def save(path, arrays):
            time.sleep(0.4)
            orig(path, arrays)
        store.save_chunk = save
    sweep(run, Spec(), space, {"lr": 0.1}, run_dir=sys.argv[1], chunk=8, quiet=True)
""")


def test_sigkill_mid_sweep_then_resume_equals_uninterrupted(tmp_path, kill_mid_sweep):
    # bitwise: every chunk, before or after the kill, ran the same program on the same inputs
    kill_mid_sweep(tmp_path, SCRIPT, chunks_total=12)


def test_tuple_valued_static_axis():
    @dataclasses.dataclass(frozen=True)
    class S:
        shape: tuple = (2, 3)

    def f(spec, params, key):
        return {"n": jnp.zeros(spec.shape).size * params["a"]}

    ds = sweep(f, S(), Space(shape=static((2, 3), (4, 5)), a=values(1.0)), {"a": 1.0}, quiet=True).dataset
    assert list(ds["shape"].values) == ["(2, 3)", "(4, 5)"]
    np.testing.assert_array_equal(ds["n"].values.ravel(), [6, 20])  # small integers: exact


# -- paired axes (common random numbers) and categorical parameters ---------------------

OPT = categorical("adam", "sgd", "muon")


def key_run(spec, params, key):
    """Outputs that depend only on the lane's key (its raw words, and a draw from it)."""
    return {"kd": jax.random.key_data(key), "z": jax.random.normal(key, (spec.dim,))}


def _key_sweep(space, params=None, **kw):
    return sweep(
        key_run, Spec(), space, params or {"lr": 0.1, "scale": 1.0, "opt": OPT}, quiet=True, **kw
    ).dataset


def test_paired_axes_share_keys_and_draws_unpaired_ones_do_not():
    axes = dict(lr=values(0.1, 0.2, 0.3), opt=values("sgd", "adam"), seeds=3)
    both = _key_sweep(Space(**axes, paired=("lr", "opt")))
    kd, z = both["kd"].values, both["z"].values  # (lr, opt, seed, ...)
    # one program, one batch: equal keys give bitwise-equal draws by construction
    assert (kd == kd[:1, :1]).all() and (z == z[:1, :1]).all()
    assert len({tuple(kd[0, 0, s]) for s in range(3)}) == 3  # seeds still differ
    for s in range(3):  # the key is the one of the config without its paired values
        want = jax.random.key_data(make_key(jnp.asarray(lane_key_data({}, s))))
        np.testing.assert_array_equal(kd[0, 0, s], np.asarray(want))
    only_lr = _key_sweep(Space(**axes, paired=("lr",)))["kd"].values
    assert (only_lr == only_lr[:1]).all()
    assert not (only_lr[:, 0] == only_lr[:, 1]).all(axis=-1).any()  # opt still enters the key
    unpaired = _key_sweep(Space(**axes))["kd"].values.reshape(-1, kd.shape[-1])
    assert len({tuple(r) for r in unpaired}) == unpaired.shape[0]  # every lane its own key


def test_paired_lanes_are_unchanged_by_adding_a_value():
    space = Space(lr=values(0.1, 0.2), scale=values(1.0, 0.5), seeds=2, paired=("lr",))
    base = _sweep(space)
    more = _sweep(space.replace(lr=values(0.05, 0.1, 0.3, 0.2), scale=values(0.5, 2.0, 1.0), seeds=3))
    # keys are compared exactly; results with a float32 tolerance, as the batch shapes differ
    kb = _key_sweep(space)["kd"]
    km = _key_sweep(space.replace(lr=values(0.05, 0.1, 0.3, 0.2), scale=values(0.5, 2.0, 1.0), seeds=3))["kd"]
    np.testing.assert_array_equal(km.sel(lr=[0.1, 0.2], scale=[1.0, 0.5], seed=[0, 1]).values, kb.values)
    sub = more.sel(lr=[0.1, 0.2], scale=[1.0, 0.5], seed=[0, 1]).transpose(*base["loss"].dims)
    np.testing.assert_allclose(sub["loss"].values, base["loss"].values, rtol=RTOL)
    # common random numbers: each paired lane equals the same config run alone with the
    # key of its unpaired values, whatever its learning rate
    single = jax.jit(lambda p, kd: run(Spec(), p, make_key(kd)))
    for lr in (0.1, 0.2):
        kd = lane_key_data({"scale": 0.5}, 1)
        alone = single({"lr": jnp.float32(lr), "scale": jnp.float32(0.5)}, jnp.asarray(kd))
        np.testing.assert_allclose(
            base["loss"].sel(lr=lr, scale=0.5, seed=1).values, np.asarray(alone["loss"]), rtol=RTOL
        )


def test_paired_chunks_of_other_values_are_recomputed_not_served(tmp_path):
    space = Space(lr=values(0.1, 0.2), seeds=2, paired=("lr",))
    first = sweep(run, Spec(), space, PARAMS, metric_dims=DIMS, run_dir=tmp_path, chunk=2, quiet=True)
    assert first.manifest["space"]["paired"] == ["lr"]
    # same keys lane for lane (lr is paired), other values: must not reuse the chunks
    other = space.replace(lr=values(0.3, 0.4))
    second = sweep(run, Spec(), other, PARAMS, metric_dims=DIMS, run_dir=tmp_path, chunk=2, quiet=True)
    assert second.manifest["chunks_run"] == 2 and second.manifest["chunks_resumed"] == 0
    assert not np.allclose(second.dataset["final"].values, first.dataset["final"].values)
    again = sweep(run, Spec(), other, PARAMS, metric_dims=DIMS, run_dir=tmp_path, chunk=2, quiet=True)
    assert again.manifest["chunks_run"] == 0
    xr.testing.assert_identical(again.dataset.drop_attrs(), second.dataset.drop_attrs())


def code_run(spec, params, key):
    x = jnp.float32(3.0)
    y = OPT.switch(params["opt"], {"adam": lambda v: 2 * v, "sgd": lambda v: -v, "muon": lambda v: v * v}, x)
    return {"code": params["opt"], "y": y, "kd": jax.random.key_data(key)}


def test_categorical_axis_hands_the_run_codes_and_the_results_labels(tmp_path):
    params = {"lr": 0.1, "opt": OPT}
    res = sweep(
        code_run,
        Spec(),
        Space(opt=values("muon", "adam"), lr=values(0.1, 0.2), seeds=2),
        params,
        run_dir=tmp_path,
        quiet=True,
    )
    ds = res.dataset
    assert ds["code"].dtype == np.int32
    for label, y in (("muon", 9.0), ("adam", 6.0)):
        assert (ds["code"].sel(opt=label) == OPT.code(label)).all()
        assert (ds["y"].sel(opt=label) == y).all()
    back = open_results(tmp_path)
    assert back["opt"].values.tolist() == ["muon", "adam"]
    assert (back["code"].sel(opt="adam") == 0).all()
    assert res.manifest["params"]["opt"] == {"labels": ["adam", "sgd", "muon"], "default": "adam"}
    # the key hashes the label: reordering the labels moves no lane's key
    swapped = sweep(
        code_run,
        Spec(),
        Space(lr=values(0.2, 0.1), opt=values("adam", "muon", "sgd"), seeds=2),
        params,
        quiet=True,
    ).dataset
    np.testing.assert_array_equal(
        swapped["kd"].sel(opt=["muon", "adam"], lr=[0.1, 0.2]).transpose(*ds["kd"].dims).values,
        ds["kd"].values,
    )
    want = lane_key_data({"opt": "adam", "lr": 0.2}, 1)
    np.testing.assert_array_equal(
        ds["kd"].sel(opt="adam", lr=0.2, seed=1).values,
        np.asarray(jax.random.key_data(make_key(jnp.asarray(want)))),
    )
    # unswept, it is the default's code; zipped, labels become a member coordinate
    plain = sweep(
        code_run, Spec(), Space(lr=values(0.1)), {"lr": 0.1, "opt": OPT.with_default("muon")}, quiet=True
    )
    assert int(plain.dataset["code"].item()) == 2
    zds = sweep(
        code_run, Spec(), Space(p=zipped(opt=["sgd", "muon"], lr=[0.1, 0.2])), params, quiet=True
    ).dataset
    assert zds["opt"].values.tolist() == ["sgd", "muon"] and zds["code"].values.ravel().tolist() == [1, 2]


def test_label_mistakes_fail_before_compiling():
    before = COUNTER.n
    with pytest.raises(SpaceError, match="unknown label 'rmsprop'"):
        sweep(code_run, Spec(), Space(opt=values("adam", "rmsprop")), {"opt": OPT}, quiet=True)
    with pytest.raises(SpaceError, match="has the label 'adam' as its default"):
        sweep(code_run, Spec(), Space(lr=values(0.1)), {"lr": 0.1, "opt": "adam"}, quiet=True)
    with pytest.raises(SpaceError, match="paired names 'opt', which is not an axis"):
        sweep(code_run, Spec(), Space(lr=values(0.1), paired=("opt",)), {"lr": 0.1, "opt": OPT}, quiet=True)
    assert COUNTER.n == before


# -- overhead: lane keys in bulk, results.nc laid out while the device computes ---------


def test_lane_key_table_equals_lane_key_data_lane_for_lane():
    configs = [
        {
            "lr": np.float64(lr),
            "opt": opt,
            "flag": flag,
            "n": n,
            "shape": (2, 3),
            'q"uoted': 'ü"\\',
            "nan": float("nan"),
        }
        for lr in np.geomspace(1e-4, 3.0, 5)
        for opt in ("adam", np.str_("sgd"))
        for flag in (True, np.bool_(False))
        for n in (3, np.int64(-7))
    ]
    configs += [{}, {"lr": 0.1}, {"lr": np.float32(0.1)}]  # float32 0.1 is another value
    for seeds, base in ((1, 0), (3, 7)):
        want = np.stack([lane_key_data(c, s, base) for c in configs for s in range(seeds)])
        got = lane_key_table(configs, seeds, base)
        assert got.dtype == np.uint32 and got.shape == (len(configs) * seeds, 2)
        np.testing.assert_array_equal(got, want)
    assert len({tuple(r) for r in lane_key_table(configs, 3, 0)}) == len(configs) * 3


@dataclasses.dataclass(frozen=True)
class WideSpec:
    dim: int = 3
    steps: int = 6


def wide_run(spec, params, key):
    """Metrics of a size set by a static axis (groups align by an outer join), an integer
    metric, a categorical code, and divergence for a large lr."""
    x, losses, div = guarded_scan(
        lambda x, t: (
            x * (1 + params["lr"]) + 0.1 * jax.random.normal(jax.random.fold_in(key, t), x.shape),
            jnp.sum(x * x),
        ),
        jnp.ones(spec.dim),
        jnp.arange(spec.steps),
    )
    return {
        "x": x,
        "loss": losses,
        "count": jnp.sum(x > 0).astype(jnp.int32),
        "code": params["opt"],
        "diverged_step": div,
    }


def _wide(tmp, lrs=(0.1, 1e30), labels=("sgd", "muon"), **kw):
    space = Space(
        lr=values(*lrs),
        opt=values(*labels),
        dim=static(2, 3),
        p=zipped(scale=[1.0, 2.0], w=[3, 4]),
        seeds=2,
        paired=("lr",),
    )
    return sweep(
        wide_run,
        WideSpec(),
        space,
        {"lr": 0.1, "opt": OPT, "scale": 1.0, "w": 0},
        metric_dims={"x": ("i",), "loss": ("step",)},
        run_dir=tmp,
        quiet=True,
        **kw,
    )


def _on_disk(path):
    ds = xr.open_dataset(path, engine="h5netcdf").load()
    ds.close()
    # repr: a NaN fill value equals itself
    return ds, {
        k: repr(sorted((e, v) for e, v in var.encoding.items() if e != "source"))
        for k, var in ds.variables.items()
    }


@pytest.fixture
def netcdf_writes(monkeypatch):
    """The paths written by xarray itself (not copied from a stored layout); no layouts stored yet."""
    from jaxtheory.sweep import store

    monkeypatch.setattr(store, "_LAYOUTS", {})
    direct = []
    write = store._to_netcdf
    monkeypatch.setattr(store, "_to_netcdf", lambda ds, path: (direct.append(path), write(ds, path)))
    return direct


def test_results_of_a_known_layout_are_copied_and_equal_a_direct_write(tmp_path, netcdf_writes):
    from jaxtheory.sweep import store

    first = _wide(tmp_path / "a", chunk=4)
    assert len(netcdf_writes) == 1
    # other values of every numeric coordinate, other metrics, another manifest attribute
    res = _wide(tmp_path / "b", lrs=(0.2, 1e29), chunk=4)
    assert res.manifest["chunks_run"] == 8 and len(netcdf_writes) == 1  # copied, values replaced
    assert (res.dataset["status"] == 1).any() and res.dataset["x"].isnull().any()  # diverged, outer-joined
    assert res.dataset.attrs["manifest"] != first.dataset.attrs["manifest"]
    assert not [p for p in tmp_path.rglob("*.tmp")]
    store._to_netcdf(res.dataset, str(tmp_path / "direct.nc"))
    got, got_enc = _on_disk(tmp_path / "b" / "results.nc")
    want, want_enc = _on_disk(tmp_path / "direct.nc")
    xr.testing.assert_identical(got, want)  # values, dims, coords, attrs (the manifest) and dtypes
    assert got_enc == want_enc
    xr.testing.assert_identical(got, res.dataset)
    xr.testing.assert_identical(_on_disk(tmp_path / "a" / "results.nc")[0], first.dataset)


def test_results_of_another_layout_are_written_by_xarray(tmp_path, netcdf_writes):
    _wide(tmp_path / "a")
    res = _wide(tmp_path / "b", labels=("adam", "muon"))  # a string coordinate's values differ
    assert len(netcdf_writes) == 2
    xr.testing.assert_identical(_on_disk(tmp_path / "b" / "results.nc")[0], res.dataset)

    def flags(spec, params, key):  # booleans are stored encoded: never refilled
        return {"pos": jax.random.normal(key, (spec.dim,)) > 0}

    for i, lrs in enumerate([(0.1, 0.2), (0.3, 0.4)]):
        res = sweep(
            flags, Spec(), Space(lr=values(*lrs), seeds=2), PARAMS, run_dir=tmp_path / f"f{i}", quiet=True
        )
        back = open_results(tmp_path / f"f{i}")
        assert back["pos"].dtype == bool
        xr.testing.assert_identical(back, res.dataset)
    assert len(netcdf_writes) == 4


def test_a_stored_layout_that_does_not_fit_is_dropped(tmp_path, netcdf_writes):
    from jaxtheory.sweep import store

    ds = xr.Dataset({"a": ("i", np.arange(3.0))}, coords={"i": np.arange(3)}, attrs={"note": "one"})
    store.write_dataset(tmp_path / "a.nc", ds)
    (key,) = store._LAYOUTS
    other = xr.Dataset({"b": ("j", np.arange(5.0))})  # a file of another layout under that key
    store._to_netcdf(other, str(tmp_path / "other.nc"))
    store._LAYOUTS[key] = (tmp_path / "other.nc").read_bytes()
    again = ds.assign(a=("i", np.array([7.0, 8.0, 9.0]))).assign_attrs(note="two")
    store.write_dataset(tmp_path / "b.nc", again)
    assert len(netcdf_writes) == 3 and store._LAYOUTS[key] != (tmp_path / "other.nc").read_bytes()
    xr.testing.assert_identical(_on_disk(tmp_path / "b.nc")[0], again)
    store.write_dataset(tmp_path / "c.nc", ds)  # and the fresh layout is used
    assert len(netcdf_writes) == 3
    xr.testing.assert_identical(_on_disk(tmp_path / "c.nc")[0], ds)


def test_metric_dims_of_the_wrong_length_fail_before_compiling():
    before = COUNTER.n
    with pytest.raises(ValueError, match=r"metric 'loss' has shape \(20,\) but metric_dims names"):
        sweep(run, Spec(), Space(lr=values(0.1)), PARAMS, metric_dims={"loss": ("step", "extra")}, quiet=True)
    assert COUNTER.n == before
