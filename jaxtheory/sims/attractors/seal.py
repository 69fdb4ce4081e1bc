"""SEAL: learn a ring and a torus energy by restoring-field matching, then test their dynamics.

One lane (one seed) learns the ring energy (:mod:`~jaxtheory.sims.attractors.ring`) and the
torus energy (:mod:`~jaxtheory.sims.attractors.torus`) with Adam on the restoring-field
matching loss, then runs the Euler dynamics :math:`\\tau\\dot x = -\\nabla E + vT` from
``n_test`` states perturbed by :math:`\\sigma_{test}` noise, for every drive ``v`` of the
spec (the same states for every ``v``), and an unstable control at
:math:`\\eta = ` ``over_bound`` :math:`\\cdot 2/L^*` above the stability bound (``L*`` the
largest Hessian eigenvalue on the learned manifold). Metrics carry a ``model`` dimension
(``ring``, ``torus``).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.sims.attractors import ring as R
from jaxtheory.sims.attractors import torus as TO
from jaxtheory.sims.attractors.dynamics import euler_step, train_energy
from jaxtheory.simulator import Simulator

__all__ = ["SealSpec", "DEFAULT_PARAMS", "MODELS", "METRIC_DIMS", "coords", "run", "SIMULATOR"]

#: The two attractor models, in the order of the ``model`` dimension.
MODELS = ("ring", "torus")

#: Default parameters: Adam's rate, Euler's step ``dt`` and time constant τ, the test
#: perturbation σ, the von Mises concentration κ of the ring's bump, the unstable
#: control's step as a multiple of the bound 2/L*.
DEFAULT_PARAMS = {
    "lr": 1e-2,
    "dt": 0.05,
    "tau": 1.0,
    "sigma_test": 0.5,
    "kappa": 4.0,
    "over_bound": 1.5,
}

#: Each metric's own dimensions (beside ``seed`` and the sweep axes).
METRIC_DIMS = {
    "train_loss": ("model", "train_step"),
    "ortho": ("model", "trial"),
    "distance": ("model", "v", "trial"),
    "max_rel_increase": ("model", "trial"),
    "unstable_increase": ("model", "euler_trial"),
    "drift": ("model", "trial"),
    "displacement": ("model", "v", "step"),
    "distance_curve": ("model", "step"),
    "euler_distance": ("model", "v", "euler_trial"),
    "euler_growth": ("model", "v"),
    "lam_hi": ("model",),
    "velocity": ("model", "v"),
    "top_curvature": ("model",),
    "target_error": ("model",),
    "w_kernel": ("lag",),
}


@dataclasses.dataclass(frozen=True)
class SealSpec:
    """Shapes of one SEAL run (the compile key).

    Attributes:
        n: ring neurons ``N`` (even).
        k_max: highest learned ring mode ``K``.
        side: torus sheet side ``L`` (``L²`` neurons).
        grid_m: the torus pattern's wave number ``m``.
        train_steps: Adam steps per energy.
        batch: training batch of the ring.
        torus_batch: training batch of the torus (6 parameters; its 256-neuron states cost 4×
            the ring's, so the smoke trains it at a smaller batch).
        train_sigmas: the training perturbation levels (each sample draws one).
        log_every: training steps between recorded losses.
        n_test: perturbed test states per drive.
        steps: Euler steps of a test trajectory.
        drives: the tangent drives ``v``.
        unstable_steps: Euler steps of the control above the bound.
        record_every: steps between recorded displacements and distances (divides
            ``steps`` and ``unstable_steps``).
        n_euler: test states run with the explicit-Euler drive and the control above the bound.
    """

    n: int = 64
    k_max: int = 8
    side: int = 16
    grid_m: int = 2
    train_steps: int = 2000
    batch: int = 256
    torus_batch: int = 64
    train_sigmas: tuple[float, ...] = (0.1, 0.3)
    log_every: int = 20
    n_test: int = 128
    steps: int = 500
    drives: tuple[float, ...] = (-1.0, -0.5, 0.0, 0.5, 1.0)
    unstable_steps: int = 100
    record_every: int = 10
    n_euler: int = 32

    def __post_init__(self):
        if self.n % 2 or self.side % 2:
            raise ValueError(f"n and side must be even, got n={self.n}, side={self.side}")
        if 0.0 not in self.drives:
            raise ValueError("drives must include v = 0 (the autonomous dynamics)")
        if self.steps % self.record_every or self.unstable_steps % self.record_every:
            raise ValueError(f"record_every ({self.record_every}) must divide steps and unstable_steps")
        if self.steps // self.record_every < 2 or self.n_euler > self.n_test:
            raise ValueError("need steps >= 2 * record_every and n_euler <= n_test")


def coords(spec: SealSpec) -> dict:
    """Coordinates of the metric dimensions.

    Example:
        >>> coords(SealSpec())["v"]
        [-1.0, -0.5, 0.0, 0.5, 1.0]
    """
    return {
        "model": list(MODELS),
        "v": list(spec.drives),
        "step": np.arange(0, spec.steps + 1, spec.record_every),
        "euler_trial": np.arange(spec.n_euler),
        "train_step": np.arange(0, spec.train_steps, spec.log_every),
        "trial": np.arange(spec.n_test),
        "lag": np.arange(spec.n // 2 + 1),
    }


def _wrap(a):
    return jnp.angle(jnp.exp(1j * a))


def _trajectories(energy, params, x0, phase, distance, tangent, rotate, drives, eta, steps, record, scheme):
    """Euler trajectories from ``x0`` (trials, ...) for each drive, summarised.

    ``scheme="split"``: :math:`x \\leftarrow R_{\\eta v}(x - \\eta\\nabla E(x))` (the gradient
    step through ``optax.sgd(η)``, then the drive as the exact rotation it generates);
    ``scheme="euler"``: :math:`x \\leftarrow x - \\eta(\\nabla E(x) - vT(x))` (explicit Euler on
    both). Returns per drive and trial the unwrapped phase displacement and the distance
    every ``record`` steps (``steps // record + 1`` values from step 0), and the largest
    :math:`(E_{t+1} - E_t)/E_0`.
    """
    opt = optax.sgd(eta)

    def one(x, v):
        drive = v if scheme == "euler" else 0.0

        def inner(carry, _):
            x, s, ph, disp, emax, e_prev = carry
            x1, s, e = euler_step(energy, params, x, s, opt, drive, tangent)
            if scheme == "split":
                x1 = rotate(x1, eta * v)
            ph1 = phase(x1)
            rel = (e - e_prev) / e0
            emax = jnp.maximum(emax, jnp.where(jnp.isnan(rel), jnp.inf, rel))
            return (x1, s, ph1, disp + _wrap(ph1 - ph), emax, e), None

        def outer(carry, _):
            carry, _ = jax.lax.scan(inner, carry, None, length=record)
            return carry, (carry[3], distance(params, carry[0]))

        e0 = energy(params, x)
        # e_prev starts at E(x_0): the first step compares E(x_0) with itself
        init = (x, opt.init(x), phase(x), jnp.zeros(()), -jnp.inf, e0)
        (xt, _, _, _, emax, e_last), (disp, dist) = jax.lax.scan(outer, init, None, length=steps // record)
        rel = (energy(params, xt) - e_last) / e0
        emax = jnp.maximum(emax, jnp.where(jnp.isnan(rel), jnp.inf, rel))
        disp = jnp.concatenate([jnp.zeros(1), disp])
        return disp, jnp.concatenate([distance(params, x)[None], dist]), emax

    vs = jnp.asarray(drives, jnp.float32)
    return jax.vmap(lambda v: jax.vmap(lambda x: one(x, v))(x0))(vs)


def _ortho(energy, params, x0, tangents):
    """max over tangent fields of |<∇E, T>| / (‖∇E‖ ‖T‖) at each state."""
    g = jax.vmap(jax.grad(energy, argnums=1), in_axes=(None, 0))(params, x0)
    out = []
    for t in tangents(x0):
        ax = tuple(range(1, g.ndim))
        dot = jnp.sum(g * t, ax)
        out.append(jnp.abs(dot) / (jnp.sqrt(jnp.sum(g * g, ax)) * jnp.sqrt(jnp.sum(t * t, ax))))
    return jnp.max(jnp.stack(out), 0)


_BIG = float(np.finfo(np.float32).max)


def _cap(a):
    """Non-finite values (an overflowed, deliberately unstable trajectory) as the float32 maximum."""
    return jnp.where(jnp.isfinite(a), a, _BIG)


def _model_block(
    spec,
    params,
    key,
    *,
    batch,
    energy,
    p0,
    clean_fn,
    phase,
    phase_scale,
    distance,
    tangent,
    tangents,
    rotate,
    y0_fn,
    max_wavenumber,
):
    """Train one model and run all of its tests."""
    k_train, k_test = jax.random.split(key)
    sig = jnp.asarray(spec.train_sigmas, jnp.float32)

    def sample(k):
        k1, k2, k3 = jax.random.split(k, 3)
        clean = clean_fn(jax.random.uniform(k1, (batch, 2), maxval=2 * jnp.pi))
        s = sig[jax.random.randint(k2, (batch,), 0, sig.shape[0])]
        s = s.reshape((-1,) + (1,) * (clean.ndim - 1))
        return clean, clean + s * jax.random.normal(k3, clean.shape)

    learned, losses = train_energy(
        energy, p0, sample, k_train, steps=spec.train_steps, lr=params["lr"], log_every=spec.log_every
    )
    k1, k2 = jax.random.split(k_test)
    clean = clean_fn(jax.random.uniform(k1, (spec.n_test, 2), maxval=2 * jnp.pi))
    x0 = clean + params["sigma_test"] * jax.random.normal(k2, clean.shape)
    ortho = _ortho(energy, learned, x0, tangents)

    y0 = y0_fn(learned)
    hess = jax.hessian(lambda z: energy(learned, z))(y0).reshape(y0.size, y0.size)
    top = jnp.linalg.eigvalsh(0.5 * (hess + hess.T))[-1]
    eta = params["dt"] / params["tau"]
    common = (energy, learned)
    fns = (phase, distance, tangent, rotate)
    rec = spec.record_every
    disp, dist, emax = _trajectories(*common, x0, *fns, spec.drives, eta, spec.steps, rec, "split")
    disp = phase_scale * disp
    i0 = spec.drives.index(0.0)
    half = spec.steps // rec // 2
    span = (spec.steps // rec - half) * rec
    drift = jnp.abs(disp[i0, :, -1] - disp[i0, :, half]) / span
    mean_disp = jnp.mean(disp, 1)
    velocity = (mean_disp[:, -1] - mean_disp[:, half]) / (span * params["dt"])
    # the explicit-Euler drive, on the first n_euler states
    xe = x0[: spec.n_euler]
    _, dist_e, _ = _trajectories(*common, xe, *fns, spec.drives, eta, spec.steps, rec, "euler")
    # its exact linear growth factor on the decoupled quadratic modes (|x̂_k|² terms, λ_hi):
    # x̂_k <- x̂_k (1 - ηλ_hi + iηvk), largest at the largest non-Nyquist wave number
    lam_hi = jnp.exp(learned["log_lam"][-1])
    vs = jnp.asarray(spec.drives, jnp.float32)
    growth = jnp.sqrt((1 - eta * lam_hi) ** 2 + (eta * vs * max_wavenumber) ** 2)
    eta_bad = params["over_bound"] * 2.0 / top
    _, _, emax_bad = _trajectories(*common, xe, *fns, (0.0,), eta_bad, spec.unstable_steps, rec, "split")
    return {
        "learned": learned,
        "y0": y0,
        "train_loss": losses,
        "ortho": ortho,
        "distance": dist[:, :, -1],
        "max_rel_increase": _cap(emax[i0]),
        "unstable_increase": _cap(emax_bad[0]),
        "drift": drift,
        "displacement": mean_disp,
        "distance_curve": jnp.mean(dist[i0], 0),
        "velocity": velocity,
        "top_curvature": top,
        "euler_distance": _cap(dist_e[:, :, -1]),
        "euler_growth": growth,
        "lam_hi": lam_hi,
    }


def run(spec: SealSpec, params, key):
    """Learn the ring and torus energies, then test their dynamics (see the module docstring).

    Args:
        spec: a :class:`SealSpec`.
        params: :data:`DEFAULT_PARAMS`' keys (scalars, may be traced).
        key: PRNG key.

    Returns:
        The metrics of :data:`METRIC_DIMS`: ``train_loss`` (Adam's matching loss),
        ``ortho`` (:math:`|\\cos(\\nabla E, T)|` at each test state, the largest over the
        torus's two tangents), ``distance`` (upper bound on the distance to the learned
        manifold after ``steps`` steps, per drive), ``max_rel_increase`` (largest
        :math:`(E_{t+1} - E_t)/E_0` along the autonomous trajectory), ``unstable_increase``
        (the same above the stability bound), ``drift`` (:math:`|\\Delta\\hat\\theta|` per step
        over the second half at ``v = 0``), ``displacement`` (the trial-mean unwrapped phase
        displacement per step), ``distance_curve`` (trial-mean distance at ``v = 0``),
        ``velocity`` (phase velocity over the second half, radians per unit time),
        ``top_curvature`` (``L*``), ``target_error`` (relative distance of the learned
        manifold's phase-0 point from the target's) and ``w_kernel`` (the ring's Hopfield
        connectivity :math:`w(\\Delta)`, :func:`~jaxtheory.sims.attractors.ring.circulant_kernel`);
        with the explicit-Euler drive (``scheme="euler"`` of the module's trajectories):
        ``euler_distance`` (capped at the float32 maximum where it overflowed) and ``euler_growth`` (the exact per-step
        growth factor :math:`|1 - \\eta\\lambda_{hi} + i\\eta v k_{max}|` of the decoupled
        quadratic modes; ``lam_hi`` is :math:`\\lambda_{hi}`).

    Example:
        >>> import jax
        >>> spec = SealSpec(n=16, k_max=3, side=8, grid_m=1, train_steps=20, batch=8, log_every=10,
        ...                 n_test=4, steps=10, unstable_steps=10, record_every=5, n_euler=2, torus_batch=8)
        >>> out = jax.jit(run, static_argnums=0)(spec, DEFAULT_PARAMS, jax.random.key(0))  # one compile
        >>> out["distance"].shape, out["w_kernel"].shape
        ((2, 5, 4), (9,))
    """
    k_ring, k_torus = jax.random.split(key)
    n, side, m = spec.n, spec.side, spec.grid_m
    kappa = params["kappa"]
    ring = _model_block(
        spec,
        params,
        k_ring,
        batch=spec.batch,
        energy=R.ring_energy,
        p0=R.init_ring_params(spec.k_max, n),
        clean_fn=lambda th: R.bump(n, kappa, th[:, 0]),
        phase=R.ring_phase,
        phase_scale=1.0,
        distance=R.ring_distance,
        tangent=R.tangent,
        tangents=lambda x: (R.tangent(x),),
        rotate=R.rotate,
        y0_fn=lambda p: R.ring_point(p, n, 0.0),
        max_wavenumber=n // 2 - 1,
    )
    energy_t = lambda p, x: TO.torus_energy(p, x, m)  # noqa: E731
    torus = _model_block(
        spec,
        params,
        k_torus,
        batch=spec.torus_batch,
        energy=energy_t,
        p0=TO.init_torus_params(),
        clean_fn=lambda th: jax.vmap(lambda a: TO.grid_pattern(side, m, a[0] / m, a[1] / m))(th),
        phase=lambda x: m * TO.torus_phases(x, m)[..., 0],
        phase_scale=1.0 / m,
        distance=lambda p, x: TO.torus_distance(p, x, m),
        tangent=lambda x: TO.torus_tangents(x)[0],
        tangents=TO.torus_tangents,
        rotate=TO.torus_translate,
        y0_fn=lambda p: TO.torus_point(p, side, m),
        max_wavenumber=side // 2 - 1,
    )
    b = R.bump(n, kappa, 0.0)
    ring_err = jnp.linalg.norm(ring["y0"] - b) / jnp.linalg.norm(b)
    g = TO.grid_pattern(side, m)
    torus_err = jnp.linalg.norm(torus["y0"] - g) / jnp.linalg.norm(g)
    w, _ = R.circulant_kernel(R.ring_energy, ring["learned"], ring["y0"])
    out = {k: jnp.stack([ring[k], torus[k]]) for k in METRIC_DIMS if k in ring}
    out["target_error"] = jnp.stack([ring_err, torus_err])
    out["w_kernel"] = w
    return out


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(run, spec=SealSpec(), params=DEFAULT_PARAMS, metric_dims=METRIC_DIMS, coords=coords)
