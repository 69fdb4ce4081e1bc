"""The persistent compilation cache: a second process loads what the first compiled.

Each case runs in fresh subprocesses (JAX decides once per process whether and where it
caches), with a temporary cache directory, so nothing is written under ``~/.cache`` and
no test depends on another (tests/conftest.py switches the cache off everywhere else).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxtheory.compile_cache import MIN_COMPILE_TIME_S, cpu_tag

ROOT = Path(__file__).resolve().parents[1]

# A tiny sweep that reports JAX's cache events, the cache directory in use and its results.
SCRIPT = r"""
import dataclasses, json
import jax, jax.numpy as jnp, numpy as np

events = {}
jax.monitoring.register_event_listener(
    lambda name, **kw: events.__setitem__(name, events.get(name, 0) + 1))

from jaxtheory.compile_cache import compile_cache_dir
from jaxtheory.sweep import Space, sweep, values


@dataclasses.dataclass(frozen=True)
class Spec:
    n: int = 8
    steps: int = 20


def run(spec, params, key):
    def body(x, k):
        x = x - params["lr"] * (x + jax.random.normal(k, x.shape))
        return x, jnp.sum(x * x)

    _, loss = jax.lax.scan(body, jnp.ones(spec.n), jax.random.split(key, spec.steps))
    return {"loss": loss}


res = sweep(run, Spec(), Space(lr=values(0.1, 0.2), seeds=2), {"lr": 0.1}, quiet=True)
d = compile_cache_dir()
print(json.dumps({
    "hits": events.get("/jax/compilation_cache/cache_hits", 0),
    "misses": events.get("/jax/compilation_cache/cache_misses", 0),
    "dir": None if d is None else str(d),
    "min_compile_s": jax.config.jax_persistent_cache_min_compile_time_secs,
    "loss": np.asarray(res.dataset["loss"]).ravel().tolist(),
}))
"""


def _env(**extra):
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "JAXTHEORY_CACHE",
            "JAXTHEORY_CACHE_DIR",
            "JAX_COMPILATION_CACHE_DIR",
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
        )
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.update({k: str(v) for k, v in extra.items()})
    return env


def _sweep(env) -> dict:
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def _files(d: Path) -> list[Path]:
    return [p for p in d.rglob("*") if p.is_file()] if d.exists() else []


def test_second_process_hits_the_cache_and_gets_the_same_results(tmp_path):
    cache = tmp_path / "cache"
    # min compile time 0: the tiny programs here compile in milliseconds; a value the user
    # sets wins over jaxtheory's own default
    env = _env(JAXTHEORY_CACHE_DIR=cache, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0)
    first = _sweep(env)
    assert first["dir"] == str(cache) and first["min_compile_s"] == 0
    assert first["hits"] == 0 and first["misses"] >= 1
    assert _files(cache)
    second = _sweep(env)
    assert second["hits"] >= 1 and second["misses"] == 0
    # the same executable (loaded instead of compiled) on the same inputs: equal bits
    assert second["loss"] == first["loss"]


def test_switched_off_by_the_environment(tmp_path):
    cache = tmp_path / "cache"
    out = _sweep(
        _env(JAXTHEORY_CACHE=0, JAXTHEORY_CACHE_DIR=cache, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0)
    )
    assert out["dir"] is None and out["hits"] == 0
    assert not _files(cache)


def test_default_directory_and_minimum_compile_time(tmp_path):
    # no JAXTHEORY_CACHE_DIR: $XDG_CACHE_HOME/jaxtheory/jax/<cpu>, and jaxtheory's own minimum
    out = _sweep(_env(XDG_CACHE_HOME=tmp_path / "xdg"))
    assert out["dir"] == str(tmp_path / "xdg" / "jaxtheory" / "jax" / cpu_tag())
    assert out["min_compile_s"] == pytest.approx(MIN_COMPILE_TIME_S)


@pytest.mark.parametrize("flag", ["--cache-dir", "--no-cache"])
def test_cli_flags(flag, tmp_path):
    given, by_env = tmp_path / "given", tmp_path / "env"
    argv = [
        sys.executable,
        "-m",
        "jaxtheory",
        "run",
        "noisy-quadratic",
        "--quiet",
        "--out",
        str(tmp_path / "runs"),
        "--set",
        "lr=0.1",
        "--set",
        "momentum=0",
        "--set",
        "dim=2",
        "--set",
        "steps=20",
        "--set",
        "seeds=1",
    ]
    argv += [flag, str(given)] if flag == "--cache-dir" else [flag]
    env = _env(JAXTHEORY_CACHE_DIR=by_env, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0)
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert not _files(by_env)  # the flag wins over the environment
    assert bool(_files(given)) == (flag == "--cache-dir")


def test_cpu_tag_separates_instruction_sets_and_ignores_their_order(monkeypatch):
    """Programs compiled for one CPU's features never share a default directory with another's."""
    import builtins
    import io

    real_open = builtins.open

    def fake(flags):
        def opener(path, *a, **k):
            if str(path) == "/proc/cpuinfo":
                return io.StringIO(f"processor\t: 0\nmodel name\t: X\nflags\t\t: {flags}\n")
            return real_open(path, *a, **k)

        return opener

    tags = {}
    for name, flags in {
        "avx512": "fpu sse2 avx2 avx512f avx512bw",
        "reordered": "avx512bw avx512f avx2 sse2 fpu",
        "avx2": "fpu sse2 avx2",
    }.items():
        monkeypatch.setattr(builtins, "open", fake(flags))
        tags[name] = cpu_tag()
    monkeypatch.setattr(builtins, "open", real_open)
    assert tags["avx512"] == tags["reordered"] != tags["avx2"]
