"""Code provenance: results of other code are never resumed or served.

A tiny experiment lives in a temporary package on disk (``tinypkg.tinysim`` holds the
run function, ``tinypkg.tinyexp`` the experiment importing it), inside a fresh git
repository. Each run is a fresh subprocess, so an edited module is imported afresh.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest

from jaxtheory.report.runs import summarize
from jaxtheory.sweep import Space, code_fingerprint, code_provenance, store, sweep, values
from jaxtheory.sweep.provenance import module_closure

SIM = textwrap.dedent('''
    """A tiny simulator: y = SCALE * a + noise."""
    import dataclasses

    import jax
    import jax.numpy as jnp

    SCALE = {scale}


    @dataclasses.dataclass(frozen=True)
    class Spec:
        n: int = 3


    def run(spec, params, key):
        return {{"y": SCALE * params["a"] + 0.01 * jax.random.normal(key, (spec.n,))}}
''')

EXP = textwrap.dedent("""
    from jaxtheory import Experiment, Paper, Preset
    from jaxtheory.sweep import Space, values

    from tinypkg import tinysim

    EXPERIMENT = Experiment(
        name="tiny", paper=Paper(title="Tiny"), run=tinysim.run, spec=tinysim.Spec(),
        params={"a": 0.0}, metric_dims={"y": ("i",)},
        presets={"smoke": Preset(Space(a=values(1.0, 2.0, 3.0), seeds=2))},
    )
""")

JOB = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from jaxtheory.sweep import Space, sweep, values
    from tinypkg import tinysim
    from tinypkg.tinyexp import EXPERIMENT

    exp = EXPERIMENT.sweep("smoke", out=sys.argv[2], chunk=2, quiet=True)
    # a plain sweep from a script, always into the same directory
    plain = sweep(tinysim.run, tinysim.Spec(), Space(a=values(1.0, 2.0, 3.0), seeds=2), {"a": 0.0},
                  run_dir=sys.argv[3], chunk=2, quiet=True)
    print(json.dumps({
        "exp_dir": str(exp.run_dir),
        "exp": {k: exp.manifest[k] for k in ("chunks_run", "chunks_resumed", "fingerprint", "git")},
        "exp_y": exp.results["y"].values.tolist(),
        "plain": {k: plain.manifest[k] for k in ("chunks_run", "chunks_resumed", "fingerprint", "git")},
        "plain_y": plain.dataset["y"].values.tolist(),
    }))
""")

N_CHUNKS = 3  # 3 configs x 2 seeds in chunks of 2 lanes


def _git(cwd, *args):
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def _write_package(src, scale):
    pkg = src / "tinypkg"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "tinysim.py").write_text(SIM.format(scale=scale))
    (pkg / "tinyexp.py").write_text(EXP)


