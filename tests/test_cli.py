"""The command line: list, run -> show -> report round trip, and bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jaxtheory.cli import main


def test_list(capsys):
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    assert "noisy-quadratic" in text and "smoke" in text and "full" in text


def test_python_dash_m_works():
    r = subprocess.run([sys.executable, "-m", "jaxtheory", "list"], capture_output=True, text=True)
    assert r.returncode == 0 and "noisy-quadratic" in r.stdout


def test_run_show_report_round_trip_on_smoke_preset(tmp_path, capsys):
    assert main(["run", "noisy-quadratic", "--preset", "smoke", "--out", str(tmp_path),
                 "--quiet", "--check"]) == 0
    run_dir = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert run_dir.parent == tmp_path / "noisy-quadratic"
    for name in ("results.nc", "manifest.json", "claims.json"):
        assert (run_dir / name).exists()
    claims = json.loads((run_dir / "claims.json").read_text())
    assert {c["name"] for c in claims} == {
        "sgd-stationary-risk", "heavy-ball-stationary-risk",
        "sgd-stability-threshold", "heavy-ball-stability-threshold"}
    for c in claims:
        assert set(c) >= {"name", "expected", "measured", "tolerance", "passed", "verdict",
                          "interval", "n", "source"}
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
    code = main(["run", "noisy-quadratic", "--out", str(tmp_path), "--quiet",
                 "--set", "lr=log(0.1,1,2)", "--set", "momentum=0", "--set", "noise=1.0",
                 "--set", "dim=4", "--set", "seeds=2", "--set", "steps=50"])
    assert code == 0
    run_dir = Path(capsys.readouterr().out.strip().splitlines()[-1])
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["lanes"] == 4 and m["space"]["seeds"] == 2
    # two seeds form no interval: the stationary-risk claims are inconclusive, which
    # --check lets through and --strict does not
    claims = {c["name"]: c["verdict"] for c in json.loads((run_dir / "claims.json").read_text())}
    assert claims["sgd-stationary-risk"] == "inconclusive"
    args = ["run", "noisy-quadratic", "--out", str(tmp_path), "--quiet", "--set", "lr=log(0.1,1,2)",
            "--set", "momentum=0", "--set", "noise=1.0", "--set", "dim=4", "--set", "seeds=2",
            "--set", "steps=50"]
    assert main(args + ["--check"]) == 0
    assert main(args + ["--strict"]) == 1
    assert "claims inconclusive: sgd-stationary-risk" in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["run", "no-such-experiment"], "no experiment named 'no-such-experiment'"),
    (["run", "noisy-quadratic", "--preset", "huge"], "has no preset 'huge'"),
    (["run", "noisy-quadratic", "--set", "lr=__import__('os').system('true')"], "cannot parse value"),
    (["run", "noisy-quadratic", "--set", "nope=1,2"], "axis 'nope' is not a parameter"),
    (["run", "noisy-quadratic", "--set", "lr=log(0,1,4)"], "a log axis needs positive bounds"),
    (["run", "noisy-quadratic", "--set", "seeds=0"], "seeds must be a positive integer"),
    (["run", "noisy-quadratic", "--chunk", "0"], "--chunk must be a positive integer"),
    (["show", "/nonexistent/run"], "not a finished run directory"),
])
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
        name="labelled", paper=Paper("A test paper"), run=run, spec=Spec(),
        params={"lr": 0.1, "opt": opt},
        presets={"smoke": Preset(Space(opt=values("adam", "muon"), lr=values(0.1, 0.2), seeds=2,
                                       paired=("opt", "lr")))})


def test_categorical_labels_and_pairing_survive_run_results_and_show(tmp_path, capsys, monkeypatch):
    import jaxtheory.registry as reg
    from jaxtheory.sweep import open_results

    exp = _labelled_experiment()
    monkeypatch.setattr(reg, "experiments", lambda: {exp.name: exp})
    assert main(["run", "labelled", "--out", str(tmp_path), "--quiet", "--set", "opt=sgd,adam",
                 "--set", "lr=0.1,0.3,0.2"]) == 0
    run_dir = Path(capsys.readouterr().out.strip().splitlines()[-1])
    ds = open_results(run_dir)
    assert ds["opt"].values.tolist() == ["sgd", "adam"]
    assert ds["code"].sel(opt="sgd").values.ravel().tolist() == [1] * 6   # codes of the declaration
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
