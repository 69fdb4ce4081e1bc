"""The installed jaxlib must not deadlock XLA:CPU on concurrent batched LAPACK calls.

jaxlib 0.10.0-0.11.0 hang (0 % CPU, forever) on the program below: four independent
batched solves and eighs per scan step under vmap, the shape of many sweeps here. On
0.10.2 it hung every time we ran it; on 0.9.2 it finishes in about 10 s on 2 busy
cores. It runs in a subprocess with a timeout, so a hang fails this test instead of
stalling the suite.
"""

import os
import subprocess
import sys
import warnings

import pytest

from jaxtheory._jaxlib_check import deadlock_prone, warn_if_deadlock_prone

PROGRAM = """
import jax, jax.numpy as jnp
def lane(k):
    ks = jax.random.split(k, 4)
    def step(c, _):
        total = 0.0
        for i in range(4):
            a = jax.random.normal(ks[i], (32, 32)) + 32 * jnp.eye(32) + c
            total += jnp.linalg.solve(a, jnp.ones(32)).sum() + jnp.linalg.eigh(a @ a.T)[0][0]
        return jnp.tanh(c + 1e-3 * total), None
    return jax.lax.scan(step, 0.0, None, length=50)[0]
out = jax.jit(jax.vmap(lane))(jax.random.split(jax.random.key(0), 256))
print(bool(jnp.isfinite(out).all()))
"""


@pytest.mark.parametrize(
    "version, prone",
    [
        ("0.9.2", False),
        ("0.10.0", True),
        ("0.10.2", True),
        ("0.11.0", True),
        ("0.11.1", False),
        ("0.11.2", False),
        ("0.4.35", False),
        ("0.10.2.dev20260101", True),
        ("garbage", False),
    ],
)
def test_deadlock_prone_versions(version, prone):
    assert deadlock_prone(version) is prone
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert warn_if_deadlock_prone(version) is prone
    assert len(caught) == int(prone)


def test_installed_jaxlib_is_not_deadlock_prone():
    import jaxlib

    assert not deadlock_prone(jaxlib.__version__), (
        f"jaxlib {jaxlib.__version__} deadlocks XLA:CPU; pyproject.toml excludes it"
    )


def test_concurrent_batched_lapack_finishes():
    try:
        done = subprocess.run(
            [sys.executable, "-c", PROGRAM],
            capture_output=True,
            text=True,
            timeout=180,
            env={**os.environ, "JAX_PLATFORMS": "cpu"},
        )
    except subprocess.TimeoutExpired:
        pytest.fail("concurrent batched LAPACK calls did not finish in 180 s: XLA:CPU deadlock")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "True"


def test_import_switches_the_deadlocking_scheduler_off_unless_the_user_set_it():
    # jaxlib 0.9.2's XLA:CPU deadlocks some programs under the concurrency-optimized
    # scheduler (vlm-objectives-spectral's smoke, every time on an idle 2-core machine):
    # import jaxtheory adds the flag that switches it off, and keeps a value the user set
    code = "import os, jaxtheory, jax; jax.devices(); print(os.environ.get('XLA_FLAGS'))"
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["JAX_PLATFORMS"] = "cpu"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["--xla_cpu_enable_concurrency_optimized_scheduler=false"], out.stderr
    env["XLA_FLAGS"] = "--xla_cpu_enable_concurrency_optimized_scheduler=true"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["--xla_cpu_enable_concurrency_optimized_scheduler=true"], out.stderr
    # once JAX's backends started, the flags are read: nothing is changed behind the user
    code = "import os, jax; jax.devices(); import jaxtheory; print(os.environ.get('XLA_FLAGS'))"
    env.pop("XLA_FLAGS")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["None"], out.stderr
