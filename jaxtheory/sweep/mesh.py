"""Devices for a sweep: a one-axis mesh over which lanes are sharded."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

__all__ = ["select_devices", "lane_sharding", "describe_devices", "LANE_AXIS"]

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