def _job(tmp_path):
    env = dict(os.environ, JAX_PLATFORMS="cpu", OMP_NUM_THREADS="1")
    r = subprocess.run(
        [
            sys.executable,
            str(tmp_path / "job.py"),
            str(tmp_path / "src"),
            str(tmp_path / "runs"),
            str(tmp_path / "plain"),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_edited_simulator_is_recomputed_and_an_unchanged_rerun_resumes(tmp_path):
    src = tmp_path / "src"
    _write_package(src, scale="1.0")
    (src / ".gitignore").write_text("__pycache__/\n")
    _git(src, "init", "-q")
    _git(src, "add", ".")
    _git(src, "commit", "-q", "-m", "tiny")
    rev = _git(src, "rev-parse", "HEAD")
    (tmp_path / "job.py").write_text(JOB)

    first = _job(tmp_path)
    for k in ("exp", "plain"):
        assert first[k]["chunks_run"] == N_CHUNKS and first[k]["chunks_resumed"] == 0
        assert first[k]["git"] == {"revision": rev, "dirty": False}
    # the experiment's run and the plain sweep compute the same lanes (same keys)
    np.testing.assert_array_equal(first["exp_y"], first["plain_y"])

    # fix the simulator (a constant): the rerun computes afresh and the results change
    _write_package(src, scale="10.0")
    second = _job(tmp_path)
    assert second["exp_dir"] != first["exp_dir"], "the run id covers the code"
    for k in ("exp", "plain"):
        assert second[k]["chunks_run"] == N_CHUNKS and second[k]["chunks_resumed"] == 0, k
        assert second[k]["fingerprint"] != first[k]["fingerprint"]
        assert second[k]["git"] == {"revision": rev, "dirty": True}
    # y = SCALE * a + noise with the same keys: exactly 10x the old mean part; checked
    # with a tolerance because 0.01 * noise is added in float32 after the product
    old, new = np.asarray(first["plain_y"]), np.asarray(second["plain_y"])
    assert not np.allclose(old, new)
    a = np.array([1.0, 2.0, 3.0])[:, None, None]
    np.testing.assert_allclose(new - 10 * a, old - a, atol=1e-5)
    np.testing.assert_array_equal(second["exp_y"], second["plain_y"])
    # the chunk files in the plain sweep's directory were overwritten with the new code
    chunks = sorted((tmp_path / "plain" / "chunks").glob("*.npz"))
    assert len(chunks) == N_CHUNKS
    assert {str(store.load_chunk(p)["__code"]) for p in chunks} == {second["plain"]["fingerprint"]}

    # rerun unchanged: nothing is computed, the results are identical
    third = _job(tmp_path)
    assert third["exp_dir"] == second["exp_dir"]
    for k in ("exp", "plain"):
        assert third[k]["chunks_run"] == 0 and third[k]["chunks_resumed"] == N_CHUNKS, k
        assert third[k]["fingerprint"] == second[k]["fingerprint"]
    assert third["exp_y"] == second["exp_y"] and third["plain_y"] == second["plain_y"]

    # the manifest's history records every call's fingerprint and git state
    m = store.read_json(tmp_path / "plain" / "manifest.json")
    hist = m["history"]
    assert [h["chunks_run"] for h in hist] == [N_CHUNKS, N_CHUNKS, 0]
    assert [h["fingerprint"] for h in hist] == [
        first["plain"]["fingerprint"],
        second["plain"]["fingerprint"],
        second["plain"]["fingerprint"],
    ]
    assert [h["git"] for h in hist] == [{"revision": rev, "dirty": d} for d in (False, True, True)]
    assert "tinypkg.tinysim" in m["code"]["modules"] and "jaxtheory.sweep.engine" in m["code"]["modules"]
    assert m["code"]["environment"]["jax"] == jax.__version__
    # an experiment's simulation fingerprint covers its simulator, not the module holding
    # its claims and figures nor the judgement layer: those have their own fingerprint
    em = store.read_json(os.path.join(third["exp_dir"], "manifest.json"))
    assert "tinypkg.tinysim" in em["code"]["modules"]
    assert not {"tinypkg.tinyexp", "jaxtheory.experiment", "jaxtheory.claims"} & set(em["code"]["modules"])
    assert isinstance(em["judgement"], str) and len(em["judgement"]) == 16

    # `jaxtheory show` says which code produced the run
    shown = summarize(tmp_path / "plain")
    assert f"code       fingerprint {second['plain']['fingerprint']}" in shown
    assert f"git {rev[:12]} (uncommitted changes)" in shown
    assert "2 code fingerprints over the history" in shown


# -- the fingerprint itself ----------------------------------------------------------


def _tree(root):
    """A package with a simulator importing a submodule (absolutely and relatively), and
    an unrelated module nobody imports."""
    files = {
        "fakepkg/__init__.py": "",
        "fakepkg/sub/__init__.py": "",
        "fakepkg/sub/helper.py": "K = 1\n",
        "fakepkg/sub/lazy.py": "L = 1\n",
        "fakepkg/rel.py": "R = 1\n",
        "fakepkg/unrelated.py": "U = 1\n",
        "fakepkg/sim.py": textwrap.dedent("""
            import numpy as np
            from fakepkg.sub.helper import K
            from . import rel

            def run(spec, params, key):
                from fakepkg.sub import lazy  # an import inside a function counts too
                return {"y": K + rel.R + lazy.L}
        """),
        "script_helper.py": "H = 1\n",
        "script.py": "import script_helper\nimport json\n\ndef run(spec, params, key):\n    return {}\n",
        "uses_jaxtheory.py": "from jaxtheory.sims import quadratic\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_closure_follows_imports_inside_the_package_and_nothing_else(tmp_path):
    _tree(tmp_path)
    names = list(module_closure(tmp_path / "fakepkg" / "sim.py"))
    assert names == [
        "fakepkg",
        "fakepkg.rel",
        "fakepkg.sim",
        "fakepkg.sub",
        "fakepkg.sub.helper",
        "fakepkg.sub.lazy",
    ]
    # a script outside any package: its helper module beside it is followed
    assert list(module_closure(tmp_path / "script.py")) == ["script", "script_helper"]
    # jaxtheory is followed from anywhere, as far as the script's imports reach
    names = module_closure(tmp_path / "uses_jaxtheory.py")
    assert {"uses_jaxtheory", "jaxtheory.sims", "jaxtheory.sims.quadratic"} <= set(names)
    # the package facade re-exports the judgement layer: neither it nor what it imports
    assert not {"jaxtheory", "jaxtheory.experiment", "jaxtheory.claims", "jaxtheory.plots"} & set(names)
    assert not [n for n in names if n.startswith("jaxtheory.sims.moe")]


@pytest.mark.parametrize(
    "edit, changes",
    [
        ("fakepkg/sub/helper.py", True),  # imported through `from fakepkg.sub.helper import K`
        ("fakepkg/sub/lazy.py", True),  # imported inside the run function
        ("fakepkg/rel.py", True),  # imported relatively
        ("fakepkg/sub/__init__.py", True),  # runs on importing fakepkg.sub.helper
        ("fakepkg/sim.py", True),
        ("fakepkg/unrelated.py", False),  # imported by nobody
    ],
)
def test_fingerprint_changes_exactly_when_imported_code_changes(tmp_path, edit, changes):
    _tree(tmp_path)
    sim = tmp_path / "fakepkg" / "sim.py"
    before = code_fingerprint(sim)
    assert code_fingerprint(sim) == before
    f = tmp_path / edit
    f.write_text(f.read_text() + "# edited\n")
    assert (code_fingerprint(sim) != before) is changes


def test_fingerprint_of_jaxtheory_modules():
    from jaxtheory.sims import quadratic

    files = module_closure(quadratic.run)
    # the simulator, the packages above it, and what it imports (transitively) are in;
    # simulators it does not import are out
    for name in (
        "jaxtheory.sims",
        "jaxtheory.sims.quadratic",
        "jaxtheory.divergence",
    ):
        assert name in files, name
    # the engine enters where a sweep fingerprints the run with it
    from jaxtheory.sweep.engine import sweep

    assert {"jaxtheory.sweep.engine", "jaxtheory.sweep.provenance"} <= set(
        code_provenance(quadratic.run, sweep)["modules"]
    )
    assert not [n for n in files if n.startswith(("jaxtheory.sims.moe", "jaxtheory.report"))]
    assert not {"jaxtheory", "jaxtheory.experiment", "jaxtheory.claims", "jaxtheory.analysis"} & set(files)
    # the same code in another place has the same fingerprint: paths do not enter it
    p = code_provenance(quadratic.run)
    assert set(p["modules"]) == set(files)
    assert sorted(p["environment"]) == ["flax", "jax", "jaxlib", "numpy", "optax", "x64"]


def test_fingerprint_covers_the_x64_flag():
    from jaxtheory.sims import quadratic

    off = code_fingerprint(quadratic.run)
    with jax.enable_x64(True):
        on = code_fingerprint(quadratic.run)
    assert on != off and code_fingerprint(quadratic.run) == off


def test_a_function_without_a_source_file_is_fingerprinted_by_its_code():
    ns_a, ns_b = {}, {}
    exec("def run(spec, params, key):\n    return {'y': params['a'] * 1.0}\n", ns_a)  # noqa: S102
    exec("def run(spec, params, key):\n    return {'y': params['a'] * 2.0}\n", ns_b)  # noqa: S102
    assert code_fingerprint(ns_a["run"]) != code_fingerprint(ns_b["run"])
    assert code_fingerprint(ns_a["run"]) == code_fingerprint(ns_a["run"])


# -- chunks of other code are not resumed (one or several processes' parts) ----------


def _run(spec, params, key):
    return {"y": params["a"] * jax.numpy.ones(2)}


SPACE = Space(a=values(1.0, 2.0), seeds=2)


def _sweep(run_dir, fingerprint):
    return sweep(_run, None, SPACE, {"a": 0.0}, run_dir=run_dir, chunk=2, quiet=True, fingerprint=fingerprint)


def test_an_explicit_fingerprint_decides_what_resumes(tmp_path):
    assert _sweep(tmp_path, "aaaa").manifest["chunks_run"] == 2
    assert _sweep(tmp_path, "aaaa").manifest["chunks_run"] == 0
    assert _sweep(tmp_path, "bbbb").manifest["chunks_run"] == 2
    assert _sweep(tmp_path, "aaaa").manifest["chunks_run"] == 2
    m = store.read_json(tmp_path / "manifest.json")
    assert m["fingerprint"] == "aaaa"
    assert [h["fingerprint"] for h in m["history"]] == ["aaaa", "aaaa", "bbbb", "aaaa"]
    with pytest.raises(TypeError, match="fingerprint"):
        _sweep(tmp_path, 3)


def _split_parts(run_dir, codes):
    """Rewrite each chunk as two part files (as two processes write them), with the
    given fingerprints (``None``: no ``__code`` at all, as before fingerprints)."""
    for path in sorted((run_dir / "chunks").glob("*_p000.npz")):
        part = store.load_chunk(path)
        for p, code in enumerate(codes):
            half = {k: (v[p::2] if k != "__code" else v) for k, v in part.items()}
            if code is None:
                half.pop("__code")
            else:
                half["__code"] = np.asarray(code)
            store.save_chunk(path.with_name(path.name.replace("_p000", f"_p{p:03d}")), half)


@pytest.mark.parametrize(
    "codes, recomputed",
    [
        (("aaaa", "aaaa"), 0),  # two processes' parts of this code: resumed
        (("aaaa", "old0"), 2),  # one part of other code: the chunk is incomplete
        (("aaaa", None), 2),  # a part written before fingerprints
    ],
)
def test_parts_of_other_code_are_not_used(tmp_path, codes, recomputed):
    first = _sweep(tmp_path, "aaaa")
    _split_parts(tmp_path, codes)
    again = _sweep(tmp_path, "aaaa")
    assert again.manifest["chunks_run"] == recomputed
    np.testing.assert_array_equal(again.dataset["y"].values, first.dataset["y"].values)
    # a recomputed chunk is complete on disk again: the next call resumes it
    assert _sweep(tmp_path, "aaaa").manifest["chunks_run"] == 0


def test_git_fields_outside_a_checkout_and_without_git(tmp_path, monkeypatch):
    outside = (
        subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True)
        if shutil.which("git")
        else None
    )
    if outside is None or outside.returncode != 0:  # tmp_path is not inside a git checkout
        assert store.git_revision(tmp_path) == {"revision": None, "dirty": None}
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on PATH
    assert store.git_revision(tmp_path) == {"revision": None, "dirty": None}


def test_a_stored_closure_is_reused_until_a_file_or_a_searched_directory_changes(tmp_path, monkeypatch):
    import time

    from jaxtheory.sweep import provenance

    # Files written this instant are never trusted (SETTLE_S); with 0 they are, so the
    # test sleeps between writes to land them on other ticks of the file clock.
    monkeypatch.setattr(provenance, "SETTLE_S", 0.0)
    pkg = tmp_path / "cachepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text("K = 1\n")
    sim = pkg / "sim.py"
    sim.write_text("from cachepkg.helper import K\n\ndef run():\n    from cachepkg import later\n")
    walks = []
    walk = provenance._walk
    monkeypatch.setattr(provenance, "_walk", lambda starts: (walks.append(1), walk(starts))[1])
    time.sleep(0.05)
    first = code_provenance(sim)
    assert sorted(first["modules"]) == ["cachepkg", "cachepkg.helper", "cachepkg.sim"] and len(walks) == 1
    assert code_provenance(sim) == first and len(walks) == 1  # unchanged: a stat per file, no walk
    # an edit of the same size, its modification time put back: the change time tells
    mtime = (pkg / "helper.py").stat().st_mtime_ns
    (pkg / "helper.py").write_text("K = 2\n")
    os.utime(pkg / "helper.py", ns=(mtime, mtime))
    second = code_provenance(sim)
    assert len(walks) == 2 and second["fingerprint"] != first["fingerprint"]
    time.sleep(0.05)
    # a module that an import names appears: its directory changed
    (pkg / "later.py").write_text("L = 1\n")
    third = code_provenance(sim)
    assert len(walks) == 3 and "cachepkg.later" in third["modules"]
    # a file modified within SETTLE_S is walked again on every call
    monkeypatch.setattr(provenance, "SETTLE_S", 3600.0)
    code_provenance(sim)
    code_provenance(sim)
    assert len(walks) == 5


# -- slices: part of an experiment's module -------------------------------------------

SLICED = """
import numpy as np
from jaxtheory import Claim

SCALE = {scale}
CAPTION = {caption!r}


def _helper(x):
    return SCALE * x


def run(spec, params, key):
    return {{"y": _helper(params["a"])}}


def measure(ds, spec):  # judgement: not in run's slice
    return ds["y"]


CLAIMS = [Claim.at_most("small", CAPTION, measure, 1.0, source="proposed")]
"""


def test_slice_covers_what_run_reads_and_nothing_else(tmp_path):
    from jaxtheory.sweep.provenance import Slice

    def fp(scale, caption, comment=""):
        f = tmp_path / "exp_mod.py"
        f.write_text(SLICED.format(scale=scale, caption=caption) + comment)
        return code_provenance(Slice(f, ("run",)))

    base = fp("2.0", "a claim")
    assert list(base["modules"]) == ["exp_mod[run]"]
    # the claim's statement, a comment and the judgement code are outside the slice
    assert fp("2.0", "another statement", "\n# a comment\n")["fingerprint"] == base["fingerprint"]
    # a constant the run reads through a helper is inside it
    assert fp("3.0", "a claim")["fingerprint"] != base["fingerprint"]
    # a lambda's source text enters as given
    f = tmp_path / "exp_mod.py"
    a = code_provenance(Slice(f, ("SCALE",), ("lambda spec: 1",)))["fingerprint"]
    b = code_provenance(Slice(f, ("SCALE",), ("lambda spec: 2",)))["fingerprint"]
    assert a != b
