"""Sharding over devices and processes gives the one-device results.

* 8 CPU devices in one process (``--xla_force_host_platform_device_count=8``): results
  are bitwise equal to one device. Every lane runs the same per-lane program; the chunk
  is split into per-device batches, and here XLA's CPU code is the same per lane.
* 2 processes on localhost (gloo collectives): results equal one process within float32
  rounding (relative 1e-5), not bitwise: each process's device runs a batch of a
  different size than the single-process run, and XLA's CPU code generation for a
  different batch may order float operations differently (measured: ~25% of lanes differ,
  by at most 2e-6 relative).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np

from jaxtheory.sweep import open_results

JOB = textwrap.dedent("""
    import os, sys, time
    run_dir, port, nproc, pid, slow = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    from jaxtheory.sweep.mesh import init_distributed
    if nproc > 1:
        init_distributed(f"127.0.0.1:{port}", nproc, pid)
    import jax
    import jaxtheory.sweep.store as store
    from jaxtheory.sims import quadratic as quad
    from jaxtheory.sweep import Space, log, static, sweep, values
    writes = []
    orig = store.save_chunk
    def save(path, arrays):
        writes.append(os.path.basename(path))
        if slow == "slow":
            time.sleep(0.3)
        orig(path, arrays)
    store.save_chunk = save
    space = Space(lr=log(0.05, 3.0, num=5), momentum=values(0.0, 0.9), dim=static(4, 8), seeds=3)
    r = sweep(quad.run, quad.QuadraticSpec(dim=8, steps=200), space, quad.DEFAULT_PARAMS,
              quiet=True, metric_dims={"risk": ("step",)}, chunk=%(chunk)d, run_dir=run_dir)
    print("WRITES", ",".join(writes))
    print("DEVICES", jax.device_count(), jax.process_count(), r.manifest["lanes"],
          r.manifest["status_counts"]["ok"] + r.manifest["status_counts"]["diverged"])
""")


def _env(**extra):
    env = dict(os.environ, JAX_PLATFORMS="cpu", TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("XLA_FLAGS", None)
    env.update(extra)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _job(tmp_path, chunk=8):
    path = tmp_path / "job.py"
    path.write_text(JOB % {"chunk": chunk})
    return str(path)


def _values(run_dir):
    ds = open_results(run_dir)
    return {k: ds[k].values for k in ds.data_vars}


def _assert_close(a, b, rtol):
    for k in a:
        if rtol == 0:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        else:
            np.testing.assert_allclose(a[k], b[k], rtol=rtol, err_msg=k)


def test_eight_cpu_devices_equal_one_device_bitwise(tmp_path):
    job = _job(tmp_path, chunk=16)
    one = subprocess.run([sys.executable, job, str(tmp_path / "one"), "0", "1", "0", "fast"],
                         env=_env(), capture_output=True, text=True, check=True)
    eight = subprocess.run([sys.executable, job, str(tmp_path / "eight"), "0", "1", "0", "fast"],
                           env=_env(XLA_FLAGS="--xla_force_host_platform_device_count=8"),
                           capture_output=True, text=True, check=True)
    assert "DEVICES 1 1 60 60" in one.stdout
    # 30 lanes per static group in chunks of 16: the last chunk is padded by 2 lanes,
    # and no padding lane reaches the results or the status counts
    assert "DEVICES 8 1 60 60" in eight.stdout
    _assert_close(_values(tmp_path / "one"), _values(tmp_path / "eight"), rtol=0)
    m = json.loads((tmp_path / "eight" / "manifest.json").read_text())
    assert m["devices"]["count"] == 8 and m["lanes"] == 60


def _two_processes(job, run_dir, slow="fast", kill_after_parts=None):
    port = str(_free_port())
    procs = [subprocess.Popen([sys.executable, job, str(run_dir), port, "2", str(i), slow],
                              env=_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
             for i in range(2)]
    if kill_after_parts is not None:
        deadline = time.time() + 180
        chunks = run_dir / "chunks"
        while time.time() < deadline:
            if chunks.exists() and len(list(chunks.glob("*_p001.npz"))) >= kill_after_parts:
                break
            time.sleep(0.05)
        procs[1].send_signal(signal.SIGKILL)
        procs[1].wait()
        try:  # the survivor waits on its dead peer: give it a moment, then stop it too
            procs[0].wait(timeout=5)
        except subprocess.TimeoutExpired:
            procs[0].kill()
            procs[0].wait()
        return None
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    return outs


def test_two_processes_equal_one_process_and_resume_after_a_kill(tmp_path):
    job = _job(tmp_path)
    subprocess.run([sys.executable, job, str(tmp_path / "one"), "0", "1", "0", "fast"],
                   env=_env(), capture_output=True, check=True)
    reference = _values(tmp_path / "one")

    outs = _two_processes(job, tmp_path / "two")
    assert all("DEVICES 2 2 60 60" in o for o in outs)
    writes = [o.split("WRITES ")[1].split()[0].split(",") for o in outs]
    assert not set(writes[0]) & set(writes[1]), "two processes wrote the same chunk file"
    assert all(w.endswith(f"_p{i:03d}.npz") for i, ws in enumerate(writes) for w in ws)
    _assert_close(reference, _values(tmp_path / "two"), rtol=1e-5)

    # kill process 1 mid-sweep, then restart both: finished parts are kept, not rewritten
    killed = tmp_path / "killed"
    _two_processes(job, killed, slow="slow", kill_after_parts=2)
    assert not (killed / "results.nc").exists()
    before = {p.name: p.stat().st_ino for p in (killed / "chunks").glob("*.npz")}
    assert 0 < len(before) < 16
    outs = _two_processes(job, killed)
    rewritten = set(before) & {w for o in outs for w in o.split("WRITES ")[1].split()[0].split(",")}
    assert not rewritten, f"parts written twice: {rewritten}"
    assert {p.name: p.stat().st_ino for p in (killed / "chunks").glob("*.npz") if p.name in before} == before
    _assert_close(reference, _values(killed), rtol=1e-5)
