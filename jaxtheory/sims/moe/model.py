"""The MLP-MoE of arXiv 2605.14200 as a flax linen module.

.. math::
    h = \\varphi(x W_{in}),\\quad z = h Q,\\quad
    g_m = \\sigma(z_m)\\,(M_{base}/K)^{\\alpha}\\,[m \\in \\mathrm{TopK}(z)],\\\\
    e_m = \\varphi(h W^{(1)}_m),\\quad o_m = e_m W^{(2)}_m,\\quad
    h_{agg} = \\textstyle\\sum_m g_m o_m,\\quad f = h_{agg} W_{out}.

Multiplier-free: every scaling lives in the init std and the learning rate
(:mod:`~jaxtheory.sims.moe.param`). Soft routing is :math:`K = M` (every expert
active); top-K keeps the K largest router logits per token. The gate normalisation
:math:`(M_{base}/K)^\\alpha` equals the authors' MLP code's :math:`(M_{base}/M)^\\alpha`
under soft routing; with top-K we normalise by the number of *active* experts, as their
transformer code does (only K terms enter the sum). The module returns the
intermediates :math:`(h, z, g, e, o, h_{agg})` the diagnostics need; unused ones are
dead code under ``jit``.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from jaxtheory.sims.moe.param import M_BASE

__all__ = ["ACTIVATIONS", "MoEMLP", "route", "moe_forward"]

#: Nonlinearities :math:`\varphi` by name (GELU is the default, tanh-approximated off).
ACTIVATIONS = {
    "gelu": lambda x: jax.nn.gelu(x, approximate=False),
    "relu": jax.nn.relu,
    "tanh": jnp.tanh,
}


def route(z: jax.Array, K: int, alpha: float, m_base: int = M_BASE) -> jax.Array:
    """Sigmoid gates on the top-K router logits, normalised by :math:`(M_{base}/K)^\\alpha`.

    .. math::
        g_m = \\sigma(z_m)\\,(M_{base}/K)^\\alpha\\ \\text{if } z_m \\text{ is among the K
        largest logits, else } 0.

    Args:
        z: router logits ``(..., M)``.
        K: active experts per token (``K >= M``: soft routing, all active).
        alpha: normalisation exponent (1 in regimes II/III, 0 in regime I).
        m_base: base number of experts.

    Returns:
        Gates of ``z``'s shape.

    Example:
        >>> import jax.numpy as jnp
        >>> g = route(jnp.array([0.0, 1.0, -1.0, 2.0]), K=2, alpha=1.0, m_base=2)
        >>> [round(v, 3) for v in g.tolist()]
        [0.0, 0.731, 0.0, 0.881]
    """
    M = z.shape[-1]
    g = jax.nn.sigmoid(z) * (float(m_base) / float(min(K, M))) ** alpha
    if K < M:
        kth = jax.lax.top_k(z, K)[0][..., -1:]
        g = jnp.where(z >= kth, g, 0.0)
    return g


class MoEMLP(nn.Module):
    """One-MoE-layer MLP: input layer, sigmoid router, M experts, output layer (2605.14200).

    Parameters ``W_in (d_in, N)``, ``Q (N, M)``, ``W1 (M, N, N_e)``, ``W2 (M, N_e, N)``,
    ``W_out (N, d_out)``. The module's own initializers are placeholders
    (standard normal / fan-in); draw parameters of a rule with
    :func:`jaxtheory.sims.moe.param.init_params`.

    Attributes:
        N: hidden width.
        M: number of experts.
        N_e: expert width.
        d_out: output dimension.
        K: active experts per token (None: soft routing, K = M).
        alpha: gate-normalisation exponent.
        activation: key of :data:`ACTIVATIONS`.
        m_base: base number of experts.
    """

    N: int
    M: int
    N_e: int
    d_out: int
    K: int | None = None
    alpha: float = 1.0
    activation: str = "gelu"
    m_base: int = M_BASE

    @nn.compact
    def __call__(self, x: jax.Array):
        """``(f, intermediates)`` for inputs ``x (B, d_in)``."""
        phi = ACTIVATIONS[self.activation]
        init = nn.initializers.lecun_normal()
        W_in = self.param("W_in", init, (x.shape[-1], self.N))
        Q = self.param("Q", init, (self.N, self.M))
        W1 = self.param("W1", init, (self.M, self.N, self.N_e))
        W2 = self.param("W2", init, (self.M, self.N_e, self.N))
        W_out = self.param("W_out", init, (self.N, self.d_out))
        h = phi(x @ W_in)
        z = h @ Q
        K = self.M if self.K is None else self.K
        g = route(z, K, self.alpha, self.m_base)
        B, M, N_e = h.shape[0], self.M, self.N_e
        # all experts' up-projections as one (N, M·N_e) matmul; the aggregate as one
        # (M·N_e, N) matmul of the gated expert activations: sum_m g_m e_m W2_m.
        e = phi(h @ W1.transpose(1, 0, 2).reshape(self.N, M * N_e)).reshape(B, M, N_e)
        h_agg = (g[:, :, None] * e).reshape(B, M * N_e) @ W2.reshape(M * N_e, self.N)
        o = jnp.einsum("bme,men->bmn", e, W2)  # per-expert outputs (diagnostics only)
        f = h_agg @ W_out
        return f, {"x": x, "h": h, "z": z, "gates": g, "e": e, "o": o, "h_agg": h_agg, "f": f}


def moe_forward(model: MoEMLP, params: dict, x: jax.Array):
    """Apply ``model`` to a flat parameter dict: ``(f, intermediates)``.

    Args:
        model: the :class:`MoEMLP`.
        params: ``{"W_in", "Q", "W1", "W2", "W_out"}``.
        x: inputs ``(B, d_in)``.

    Returns:
        The output ``f (B, d_out)`` and the dict of intermediates
        ``x, h, z, gates, e, o, h_agg, f``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> m = MoEMLP(N=8, M=2, N_e=4, d_out=3)
        >>> p = m.init(jax.random.key(0), jnp.ones((1, 5)))["params"]
        >>> f, inter = moe_forward(m, p, jnp.ones((2, 5)))
        >>> f.shape, inter["o"].shape
        ((2, 3), (2, 2, 8))
    """
    return model.apply({"params": params}, x)
