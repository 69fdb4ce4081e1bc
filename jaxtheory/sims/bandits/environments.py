"""Shifting-Means environments: arm means, a common shift per round, Gaussian noise.

Round :math:`t` of a Shifting-Means bandit: the environment fixes a common shift
:math:`s_t`, the learner pulls :math:`A_t` and observes

.. math::
    X_t = \\mu_{A_t} + s_t + \\sigma \\eta_t, \\qquad \\eta_t \\sim \\mathcal N(0, 1),
    \\qquad |\\mu_a + s_t| \\le U \\ \\text{for all } a, t.

Only the gaps :math:`\\mu_a - \\mu_b` are stable. The shift adversary may look at the
past and at the learner's sampling distribution :math:`p_t` for the round (for a
deterministic sampler :math:`p_t` is one-hot, so it knows the next pull), but never at
the learner's fresh randomness of the round. Every shift is clipped to the feasible
interval :math:`[-U - \\min_a \\mu_a,\\; U - \\max_a \\mu_a]`.

References:
    Shifting-Means best-arm identification (no public preprint).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = [
    "INSTANCES",
    "ADVERSARIES",
    "instance_means",
    "feasible_shift_interval",
    "shift",
]

#: Arm-mean instances; the best arm is always arm 0.
INSTANCES = ("equal", "staircase")

#: Shift adversaries (a static field of the simulator's spec; ``"param"`` there reads the
#: index into this tuple from ``params["env"]``).
ADVERSARIES = (
    "none",
    "constant",
    "random",
    "periodic",
    "pulse",
    "drift",
    "ramp",
    "targeted",
    "untargeted",
)


def instance_means(instance: str, n_arms: int, gap) -> jax.Array:
    """Arm means of a named instance with the best arm first.

    .. math::
        \\text{equal: } \\mu = (\\Delta, 0, \\dots, 0), \\qquad
        \\text{staircase: } \\mu_a = \\Delta \\frac{K - 1 - a}{K - 1},\\ a = 0..K-1.

    The equal-gap instance has :math:`\\Delta_{\\min} = \\Delta`; the staircase has
    :math:`\\Delta_{\\min} = \\Delta / (K - 1)` and largest gap :math:`\\Delta`.

    Args:
        instance: ``"equal"`` or ``"staircase"`` (static).
        n_arms: number of arms ``K >= 2`` (static).
        gap: :math:`\\Delta > 0`, may be traced.

    Returns:
        float array of shape ``(K,)``.

    Example:
        >>> instance_means("staircase", 3, 1.0).tolist()
        [1.0, 0.5, 0.0]

    References:
        Shifting-Means best-arm identification (its problem instances).
    """
    gap = jnp.asarray(gap, dtype=jnp.result_type(float))
    if instance == "equal":
        return jnp.zeros((n_arms,), gap.dtype).at[0].set(gap)
    if instance == "staircase":
        steps = jnp.arange(n_arms - 1, -1, -1, dtype=gap.dtype) / (n_arms - 1)
        return gap * steps
    raise ValueError(f"unknown instance {instance!r}; expected one of {INSTANCES}")


def feasible_shift_interval(mu: jax.Array, U) -> tuple[jax.Array, jax.Array]:
    """Shifts that keep every shifted mean in ``[-U, U]``.

    .. math:: s \\in [-U - \\min_a \\mu_a,\\; U - \\max_a \\mu_a].

    Args:
        mu: arm means, shape ``(K,)``.
        U: bound on the shifted means.

    Returns:
        ``(lo, hi)`` scalars.

    Example:
        >>> lo, hi = feasible_shift_interval(jnp.array([0.5, 0.0]), 1.5)
        >>> float(lo), float(hi)
        (-1.5, 1.0)
    """
    return -U - jnp.min(mu), U - jnp.max(mu)


def shift(adversary: str, t, probs, mu, params, u) -> jax.Array:
    """The common shift :math:`s_t` of round ``t`` (0-indexed) chosen by an adversary.

    With amplitude :math:`c` and period :math:`P` (``params["c"]``, ``params["period"]``):

    * ``none``: :math:`s_t = 0`.
    * ``constant``: :math:`s_t = -c` (what both adaptive attacks reduce to against a
      uniform sampler, whose most likely arm is arm 0).
    * ``random``: i.i.d. uniform on :math:`\\{-c, +c\\}`.
    * ``periodic``: square wave, :math:`+c` when :math:`t \\bmod P < P/2`, else :math:`-c`.
    * ``pulse``: :math:`-c` when :math:`t \\equiv 0 \\pmod P`, else :math:`+c`; with
      :math:`P = K` it hits the best arm in every round-robin cycle (oblivious attack).
    * ``drift``: :math:`c \\sin(2\\pi t / P)`.
    * ``ramp``: linear from :math:`-c` to :math:`+c` over :math:`P` rounds, then held.
    * ``targeted`` (adaptive): :math:`+c` if the predicted next pull
      :math:`\\arg\\max_a p_t(a)` is the runner-up arm 1, else :math:`-c`.
    * ``untargeted`` (adaptive): :math:`-c` if the predicted next pull is the best arm
      0, else :math:`+c`.

    The predicted pull is the most likely arm (lowest index on ties): exact for
    deterministic samplers, uninformative for uniform sampling. A negative ``c`` means
    the largest feasible amplitude :math:`c = U - \\max_a |\\mu_a|`. The result is clipped
    to :func:`feasible_shift_interval`.

    ``adversary="param"`` reads the adversary from ``params["env"]``, an integer
    index into :data:`ADVERSARIES` (all shifts are computed and one is selected), so that
    a sweep can cover environments without one compile per environment. An index out
    of range gives a NaN shift.

    Args:
        adversary: one of :data:`ADVERSARIES`, or ``"param"`` (static).
        t: round index (0-indexed int).
        probs: the learner's sampling distribution for this round, shape ``(K,)``.
        mu: arm means, shape ``(K,)``.
        params: dict with ``"c"``, ``"U"``, for periodic schedules ``"period"``, and for
            ``adversary="param"`` the index ``"env"``.
        u: the adversary's own uniform draw in ``[0, 1)`` for this round (independent
            of the learner's randomness); ``random`` plays :math:`+c` when ``u < 1/2``.

    Returns:
        scalar shift.

    Example:
        >>> mu = jnp.array([0.5, 0.0, 0.0])
        >>> p = {"c": 1.0, "U": 1.5, "period": 3.0}
        >>> onehot = jnp.array([0.0, 1.0, 0.0])
        >>> float(shift("targeted", 0, onehot, mu, p, 0.3))
        1.0
        >>> float(shift("untargeted", 0, onehot, mu, p, 0.3))
        1.0
        >>> float(shift("param", 0, onehot, mu, {**p, "env": 1}, 0.3))
        -1.0

    References:
        Shifting-Means best-arm identification (its environments E0-E4).
    """
    U = jnp.asarray(params["U"], mu.dtype)
    c = jnp.asarray(params["c"], mu.dtype)
    c = jnp.where(c < 0, U - jnp.max(jnp.abs(mu)), c)
    t_f = jnp.asarray(t, mu.dtype)
    if adversary == "param":
        code = jnp.asarray(params["env"]).astype(jnp.int32)
        options = [_raw_shift(name, t_f, probs, mu, params, u, c) for name in ADVERSARIES]
        s = jnp.select([code == i for i in range(len(ADVERSARIES))], options, jnp.nan)
    elif adversary in ADVERSARIES:
        s = _raw_shift(adversary, t_f, probs, mu, params, u, c)
    else:
        raise ValueError(f"unknown adversary {adversary!r}; expected one of {ADVERSARIES} or 'param'")
    lo, hi = feasible_shift_interval(mu, U)
    return jnp.clip(s, lo, hi)


def _raw_shift(adversary, t_f, probs, mu, params, u, c):
    if adversary == "none":
        return jnp.zeros((), mu.dtype)
    if adversary == "constant":
        return -c
    if adversary == "random":
        return jnp.where(u < 0.5, c, -c)
    if adversary in ("periodic", "pulse", "drift", "ramp"):
        period = jnp.asarray(params["period"], mu.dtype)
        if adversary == "periodic":
            return jnp.where(jnp.mod(t_f, period) < 0.5 * period, c, -c)
        if adversary == "pulse":
            pi = jnp.maximum(jnp.round(period), 1.0)
            return jnp.where(jnp.mod(t_f, pi) == 0, -c, c)
        if adversary == "drift":
            return c * jnp.sin(2.0 * jnp.pi * t_f / period)
        return jnp.clip(-c + 2.0 * c * t_f / period, -c, c)
    predicted = jnp.argmax(probs)
    if adversary == "targeted":
        return jnp.where(predicted == 1, c, -c)
    if adversary == "untargeted":
        return jnp.where(predicted == 0, -c, c)
    raise ValueError(f"unknown adversary {adversary!r}; expected one of {ADVERSARIES}")
