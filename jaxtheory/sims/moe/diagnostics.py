"""Diagnostics of MoE training: the refined coordinate check and aggregation observables.

arXiv 2605.14200. For a layer :math:`\\ell` with weights
:math:`W_\\ell` and input :math:`a_\\ell` (both at step :math:`t` and at init), on the
same probe inputs,

.. math::
    \\text{effective update} = \\|(W_{\\ell,t} - W_{\\ell,0})\\, a_{\\ell,t}\\|_{RMS},\\qquad
    \\text{propagating update} = \\|W_{\\ell,0}(a_{\\ell,t} - a_{\\ell,0})\\|_{RMS},

and the activation RMS of the layer's output. A parameterization is right when both
update types have width exponent 0 in every layer.

The expert down-projection :math:`W_2` is measured where its output is used: after
aggregation, :math:`\\sum_m g_{m,t}\\,(\\cdot)_m`, with the gates at step :math:`t` (its
activation is :math:`h_{agg}`). Per expert, :math:`o_m` is *meant* to grow with width in
regime II under MSSP (init :math:`\\sqrt{M/N_e}`, so that the average over :math:`M`
experts stays :math:`\\Theta(1)`); the per-expert propagating update then has width
exponent about :math:`+1/2` although nothing downstream changes scale.

The aggregated expert output splits
exactly as

.. math::
    h_{agg,t} = \\underbrace{\\textstyle\\sum_m g_{m,0} o_{m,0}}_{\\text{base}}
    + \\underbrace{\\textstyle\\sum_m \\Delta g_m\\, o_{m,0}}_{\\text{gate}}
    + \\underbrace{\\textstyle\\sum_m g_{m,0} \\Delta o_m}_{\\text{expert}}
    + \\underbrace{\\textstyle\\sum_m \\Delta g_m \\Delta o_m}_{\\text{cross}}.

Width exponents of these quantities are fitted in the experiments with
:func:`jaxtheory.analysis.loglog_slope` (seeds averaged before the logarithm, with a
bootstrap interval over seeds; single seeds are too noisy).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxtheory.sims.moe.param import LAYERS

__all__ = ["AGG_TERMS", "rms", "gate_entropy", "refined_coord_check", "aggregate_decomposition"]

#: Names of the four terms of :func:`aggregate_decomposition`, in order.
AGG_TERMS = ("base", "gate", "expert", "cross")


def rms(x: jax.Array) -> jax.Array:
    """Root mean square over all entries: :math:`\\sqrt{\\mathrm{mean}(x^2)}`.

    Example:
        >>> import jax.numpy as jnp
        >>> float(rms(jnp.array([3.0, -4.0, 0.0, 0.0])))
        2.5
    """
    return jnp.sqrt(jnp.mean(jnp.square(x)))


def gate_entropy(gates: jax.Array) -> jax.Array:
    """Mean normalised entropy of the gates: :math:`-\\sum_m p_m\\log p_m/\\log M`,
    :math:`p = g/\\sum_m g_m` (1: uniform over experts; 0: one expert).

    Example:
        >>> import jax.numpy as jnp
        >>> round(float(gate_entropy(jnp.full((3, 4), 0.5))), 6)
        1.0
    """
    M = gates.shape[-1]
    p = gates / jnp.maximum(jnp.sum(gates, -1, keepdims=True), 1e-30)
    h = -jnp.sum(jnp.where(p > 0, p * jnp.log(jnp.where(p > 0, p, 1.0)), 0.0), -1)
    return jnp.mean(h) / jnp.log(float(max(M, 2)))


def _layer_io(inter):
    """Per layer: (input at this state, output the next layer sees)."""
    return {
        "W_in": (inter["x"], inter["h"]),
        "Q": (inter["h"], inter["z"]),
        "W1": (inter["h"], inter["e"]),
        "W2": (inter["e"], inter["h_agg"]),
        "W_out": (inter["h_agg"], inter["f"]),
    }


def _apply(layer, W, a, gates):
    if layer == "W1":
        return jnp.einsum("bn,mne->bme", a, W)
    if layer == "W2":  # what reaches h_agg: the gate-weighted sum over experts
        return jnp.einsum("bm,bme,men->bn", gates, a, W)
    return a @ W


def refined_coord_check(p0: dict, pt: dict, inter0: dict, intert: dict) -> dict:
    """Per-layer effective and propagating update RMS and activation RMS (2605.14200 RCC).

    Args:
        p0: parameters at init.
        pt: parameters at step t.
        inter0: intermediates of :func:`~jaxtheory.sims.moe.model.moe_forward` at init on
            the probe inputs.
        intert: the same at step t.

    Returns:
        ``{"effective", "propagating", "activation"}``, each an array over
        :data:`~jaxtheory.sims.moe.param.LAYERS`.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> from jaxtheory.sims.moe import MoEMLP, moe_forward
        >>> m = MoEMLP(N=8, M=2, N_e=4, d_out=2)
        >>> p = jax.jit(m.init)(jax.random.key(0), jnp.ones((1, 3)))["params"]
        >>> i0 = jax.jit(lambda p: moe_forward(m, p, jnp.ones((4, 3)))[1])(p)
        >>> out = jax.jit(refined_coord_check)(p, p, i0, i0)
        >>> out["effective"].tolist(), out["activation"].shape
        ([0.0, 0.0, 0.0, 0.0, 0.0], (5,))
    """
    io0, iot = _layer_io(inter0), _layer_io(intert)
    gt = intert["gates"]
    eff, prop, act = [], [], []
    for layer in LAYERS:
        a0, at = io0[layer][0], iot[layer][0]
        eff.append(rms(_apply(layer, pt[layer] - p0[layer], at, gt)))
        prop.append(rms(_apply(layer, p0[layer], at - a0, gt)))
        act.append(rms(iot[layer][1]))
    return {"effective": jnp.stack(eff), "propagating": jnp.stack(prop), "activation": jnp.stack(act)}


def aggregate_decomposition(inter0: dict, intert: dict) -> jax.Array:
    """RMS of the four terms of :math:`h_{agg,t}` (:data:`AGG_TERMS`; they sum to it).

    Args:
        inter0: intermediates at init on the probe inputs.
        intert: intermediates at step t on the same inputs.

    Returns:
        Array of 4 RMS values: base, gate, expert, cross.

    Example:
        >>> import jax.numpy as jnp
        >>> i0 = {"gates": jnp.ones((2, 3)), "o": jnp.ones((2, 3, 4))}
        >>> it = {"gates": 2 * jnp.ones((2, 3)), "o": jnp.ones((2, 3, 4))}
        >>> aggregate_decomposition(i0, it).tolist()
        [3.0, 3.0, 0.0, 0.0]
    """
    g0, o0, gt, ot = inter0["gates"], inter0["o"], intert["gates"], intert["o"]
    dg, do = gt - g0, ot - o0
    agg = lambda g, o: jnp.einsum("bm,bmn->bn", g, o)  # noqa: E731
    return jnp.stack([rms(agg(g0, o0)), rms(agg(dg, o0)), rms(agg(g0, do)), rms(agg(dg, do))])
