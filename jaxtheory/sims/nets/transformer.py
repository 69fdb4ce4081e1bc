r"""A small attention-only transformer in pure ``jnp`` whose heads can be read and patched.

The model (no MLPs, no layer norm, as in the "attention-only" circuits of
Elhage et al. 2021) maps tokens :math:`t_1..t_T` to logits

.. math::
    x^{(0)}_i = E[t_i] + P_i, \qquad
    x^{(l+1)} = x^{(l)} + \sum_h o^{(l,h)}, \qquad
    o^{(l,h)} = \operatorname{softmax}\Big(\frac{(x W_Q^{lh})(x W_K^{lh})^\top}{\sqrt{d_h}}
        + M\Big)\, x W_V^{lh} W_O^{lh}, \qquad
    \text{logits} = x^{(L)} U,

with the causal mask :math:`M` (:math:`-\infty` above the diagonal). :func:`forward`
returns the logits and every head's output :math:`o^{(l,h)} \in \mathbb R^{T\times d}`
(its additive contribution to the residual stream), and takes a ``patch``: a mask over
heads (or heads × positions) and replacement values, so that a head's output in one run
can be swapped for its output in another (activation patching, see
:mod:`jaxtheory.sims.nets.interp`). :func:`fit` trains the model with Adam in a jitted
``lax.scan`` on batches drawn by a sampler.

Parameters are a dict: ``embed (V, d)``, ``pos (T, d)``, ``wq``/``wk``/``wv``
``(L, H, d, d_h)``, ``wo (L, H, d_h, d)`` and ``unembed (d, V)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import jax
import jax.numpy as jnp
import optax

__all__ = ["init", "forward", "final_logits", "final_position_loss", "fit", "shape_of"]

_NEG = -1e9  # the causal mask's "minus infinity": finite, so a fully masked row cannot give NaN


def init(
    key,
    vocab: int,
    seq_len: int,
    *,
    d_model: int = 32,
    n_layers: int = 2,
    n_heads: int = 4,
    d_head: int | None = None,
    dtype=jnp.float32,
) -> dict:
    """Random parameters: every matrix N(0, 1/fan_in), embeddings N(0, 1).

    Args:
        key: PRNG key.
        vocab: vocabulary size ``V``.
        seq_len: the largest sequence length ``T`` (rows of the positional embedding).
        d_model: residual width ``d``.
        n_layers: number of attention layers ``L``.
        n_heads: heads per layer ``H``.
        d_head: width of a head (default ``d_model // n_heads``).
        dtype: parameter dtype.

    Returns:
        The parameter dict (see the module docs).

    Example:
        >>> p = init(jax.random.key(0), 10, 6)
        >>> p["wq"].shape, p["unembed"].shape
        ((2, 4, 32, 8), (32, 10))
    """
    if min(vocab, seq_len, d_model, n_layers, n_heads) < 1:
        raise ValueError("vocab, seq_len, d_model, n_layers and n_heads must all be >= 1")
    dh = d_head if d_head is not None else d_model // n_heads
    if dh < 1:
        raise ValueError(f"d_head must be >= 1 (d_model {d_model} // n_heads {n_heads} is 0)")
    s_in, s_h = d_model**-0.5, dh**-0.5
    shapes = {
        "embed": ((vocab, d_model), 1.0),
        "pos": ((seq_len, d_model), 1.0),
        "wq": ((n_layers, n_heads, d_model, dh), s_in),
        "wk": ((n_layers, n_heads, d_model, dh), s_in),
        "wv": ((n_layers, n_heads, d_model, dh), s_in),
        "wo": ((n_layers, n_heads, dh, d_model), s_h),
        "unembed": ((d_model, vocab), s_in),
    }
    # one draw for every matrix: each jax.random call is a threefry program of its own,
    # and on CPU each adds a fraction of a second of compile time
    sizes = [math.prod(shape) for shape, _ in shapes.values()]
    flat = jax.random.normal(key, (sum(sizes),), dtype)
    out, start = {}, 0
    for (name, (shape, scale)), size in zip(shapes.items(), sizes):
        out[name] = scale * flat[start : start + size].reshape(shape)
        start += size
    return out


def shape_of(params: dict) -> tuple[int, int, int]:
    """``(n_layers, n_heads, d_model)`` of a parameter dict.

    Example:
        >>> shape_of(init(jax.random.key(0), 10, 6, n_heads=2))
        (2, 2, 32)
    """
    n_layers, n_heads, d_model, _ = params["wq"].shape
    return int(n_layers), int(n_heads), int(d_model)


def forward(params: dict, tokens, patch: tuple | None = None):
    """Logits and per-head outputs of one sequence, optionally with heads patched.

    Args:
        params: the parameter dict.
        tokens: ``(T,)`` integer tokens (``T`` at most the positional table's length).
        patch: ``None``, or ``(mask, values)``: ``mask`` of shape ``(L, H)`` or
            ``(L, H, T)`` in [0, 1] and ``values`` of shape ``(L, H, T, d)``; where the
            mask is 1 a head's output is replaced by ``values`` (before later layers read
            it), ``o <- (1 - mask) o + mask values`` (exact where the mask is 0 or 1).

    Returns:
        ``(logits, heads)``: ``(T, V)`` logits and ``(L, H, T, d)`` head outputs (the
        patched ones where patched).
    """
    tokens = jnp.asarray(tokens)
    if tokens.ndim != 1:
        raise ValueError(f"forward takes one sequence of shape (T,), got {tokens.shape}; vmap for batches")
    T = tokens.shape[0]
    n_layers, n_heads, d = shape_of(params)
    if T > params["pos"].shape[0]:
        raise ValueError(f"sequence of length {T} exceeds the positional table ({params['pos'].shape[0]})")
    if patch is not None:
        mask, values = patch
        mask = jnp.asarray(mask)
        if mask.shape not in ((n_layers, n_heads), (n_layers, n_heads, T)):
            raise ValueError(f"patch mask must have shape (L, H) or (L, H, T), got {mask.shape}")
        mask = mask.reshape(n_layers, n_heads, -1, 1)
        if values.shape != (n_layers, n_heads, T, d):
            raise ValueError(f"patch values must have shape {(n_layers, n_heads, T, d)}, got {values.shape}")
    x = params["embed"][tokens] + params["pos"][:T]
    causal = jnp.tril(jnp.ones((T, T), bool))
    dh = params["wq"].shape[-1]
    outs = []
    for layer in range(n_layers):
        q = jnp.einsum("td,hde->hte", x, params["wq"][layer])
        k = jnp.einsum("td,hde->hte", x, params["wk"][layer])
        v = jnp.einsum("td,hde->hte", x, params["wv"][layer])
        scores = jnp.einsum("hie,hje->hij", q, k) / jnp.sqrt(jnp.asarray(dh, x.dtype))
        attn = jax.nn.softmax(jnp.where(causal, scores, _NEG), axis=-1)
        o = jnp.einsum("hij,hje,hed->hid", attn, v, params["wo"][layer])
        if patch is not None:
            o = (1 - mask[layer]) * o + mask[layer] * values[layer]
        outs.append(o)
        x = x + o.sum(0)
    return x @ params["unembed"], jnp.stack(outs)


def final_logits(params: dict, tokens, patch: tuple | None = None):
    """Logits at the last position of one sequence (:func:`forward`'s ``logits[-1]``)."""
    return forward(params, tokens, patch)[0][-1]


def final_position_loss(params: dict, tokens, targets):
    """Mean cross-entropy of the last position's logits against ``targets``.

    Args:
        params: the parameter dict.
        tokens: ``(B, T)`` batch of sequences.
        targets: ``(B,)`` the token each sequence's last position should predict.

    Returns:
        The scalar mean loss.
    """
    logits = jax.vmap(final_logits, (None, 0))(params, tokens)
    return optax.softmax_cross_entropy_with_integer_labels(logits, targets).mean()


@partial(jax.jit, static_argnames=("sample", "steps"))
def fit(params: dict, sample: Callable, key, *, steps: int, learning_rate=1e-2):
    """Train with Adam on the last-position loss, one fresh batch per step (jitted scan).

    Args:
        params: initial parameters.
        sample: ``sample(key) -> (tokens (B, T), targets (B,))``, a pure function
            (static: a new function is a new compile).
        key: PRNG key of the batches.
        steps: number of Adam steps (static).
        learning_rate: Adam's step size (may be traced).

    Returns:
        ``(params, losses)``: the trained parameters and the ``(steps,)`` batch losses.
    """
    opt = optax.adam(learning_rate)

    def step(carry, k):
        p, s = carry
        tokens, targets = sample(k)
        loss, g = jax.value_and_grad(final_position_loss)(p, tokens, targets)
        u, s = opt.update(g, s, p)
        return (optax.apply_updates(p, u), s), loss

    (params, _), losses = jax.lax.scan(step, (params, opt.init(params)), jax.random.split(key, steps))
    return params, losses
