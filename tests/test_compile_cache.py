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

import os
from jaxtheory.compile_cache import compile_cache_dir, enable_compile_cache
from jaxtheory.sweep import Space, sweep, values

if os.environ.get("UNCHECKED_READS") == "1":  # control: JAX's own cache reads, unchecked
    from jax._src import compilation_cache

    enable_compile_cache()
    compilation_cache.get_executable_and_time = compilation_cache.get_executable_and_time.__wrapped__


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
    return {**json.loads(r.stdout.strip().splitlines()[-1]), "stderr": r.stderr}


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


def _host_target() -> bytes | None:
    import jax

    from jaxtheory.compile_cache import _read_host_target

    return _read_host_target(jax.devices("cpu")[0].client)


def _forge(cache: Path, target: bytes) -> str:
    """Rewrite every stored program as if compiled on a CPU with one more instruction set.

    The first feature the host's target lists as absent (``-x``) becomes present (``+x``),
    in place (same length, so the stored protocol buffer stays valid). Returns ``x``.
    """
    from jax._src import compilation_cache as cc

    from jaxtheory.compile_cache import _fields

    features = dict(_fields(target))[3]
    name = next(f[1:] for f in features.split(b",") if f.startswith(b"-"))
    forged = target.replace(b",-" + name + b",", b",+" + name + b",", 1)
    assert forged != target and len(forged) == len(target)
    n = 0
    for f in cache.glob("*-cache"):
        blob = cc.decompress_executable(f.read_bytes())
        if target in blob:
            f.write_bytes(cc.compress_executable(blob.replace(target, forged)))
            n += 1
    assert n >= 1
    return name.decode()


def test_a_cache_hit_logs_no_sigill_line(tmp_path):
    """A program loaded on the CPU that compiled it prints no error line (XLA's tuning hints)."""
    target = _host_target()
    if target is None:
        pytest.skip("this JAX gives no CPU target to check cached programs against")
    cache = tmp_path / "cache"
    # TF_CPP_MIN_LOG_LEVEL=1: JAX's default (tests/conftest.py sets 3, which hides errors)
    env = _env(
        JAXTHEORY_CACHE_DIR=cache, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0, TF_CPP_MIN_LOG_LEVEL=1
    )
    first = _sweep(env)
    second = _sweep(env)
    assert second["hits"] >= 1 and second["misses"] == 0
    assert "SIGILL" not in first["stderr"] and "SIGILL" not in second["stderr"]
    # control: JAX's own read of the same programs. On a host with AVX-512, XLA's target
    # carries the tuning hints +prefer-no-gather/+prefer-no-scatter, which its loader
    # reports as missing host features (should a later XLA stop doing so, this fails, and
    # holding its log back is no longer needed)
    control = _sweep({**env, "UNCHECKED_READS": "1"})
    assert control["hits"] >= 1 and control["loss"] == first["loss"]
    assert ("feature +prefer-no-gather" in control["stderr"]) == (b"+prefer-no-gather" in target)


def test_a_program_compiled_for_another_cpu_is_recompiled_not_run(tmp_path):
    """A cached program whose stored CPU target is not this host's is refused and recompiled."""
    target = _host_target()
    if target is None:
        pytest.skip("this JAX gives no CPU target to check cached programs against")
    cache = tmp_path / "cache"
    env = _env(
        JAXTHEORY_CACHE_DIR=cache, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0, TF_CPP_MIN_LOG_LEVEL=1
    )
    first = _sweep(env)
    missing = _forge(cache, target)
    # control: JAX alone loads the forged programs and runs them, with only a log line
    control = _sweep({**env, "UNCHECKED_READS": "1"})
    assert control["hits"] >= 1 and control["misses"] == 0
    assert f"feature +{missing} is not" in control["stderr"] and "SIGILL" in control["stderr"]
    # checked: refused (a warning naming the reason), compiled afresh, the same numbers
    second = _sweep(env)
    assert second["hits"] == 0 and second["misses"] >= 1
    assert "another CPU target" in second["stderr"] and "SIGILL" not in second["stderr"]
    assert second["loss"] == first["loss"]
    # the refused entries were overwritten with this host's programs
    third = _sweep(env)
    assert third["hits"] >= 1 and third["misses"] == 0 and "SIGILL" not in third["stderr"]
    assert third["loss"] == first["loss"]


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
