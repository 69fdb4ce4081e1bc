"""A simulator, declared once: its run function, spec, parameters and outputs.

A simulator module ends with one declaration::

    SIMULATOR = Simulator(
        run,                                   # run(spec, params, key) -> {metric: array}
        spec=Spec(),                           # default spec: its type is the spec type
        params={"lr": 0.1, "opt": categorical("sgd", "adam")},   # every parameter's default
        metric_dims={"risk": ("step",)},       # each metric's own dims
        coords=lambda spec: {"step": np.arange(spec.steps)},
    )

and an experiment names it (``Experiment(simulator=quad.SIMULATOR, ...)``) instead of
restating the run function, spec, defaults, metric dims and coordinates. Everything
here is simulation code: it enters the simulation fingerprint, and it imports nothing of
the judgement layer (claims, analysis, figures).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Simulator"]


@dataclasses.dataclass(frozen=True)
class Simulator:
    """A pure simulator and its contract.

    Attributes:
        run: ``run(spec, params, key) -> {metric: array}``, pure, jittable and
            vmappable (host mode, ``jit=False``: ``run(spec, params, seed)`` in Python).
        spec: the default spec, a frozen dataclass (everything that fixes shapes).
        params: the default of every parameter ``run`` reads; a categorical parameter as
            :func:`~jaxtheory.sweep.categorical` (its labels and default label).
        metric_dims: names of each metric's own dimensions, e.g. ``{"risk": ("step",)}``.
        coords: coordinates of those dimensions, or a function of the spec giving them.
        x64: ``True``: the sweep runs inside ``jax.enable_x64(True)`` (parameters and
            results in float64); ``False`` (the default): JAX's default float32.
        jit: ``False`` for host mode (see :func:`jaxtheory.sweep.sweep`).

    Example:
        >>> from jaxtheory.sims import quadratic as quad
        >>> quad.SIMULATOR.metric_dims
        {'risk': ('step',)}
        >>> quad.SIMULATOR.params["lr"]
        0.1
    """

    run: Callable[..., Mapping[str, Any]]
    spec: Any
    params: Mapping[str, Any]
    metric_dims: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    coords: Callable[[Any], Mapping[str, Any]] | Mapping[str, Any] | None = None
    x64: bool = False
    jit: bool = True

    def __post_init__(self):
        if not callable(self.run):
            raise TypeError(f"Simulator.run must be a function, got {type(self.run).__name__}")
        if not dataclasses.is_dataclass(self.spec) or isinstance(self.spec, type):
            raise TypeError("Simulator.spec is the default spec: an instance of a frozen dataclass")
        if not isinstance(self.params, Mapping):
            raise TypeError("Simulator.params maps every parameter the run reads to its default")
        for k, v in dict(self.metric_dims).items():
            if isinstance(v, str) or not all(isinstance(d, str) for d in v):
                raise TypeError(f"metric_dims[{k!r}] must be a tuple of dimension names, got {v!r}")
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "metric_dims", {k: tuple(v) for k, v in dict(self.metric_dims).items()})
