"""``jaxtheory new NAME``: a minimal experiment and its simulator, outside the repository.

The two files run as they are (``jaxtheory run ./NAME.py --preset smoke``), and are
the starting point of the guide "Write an experiment": a declared simulator
(:class:`~jaxtheory.Simulator`), three claims and two declared figures.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["write_experiment"]

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")

_SIM_TEMPLATE = '''\
"""SGD with a constant step on f(x) = lam x^2 / 2, gradients seen with noise of scale sigma."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory import Simulator


@dataclasses.dataclass(frozen=True)
class Spec:
    steps: int = 400  # what fixes shapes: one compiled program per value


def run(spec, params, key):  # pure, jittable, vmappable; params arrive as JAX scalars
    def step(x, xi):
        x = x - params["lr"] * (params["lam"] * x + params["sigma"] * xi)
        return x, 0.5 * params["lam"] * x**2

    _, risk = jax.lax.scan(step, jnp.float32(1.0), jax.random.normal(key, (spec.steps,)))
    return {{"risk": risk}}


def stationary_risk(lr, lam, sigma):
    """The risk the iterates settle at, for 0 < lr lam < 2."""
    return lr * sigma**2 / (2 * (2 - lr * lam))


SIMULATOR = Simulator(
    run, spec=Spec(), params={{"lr": 0.1, "lam": 1.0, "sigma": 1.0}},
    metric_dims={{"risk": ("step",)}}, coords=lambda spec: {{"step": np.arange(1, spec.steps + 1)}},
)
'''

_EXPERIMENT_TEMPLATE = '''\
"""{title}: constant-step SGD settles at a risk proportional to its step."""

import {module}_sim as sim

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, plots
from jaxtheory.sweep import Space, log, values


def settled(ds, spec):  # each seed's mean risk over the second half: dims (lr, seed)
    return ds["risk"].isel(step=slice(spec.steps // 2, None)).mean("step")


def theory(c, spec):  # every parameter is a coordinate of the results, swept or not
    return sim.stationary_risk(c["lr"], c["lam"], c["sigma"])


EXPERIMENT = Experiment(
    name="{name}",
    paper=Paper(title="Stationary risk of constant-step SGD (classical)"),
    simulator=sim.SIMULATOR,
    presets={{
        "smoke": Preset(Space(lr=log(0.05, 0.5, num=6), seeds=256), description="CPU, seconds"),
        "full": Preset(Space(lr=log(0.01, 1.0, num=32), sigma=values(0.1, 1.0, 10.0), seeds=4096),
                       spec={{"steps": 4000}}, description="every step and noise level"),
    }},
    claims=[
        Claim.close("stationary-risk", "The settled risk is lr sigma^2 / (2 (2 - lr lam)) within 10%.",
                    lambda ds, spec: settled(ds, spec) / theory(ds, spec), 1.0, rtol=0.1, source="derived"),
        Claim.slope("linear-in-step", "For small steps the settled risk grows linearly with the step.",
                    settled, "lr", expected=1.0, atol=0.15, xmax=0.2, source="derived"),
        Claim.at_most("below-start", "The settled risk stays below the starting risk lam / 2.",
                      lambda ds, spec: settled(ds, spec) / (ds["lam"] / 2), 1.0, source="sanity"),
    ],
    figures=[
        Figure("risk", plots.curves("risk", x="step", hue="lr", logx=True, logy=True), caption="Risk per step."),
        Figure("final-risk", plots.curves(settled, x="lr", logx=True, logy=True, theory=theory),
               caption="Settled risk against the step; the closed form dotted."),
    ],
    description="SGD with a constant step on $f(x) = \\\\lambda x^2/2$ with gradient noise $\\\\sigma$.",
)
'''


def write_experiment(name: str, directory: str | Path = ".", *, force: bool = False) -> list[Path]:
    """Write ``<module>.py`` (the experiment) and ``<module>_sim.py`` (its simulator).

    Args:
        name: the experiment's name, kebab-case (``lms-averaging``); the module name is
            it with underscores (``lms_averaging.py``).
        directory: where to write (created if missing).
        force: overwrite existing files.

    Returns:
        The two paths, experiment first.

    Raises:
        ValueError: for a name that is not kebab-case.
        FileExistsError: when a file exists and ``force`` is not given.
    """
    if not _NAME.match(name):
        raise ValueError(f"experiment name {name!r} must be kebab-case: lowercase words joined by '-'")
    module = name.replace("-", "_")
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    exp_path, sim_path = d / f"{module}.py", d / f"{module}_sim.py"
    for p in (exp_path, sim_path):
        if p.exists() and not force:
            raise FileExistsError(f"{p} exists; pass --force to overwrite it")
    title = name.replace("-", " ").capitalize()
    exp_path.write_text(_EXPERIMENT_TEMPLATE.format(name=name, module=module, title=title))
    sim_path.write_text(_SIM_TEMPLATE.format())
    return [exp_path, sim_path]
