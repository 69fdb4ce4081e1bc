"""The experiment layer: re-judging without re-simulating, one shape of results,
experiments loaded from a file, a module or an installed package's entry point, and a
declared simulator."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from jaxtheory import Experiment, Paper, Preset, Simulator
from jaxtheory.registry import experiments, load_experiment
from jaxtheory.sweep import Space, categorical, store, values

ROOT = Path(__file__).resolve().parents[1]

SIM = """
import dataclasses
import jax
import jax.numpy as jnp
from jaxtheory import Simulator


@dataclasses.dataclass(frozen=True)
class Spec:
    n: int = 3


def run(spec, params, key):
    return {{"y": {scale} * params["a"] + 0.01 * jax.random.normal(key, (spec.n,))}}


SIMULATOR = Simulator(run, spec=Spec(), params={{"a": 0.0}}, metric_dims={{"y": ("i",)}})
"""

EXP = """
from jaxtheory import Claim, Experiment, Paper, Preset
from jaxtheory.sweep import Space, values
import tinysim


def mean_y(ds, spec):
    return ds["y"].mean("i")


EXPERIMENT = Experiment(
    name="tiny-exp",
    paper=Paper("A tiny experiment"),
    simulator=tinysim.SIMULATOR,
    presets={{"smoke": Preset(Space(a=values(1.0, 2.0), seeds=8))}},
    claims=[Claim.at_most("bounded", {statement!r}, mean_y, 10.0, source="proposed")],
)
"""

JOB = """
import json, sys
from jaxtheory.registry import load_experiment
exp = load_experiment(sys.argv[1])
run = exp.sweep("smoke", out=sys.argv[2], quiet=True)
print(json.dumps({"dir": str(run.run_dir), "chunks_run": run.manifest["chunks_run"],
                  "rejudged": run.rejudged, "statement": run.claims[0].statement,
                  "origin": run.manifest["origin"]}))
