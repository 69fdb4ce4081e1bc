"""Shared by the sweep tests: kill a sweep mid-run, resume it, compare with an uninterrupted one."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from jaxtheory.sweep import open_results


def kill_resume_and_compare(tmp_path, script_text: str, chunks_total: int, metric: str = "x") -> None:
    """Run ``script_text`` (argv: run directory, ``slow``/``fast``), SIGKILL it once it has
    stored 3 chunks, rerun it to completion, and check the resumed run: it kept the chunks
    stored before the kill, computed only the others, and equals an uninterrupted run
    bitwise (``metric``), which holds by construction when every chunk runs the same program
    on the same inputs."""
    script = tmp_path / "job.py"
    script.write_text(script_text)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, str(script), str(killed), "slow"], env=env)
    chunks = killed / "chunks"
    deadline = time.time() + 120
    while time.time() < deadline:
        if chunks.exists() and len(list(chunks.glob("*.npz"))) >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(list(chunks.glob("*.npz")))
    assert 3 <= done_before < chunks_total, "the kill should land mid-sweep"
    assert not (killed / "results.nc").exists()
    subprocess.run([sys.executable, str(script), str(killed), "fast"], env=env, check=True)
    clean = tmp_path / "clean"
    subprocess.run([sys.executable, str(script), str(clean), "fast"], env=env, check=True)
    manifest = json.loads((killed / "manifest.json").read_text())
    assert manifest["chunks_resumed"] == done_before
    assert manifest["chunks_run"] == chunks_total - done_before
    np.testing.assert_array_equal(open_results(killed)[metric].values, open_results(clean)[metric].values)


@pytest.fixture
def kill_mid_sweep():
    """:func:`kill_resume_and_compare`, as a fixture."""
    return kill_resume_and_compare
