"""The command line: list, run -> show -> report round trip, and bad input."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import jax.numpy as jnp
import pytest

from jaxtheory import Experiment, Paper, Preset
from jaxtheory.cli import build_parser, main
from jaxtheory.sweep import Space, values


def test_list(capsys):
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    assert "noisy-quadratic" in text and "smoke" in text and "full" in text


def test_python_dash_m_works():
    r = subprocess.run([sys.executable, "-m", "jaxtheory", "list"], capture_output=True, text=True)
    assert r.returncode == 0 and "noisy-quadratic" in r.stdout


def test_run_show_report_round_trip_on_smoke_preset(tmp_path, capsys):
    assert (
        main(["run", "noisy-quadratic", "--preset", "smoke", "--out", str(tmp_path), "--quiet", "--check"])
        == 0
    )
    run_dir = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert run_dir.parent == tmp_path / "noisy-quadratic"
    for name in ("results.nc", "manifest.json", "claims.json"):
        assert (run_dir / name).exists()
    claims = json.loads((run_dir / "claims.json").read_text())
    assert {c["name"] for c in claims} == {
        "sgd-stationary-risk",
        "heavy-ball-stationary-risk",
        "sgd-stability-threshold",
        "heavy-ball-stability-threshold",
    }
    for c in claims:
        assert set(c) >= {
            "name",
            "expected",
            "measured",
            "tolerance",
            "passed",
            "verdict",
            "interval",
            "n",
            "source",
        }
        assert c["passed"] and c["verdict"] == "pass", c

    assert main(["show", str(run_dir)]) == 0
    shown = capsys.readouterr().out
    assert "claims     4: 4 pass" in shown and "lanes      36864" in shown
    assert "[PASS] sgd-stationary-risk (lit): expected = 1 ± 0.05" in shown and "n=256" in shown
    assert "devices    1 x cpu" in shown

    assert main(["report", str(run_dir)]) == 0
    written = capsys.readouterr().out.split()
    assert len(written) == 6
    for p in written:
        assert Path(p).stat().st_size > 1000
    assert (run_dir / "figures" / "divergence.svg").read_text().lstrip().startswith("<?xml")

    # rerunning resumes: nothing is recomputed
    assert main(["run", "noisy-quadratic", "--out", str(tmp_path), "--quiet"]) == 0
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["chunks_run"] == 0 and manifest["compiles"] == 0


def test_set_overrides_axes(tmp_path, capsys):
    code = main(
        [
            "run",
            "noisy-quadratic",
            "--out",
            str(tmp_path),
            "--quiet",
            "--set",
            "lr=log(0.1,1,2)",
            "--set",
            "momentum=0",
            "--set",
            "noise=1.0",
            "--set",
            "dim=4",
            "--set",
            "seeds=2",
            "--set",
            "steps=400",
        ]
    )
    assert code == 0
    run_dir = Path(capsys.readouterr().out.strip().splitlines()[-1])
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["lanes"] == 4 and m["space"]["seeds"] == 2
    # two seeds form no interval: the stationary-risk claims are inconclusive, which
    # --check lets through and --strict does not
    claims = {c["name"]: c["verdict"] for c in json.loads((run_dir / "claims.json").read_text())}
    assert claims["sgd-stationary-risk"] == "inconclusive"
    args = [
        "run",
        "noisy-quadratic",
        "--out",
        str(tmp_path),
        "--quiet",
        "--set",
        "lr=log(0.1,1,2)",
        "--set",
        "momentum=0",
        "--set",
        "noise=1.0",
        "--set",
        "dim=4",
        "--set",
        "seeds=2",
        "--set",
        "steps=400",
    ]
    assert main(args + ["--check"]) == 0
    assert main(args + ["--strict"]) == 1
    assert "claims inconclusive: sgd-stationary-risk" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["run", "no-such-experiment"], "no experiment named 'no-such-experiment'"),
        (["run", "noisy-quadratic", "--preset", "huge"], "has no preset 'huge'"),
        (["run", "noisy-quadratic", "--set", "lr=__import__('os').system('true')"], "cannot parse value"),
        (["run", "noisy-quadratic", "--set", "nope=1,2"], "axis 'nope' is not a parameter"),
        (["run", "noisy-quadratic", "--set", "lr=log(0,1,4)"], "a log axis needs positive bounds"),
        (["run", "noisy-quadratic", "--set", "seeds=0"], "seeds must be a positive integer"),
        (["run", "noisy-quadratic", "--chunk", "0"], "--chunk must be a positive integer"),
        (["show", "/nonexistent/run"], "not a finished run directory"),
    ],
)
def test_bad_input_is_a_clear_error(argv, message, capsys, tmp_path):
    assert main(argv + (["--out", str(tmp_path)] if argv[0] == "run" else [])) == 2
    assert message in capsys.readouterr().err


def _labelled_experiment():
    import dataclasses

    import jax

    from jaxtheory import Experiment, Paper, Preset
    from jaxtheory.sweep import Space, categorical, values

    @dataclasses.dataclass(frozen=True)
    class Spec:
        dim: int = 2

    opt = categorical("adam", "sgd", "muon")

    def run(spec, params, key):
        return {"code": params["opt"], "z": jax.random.normal(key, (spec.dim,))}

    return Experiment(
        name="labelled",
        paper=Paper("A test paper"),
        run=run,
        spec=Spec(),
        params={"lr": 0.1, "opt": opt},
        presets={
            "smoke": Preset(
                Space(opt=values("adam", "muon"), lr=values(0.1, 0.2), seeds=2, paired=("opt", "lr"))
            )
        },
    )


def test_categorical_labels_and_pairing_survive_run_results_and_show(tmp_path, capsys, monkeypatch):
    import jaxtheory.registry as reg
    from jaxtheory.sweep import open_results

    exp = _labelled_experiment()
    monkeypatch.setattr(reg, "experiments", lambda: {exp.name: exp})
    assert (
        main(
            [
                "run",
                "labelled",
                "--out",
                str(tmp_path),
                "--quiet",
                "--set",
                "opt=sgd,adam",
                "--set",
                "lr=0.1,0.3,0.2",
            ]
        )
        == 0
    )
    run_dir = Path(capsys.readouterr().out.strip().splitlines()[-1])
    ds = open_results(run_dir)
    assert ds["opt"].values.tolist() == ["sgd", "adam"]
    assert ds["code"].sel(opt="sgd").values.ravel().tolist() == [1] * 6  # codes of the declaration
    assert ds["code"].sel(opt="adam").values.ravel().tolist() == [0] * 6
    # --set kept the pairing: one draw per seed across every opt and lr
    z = ds["z"].transpose("seed", ...).values.reshape(2, -1, 2)
    assert (z == z[:, :1]).all() and not (z[0] == z[1]).all()
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["space"]["paired"] == ["lr", "opt"]
    assert main(["show", str(run_dir)]) == 0
    shown = capsys.readouterr().out
    assert "values[sgd, adam] -> 2 values (categorical, codes sgd=1, adam=0)" in shown
    assert "paired           lr, opt" in shown
    assert main(["run", "labelled", "--out", str(tmp_path), "--quiet", "--set", "opt=adam,rmsprop"]) == 2
    assert "unknown label 'rmsprop'; parameter 'opt' takes adam, sgd, muon" in capsys.readouterr().err


# ------------------------------------------------------------------ run errors vs usage errors
@dataclasses.dataclass(frozen=True)
class _Spec:
    n: int = 3


def _raising_run(spec, params, key):
    raise ValueError("the simulator broke")  # FAILING LINE (raise)


def _jax_error_run(spec, params, key):
    return {"x": jnp.ones(spec.n) + jnp.ones(spec.n + 1)}  # FAILING LINE (jax)


def _failing_experiment(run):
    return Experiment(
        name="broken",
        paper=Paper(title="none"),
        run=run,
        spec=_Spec(),
        params={"a": 0.0},
        presets={"smoke": Preset(Space(a=values(1.0, 2.0), seeds=1))},
    )


def _line_of(marker: str) -> int:
    lines = Path(__file__).read_text().splitlines()
    return next(i + 1 for i, t in enumerate(lines) if t.rstrip().endswith(f"# FAILING LINE ({marker})"))


@pytest.mark.parametrize(
    "run,marker,kind", [(_raising_run, "raise", "ValueError"), (_jax_error_run, "jax", "TypeError")]
)
def test_an_exception_inside_the_simulator_is_a_run_error(run, marker, kind, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("jaxtheory.registry.load_experiment", lambda name: _failing_experiment(run))
    assert main(["run", "broken", "--out", str(tmp_path), "--quiet", "--no-cache"]) == 1
    err = capsys.readouterr().err
    where = f"test_cli.py:{_line_of(marker)} in {run.__name__} ({__name__})"
    assert "run failed" in err and where in err and kind in err, err
    assert "usage:" not in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 2  # the message and the traceback hint


def test_bad_set_values_stay_usage_errors(monkeypatch, capsys, tmp_path):
    # the same broken experiment: a malformed --set is found before its simulator runs
    monkeypatch.setattr("jaxtheory.registry.load_experiment", lambda name: _failing_experiment(_raising_run))
    for sets in (["a=log(0,1,4)"], ["nope=1,2"], ["a=1,,2"]):
        argv = ["run", "broken", "--out", str(tmp_path), "--quiet", "--no-cache"]
        assert main(argv + [x for s in sets for x in ("--set", s)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("jaxtheory: error:") and "run failed" not in err, err


# ------------------------------------------------------------------ compilation-cache flags
@pytest.mark.parametrize(
    "argv,expect",
    [
        ([], ("enable", None)),
        (["--cache-dir", "/tmp/somewhere"], ("enable", "/tmp/somewhere")),
        (["--no-cache"], ("disable",)),
    ],
)
def test_cache_flags(argv, expect, monkeypatch):
    import jaxtheory.cli as cli
    from jaxtheory import compile_cache

    calls = []
    monkeypatch.setattr(compile_cache, "enable_compile_cache", lambda d=None: calls.append(("enable", d)))
    monkeypatch.setattr(compile_cache, "disable_compile_cache", lambda: calls.append(("disable",)))
    for cmd in (["run", "noisy-quadratic"], ["docs", "build"]):
        cli._configure_cache(build_parser().parse_args(cmd + argv))
    assert calls == [expect, expect]
    with pytest.raises(SystemExit):  # the two flags exclude each other
        build_parser().parse_args(["run", "x", "--no-cache", "--cache-dir", "d"])


def test_a_preset_chunk_is_the_default_and_an_explicit_chunk_wins(tmp_path):
    import dataclasses as dc

    exp = _labelled_experiment()
    smoke = exp.presets["smoke"]
    exp = dc.replace(exp, presets={"smoke": dc.replace(smoke, chunk=2)})
    assert exp.sweep("smoke", out=tmp_path / "a", quiet=True).manifest["chunk_size"] == 2
    assert exp.sweep("smoke", out=tmp_path / "b", quiet=True, chunk=4).manifest["chunk_size"] == 4