"""


def _env(**extra):
    return dict(os.environ, JAX_PLATFORMS="cpu", OMP_NUM_THREADS="1", **extra)


def _py(*args, cwd=None, env=None):
    r = subprocess.run([sys.executable, *args], cwd=cwd, env=env or _env(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def _write(tmp_path, scale="1.0", statement="The mean stays below 10."):
    (tmp_path / "tinysim.py").write_text(SIM.format(scale=scale))
    (tmp_path / "tiny_exp.py").write_text(EXP.format(statement=statement))
    (tmp_path / "job.py").write_text(JOB)


def _job(tmp_path):
    out = _py(str(tmp_path / "job.py"), str(tmp_path / "tiny_exp.py"), str(tmp_path / "runs"), cwd=tmp_path)
    return json.loads(out.strip().splitlines()[-1])


def test_editing_a_claim_rejudges_and_editing_the_simulator_recomputes(tmp_path):
    _write(tmp_path)
    first = _job(tmp_path)
    assert first["chunks_run"] > 0 and not first["rejudged"]
    assert first["origin"] == str(tmp_path / "tiny_exp.py")

    # a claim's statement is judgement: same run directory, no lane computed, re-judged
    _write(tmp_path, statement="The mean of y stays below 10.")
    second = _job(tmp_path)
    assert second["dir"] == first["dir"]
    assert second["chunks_run"] == 0 and second["rejudged"]
    assert second["statement"] == "The mean of y stays below 10."
    stored = json.loads((Path(second["dir"]) / "claims.json").read_text())
    assert stored[0]["statement"] == "The mean of y stays below 10."

    # rerun unchanged: nothing computed, nothing to re-judge
    third = _job(tmp_path)
    assert third["dir"] == first["dir"] and third["chunks_run"] == 0 and not third["rejudged"]

    # the simulator is simulation: a new run directory, computed afresh
    _write(tmp_path, scale="2.0", statement="The mean of y stays below 10.")
    fourth = _job(tmp_path)
    assert fourth["dir"] != first["dir"] and fourth["chunks_run"] > 0


def test_no_experiment_fingerprints_its_judgement_as_simulation():
    """Editing claims, figures, analysis or the experiment module's judgement code never
    changes where a run's results are stored: for every registered experiment, the
    simulation fingerprint holds no judgement module and no whole experiment module."""
    judgement = ("jaxtheory.experiment", "jaxtheory.claims", "jaxtheory.analysis", "jaxtheory.plots")
    judgement += ("jaxtheory.report",)
    for name, exp in experiments().items():
        sim = set(exp.provenance()["modules"])
        assert not [m for m in sim if m.startswith(judgement)], name
        assert not [m for m in sim if m.startswith("sweeps.") and "[" not in m], name
        judged = set(exp.judgement_provenance()["modules"])
        assert {"jaxtheory.claims", "jaxtheory.analysis", "jaxtheory.plots"} <= judged, name


def test_judge_reevaluates_a_stored_run(tmp_path):
    _write(tmp_path)
    first = _job(tmp_path)
    claims = Path(first["dir"]) / "claims.json"
    claims.write_text("[]")
    env = _env(PYTHONPATH=str(tmp_path))
    r = subprocess.run(
        [sys.executable, "-m", "jaxtheory", "judge", first["dir"]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert "re-judged, 0 lanes computed" in r.stderr
    assert [c["name"] for c in json.loads(claims.read_text())] == ["bounded"]


# -- one shape of results ----------------------------------------------------------------


def _sim_run(spec, params, key):
    import jax.numpy as jnp

    return {"y": params["a"] * jnp.ones(spec.n) + params["b"] + params["opt"]}


def test_every_parameter_and_spec_field_is_a_coordinate():
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Spec:
        n: int = 2
        name: str = "x"
        shape: tuple = (1, 2)

    sim = Simulator(
        _sim_run,
        spec=Spec(),
        params={"a": 1.0, "b": 0.5, "opt": categorical("sgd", "adam")},
        metric_dims={"y": ("i",)},
    )
    exp = Experiment(
        name="shapes",
        paper=Paper("t"),
        simulator=sim,
        presets={
            "one": Preset(Space(a=values(1.0, 2.0), seeds=2)),
            "two": Preset(Space(b=values(0.0, 1.0), opt=values("sgd", "adam"), seeds=2)),
        },
        default_preset="one",
    )
    one = exp.sweep("one", out=None, quiet=True).results
    two = exp.sweep("two", out=None, quiet=True).results
    # swept: a 1-D coordinate; not swept: a scalar one with its default (a label for a categorical)
    assert one["a"].dims == ("a",) and two["a"].dims == () and float(two["a"]) == 1.0
    assert one["b"].dims == () and float(one["b"]) == 0.5 and two["b"].dims == ("b",)
    assert str(one["opt"].values) == "sgd" and list(two["opt"].values) == ["sgd", "adam"]
    # spec fields too (a tuple as its label, as a static axis over it would have)
    for ds in (one, two):
        assert int(ds["n"]) == 2 and str(ds["name"].values) == "x" and str(ds["shape"].values) == "(1, 2)"
    # a measure written once reads the value per cell either way
    for ds in (one, two):
        y = ds["y"].isel(i=0, seed=0)
        np.testing.assert_allclose(y, ds["a"] + ds["b"] + (ds["opt"] == "adam"), rtol=1e-6)


def test_scalar_coordinates_survive_results_nc(tmp_path):
    exp = load_experiment("noisy-quadratic")
    run = exp.sweep("smoke", out=tmp_path, overrides={"lr": values(0.1), "seeds": 2}, quiet=True)
    ds = store.open_results(run.run_dir)
    assert ds["dim"].dims == ("dim",)  # swept by the smoke preset
    assert ds["lr"].dims == ("lr",)
    assert int(ds["steps"]) == exp.resolve("smoke")[0].steps and float(ds["lam_min"]) == 0.1


# -- a declared simulator ------------------------------------------------------------------


def test_experiment_takes_its_contract_from_the_simulator():
    from jaxtheory.sims import quadratic as quad

    exp = load_experiment("noisy-quadratic")
    assert exp.simulator is quad.SIMULATOR
    assert (
        exp.run is quad.run and exp.metric_dims == {"risk": ("step",)} and exp.params == quad.DEFAULT_PARAMS
    )
    # parameters given by the experiment override the simulator's defaults
    e2 = Experiment(
        name="q2",
        paper=Paper("t"),
        simulator=quad.SIMULATOR,
        params={"lr": 0.5},
        presets={"smoke": Preset(Space(seeds=2))},
    )
    assert e2.params["lr"] == 0.5 and e2.params["noise"] == quad.DEFAULT_PARAMS["noise"]
    with pytest.raises(TypeError, match="simulator="):
        Experiment(name="bad", paper=Paper("t"), presets={"smoke": Preset(Space(seeds=2))})
    with pytest.raises(TypeError, match="instance of a frozen dataclass"):
        Simulator(quad.run, spec=quad.QuadraticSpec, params={})


def test_x64_policy_runs_the_sweep_in_float64():
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Spec:
        n: int = 1

    def run(spec, params, key):
        import jax.numpy as jnp

        return {"y": jnp.ones(spec.n) * params["a"]}

    for x64, dtype in ((False, np.float32), (True, np.float64)):
        sim = Simulator(run, spec=Spec(), params={"a": 1.0}, x64=x64)
        exp = Experiment(
            name="x",
            paper=Paper("t"),
            simulator=sim,
            presets={"s": Preset(Space(seeds=1))},
            default_preset="s",
        )
        res = exp.sweep("s", out=None, quiet=True)
        assert res.results["y"].dtype == dtype
        assert res.manifest["code"]["environment"]["x64"] is x64


# -- experiments from anywhere ---------------------------------------------------------------


def test_load_by_name_module_and_file(tmp_path):
    assert load_experiment("noisy-quadratic").origin == "sweeps.noisy_quadratic:EXPERIMENT"
    assert load_experiment("sweeps.noisy_quadratic:EXPERIMENT") is load_experiment("noisy-quadratic")
    _write(tmp_path)
    exp = load_experiment(str(tmp_path / "tiny_exp.py"))
    assert exp.name == "tiny-exp" and exp.origin == str(tmp_path / "tiny_exp.py")
    with pytest.raises(KeyError, match="no experiment named"):
        load_experiment("no-such-experiment")
    with pytest.raises(KeyError, match="no experiment file"):
        load_experiment(str(tmp_path / "missing.py"))


def test_entry_point_experiment_is_listed_beside_the_built_in_ones(tmp_path):
    """An installed package registers an experiment through the entry-point group
    ``jaxtheory.experiments``: installed here as pip would, a distribution's metadata
    (``*.dist-info`` with ``entry_points.txt``) on the path beside the package."""
    site = tmp_path / "site"
    pkg = site / "tinyext"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "tinysim.py").write_text(SIM.format(scale="1.0"))
    (pkg / "exp.py").write_text(
        EXP.format(statement="The mean stays below 10.").replace(
            "import tinysim", "from tinyext import tinysim"
        )
    )
    info = site / "tinyext-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tinyext\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[jaxtheory.experiments]\ntiny-exp = tinyext.exp:EXPERIMENT\n")
    env = _env(PYTHONPATH=str(site))
    out = subprocess.run(
        [sys.executable, "-m", "jaxtheory", "list"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    names = [line.split()[0] for line in out.stdout.splitlines() if line and not line.startswith(" ")]
    assert "tiny-exp" in names and "noisy-quadratic" in names
    assert "tiny-exp  [tinyext.exp:EXPERIMENT]" in out.stdout
    # and it runs, and its run reports, by name
    r = subprocess.run(
        [sys.executable, "-m", "jaxtheory", "run", "tiny-exp", "--out", str(tmp_path / "runs")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    run_dir = r.stdout.strip().splitlines()[-1]
    assert store.read_json(Path(run_dir) / "manifest.json")["origin"] == "tinyext.exp:EXPERIMENT"
    shown = subprocess.run(
        [sys.executable, "-m", "jaxtheory", "show", run_dir],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert shown.returncode == 0 and "bounded" in shown.stdout, shown.stderr


def test_new_writes_an_experiment_that_runs_and_reports_from_an_empty_directory(tmp_path):
    work = tmp_path / "outside"
    work.mkdir()

    def jt(*args):
        r = subprocess.run(
            [sys.executable, "-m", "jaxtheory", *args], cwd=work, env=_env(), capture_output=True, text=True
        )
        assert r.returncode == 0, r.stderr[-3000:]
        return r.stdout.strip().splitlines()

    written = jt("new", "demo")
    assert sorted(Path(p).name for p in written) == ["demo.py", "demo_sim.py"]
    run_dir = jt("run", "./demo.py", "--preset", "smoke", "--check")[-1]
    assert Path(run_dir).parent == Path("runs/demo")
    run_dir = str(work / run_dir)
    claims = json.loads((Path(run_dir) / "claims.json").read_text())
    assert len(claims) == 3 and {c["verdict"] for c in claims} <= {"pass", "inconclusive"}
    figures = jt("report", run_dir)
    assert sorted(Path(p).name for p in figures) == sorted(
        f"{n}.{ext}" for n in ("risk", "final-risk") for ext in ("png", "svg")
    )
    # the template is small enough to read at once
    assert len((work / "demo.py").read_text().splitlines()) <= 90
    # writing over it needs --force
    r = subprocess.run(
        [sys.executable, "-m", "jaxtheory", "new", "demo"],
        cwd=work,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "exists" in r.stderr


def test_new_refuses_a_bad_name(tmp_path):
    from jaxtheory.scaffold import write_experiment

    with pytest.raises(ValueError, match="kebab-case"):
        write_experiment("Not A Name", tmp_path)


def test_needs_makes_a_claim_not_applicable_with_the_missing_values():
    import xarray as xr

    from jaxtheory import Claim, needs

    ds = xr.Dataset(
        {"loss": (("hint", "seed"), np.arange(16.0).reshape(2, 8))},
        coords={"hint": ["drift", "a0.5"], "dim": 200},
    )

    def claim(requires):
        return Claim.at_most(
            "c",
            "The loss is at most 100.",
            lambda ds, s: ds["loss"],
            100.0,
            source="proposed",
            requires=requires,
        )

    assert claim(needs(hint="drift", dim=200)).evaluate(ds, None).verdict == "pass"
    res = claim(needs(hint=("drift", "coarse", "t89"))).evaluate(ds, None)
    assert res.verdict == "not-applicable"
    assert res.reason == "the preset runs no hint coarse, t89"
    assert claim(needs(dim=100)).evaluate(ds, None).verdict == "not-applicable"
    assert claim(needs(lambda ds, s: ds.sizes["hint"] > 2, "fewer than 3 hints")).evaluate(
        ds, None
    ).verdict == ("not-applicable")
    assert claim(needs(noise=0.1)).evaluate(ds, None).verdict == "not-applicable"  # no such coordinate
    with pytest.raises(TypeError, match="pair"):
        needs("hint")
