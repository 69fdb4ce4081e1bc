"""Devices for a sweep: a one-axis mesh over which lanes are sharded.

Lanes are independent, so the sharded program needs no communication: each device runs
the one-device program of its own batch of lanes. At the same lanes per device the
results are therefore bitwise equal whatever the device or process count; at another
batch size they agree within float32 round-off (another XLA program).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

__all__ = ["select_devices", "lane_sharding", "describe_devices", "init_distributed", "LANE_AXIS"]

#: Name of the one mesh axis lanes are sharded over.
LANE_AXIS = "lanes"


def select_devices(devices: Any = "all") -> list[jax.Device]:
    """The devices a sweep runs on.

    Args:
        devices: ``"all"`` (or ``None``) for every device, an integer ``N`` for the first
            ``N``, or an explicit list of :class:`jax.Device`.

    Raises:
        ValueError: for a count that is not between 1 and the number of devices.
    """
    all_devs = jax.devices()
    if devices is None or devices == "all":
        return list(all_devs)
    if isinstance(devices, str):
        try:
            devices = int(devices)
        except ValueError:
            raise ValueError(f"--devices must be 'all' or a positive integer, got {devices!r}") from None
    if isinstance(devices, int) and not isinstance(devices, bool):
        if not 1 <= devices <= len(all_devs):
            raise ValueError(
                f"asked for {devices} devices, but {len(all_devs)} are available ({all_devs[0].platform})"
            )
        return list(all_devs[:devices])
    devs = list(devices)
    if not devs:
        raise ValueError("an empty device list")
    return devs


def lane_sharding(devices: list[jax.Device]) -> NamedSharding:
    """Shard the leading (lane) axis of every array over a one-axis mesh of ``devices``."""
    mesh = Mesh(np.asarray(devices), (LANE_AXIS,))
    return NamedSharding(mesh, PartitionSpec(LANE_AXIS))


def describe_devices(devices: list[jax.Device]) -> dict:
    """A JSON-able description of the devices and processes used."""
    return {
        "platform": devices[0].platform,
        "count": len(devices),
        "kinds": sorted({getattr(d, "device_kind", d.platform) for d in devices}),
        "devices": [str(d) for d in devices],
        "process_count": jax.process_count(),
        "process_index": jax.process_index(),
    }


def init_distributed(
    coordinator: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
    *,
    auto: bool = False,
) -> bool:
    """Join JAX's distributed runtime, so one mesh spans the devices of every process.

    Call it first, before anything touches a device. With a coordinator it is explicit
    (``HOST:PORT``, the process count and this process's id); with ``auto=True`` and no
    coordinator, JAX detects the cluster (SLURM, Cloud TPU, Kubernetes) itself. On CPUs
    the cross-process collectives use gloo.

    Returns:
        True when the distributed runtime was initialized.
    """
    import os

    if coordinator is None and not auto:
        return False
    if os.environ.get("JAX_PLATFORMS", "").startswith("cpu") or not _has_accelerator_plugin():
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
    if coordinator is None:
        jax.distributed.initialize()
    else:
        if num_processes is None or process_id is None:
            raise ValueError("--coordinator needs --num-processes and --process-id")
        if not 0 <= process_id < num_processes:
            raise ValueError(f"--process-id must be in [0, {num_processes}), got {process_id}")
        jax.distributed.initialize(
            coordinator_address=coordinator, num_processes=num_processes, process_id=process_id
        )
    return True


def _has_accelerator_plugin() -> bool:
    from importlib.util import find_spec

    return any(find_spec(m) is not None for m in ("jax_cuda12_plugin", "jax_cuda13_plugin", "libtpu"))
