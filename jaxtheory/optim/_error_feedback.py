"""Error feedback for compressed updates: EF14 / EF-SGD and EF21, with per-worker buffers.

Both wrap an inner optax transform and a contractive compressor from
:mod:`jaxtheory.optim._compress`. With ``num_workers=W`` the gradients carry a leading
worker axis of size ``W`` (worker ``m`` computes its gradient on its own data at the
shared parameters), every worker keeps its own buffer (a leading worker axis in the
state), and the returned update is shared (no worker axis): the server averages the
compressed messages.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params
from jaxtheory.optim._value import _as_key

__all__ = ["ErrorFeedbackState", "error_feedback"]


class ErrorFeedbackState(NamedTuple):
    """State of :func:`error_feedback`.

    Attributes:
        inner_state: state of the inner transform (stacked along the worker axis for
            EF14 with ``num_workers``; one shared state for EF21).
        error: EF14: the error buffer :math:`e` in model units (what was not sent), so
            that the *virtual iterate* :math:`x-e` follows the uncompressed inner
            method. EF21: the gradient estimators :math:`h` (gradient units). Has a
            leading worker axis when ``num_workers`` is given.
        key: PRNG key for stochastic compressors (split once per step).
    """

    inner_state: Any
    error: Any
    key: jax.Array


def _check_workers(tree, num_workers, what):
    for leaf in jax.tree.leaves(tree):
        if jnp.ndim(leaf) < 1 or jnp.shape(leaf)[0] != num_workers:
            raise ValueError(
                f"{what} must have a leading worker axis of size {num_workers}; "
                f"got a leaf of shape {jnp.shape(leaf)}"
            )


def error_feedback(
    inner: optax.GradientTransformation,
    compressor,
    *,
    variant: str = "ef14",
    num_workers: int | None = None,
    key: int | jax.Array = 0,
) -> optax.GradientTransformationExtraArgs:
    """Error feedback around a compressor: EF14 (EF-SGD, buffer in model units) or EF21.

    **EF14 / EF-SGD** (the inner transform runs per worker, then its update is
    compressed with the buffer added back; with ``inner = optax.sgd(eta)`` the inner
    update is :math:`u=-\\eta g`):

    .. math::
        p_m = e_m - u_m,\\quad c_m = C(p_m),\\quad e_m \\leftarrow p_m - c_m,\\quad
        x \\leftarrow x - \\tfrac1W\\textstyle\\sum_m c_m .

    Hence the virtual iterate obeys :math:`x-\\bar e \\leftarrow (x-\\bar e)+\\bar u`
    exactly (plain SGD driven by gradients taken at :math:`x`), and with the identity
    compressor :math:`e\\equiv0` and the trajectory is the inner method's, bit for bit.

    **EF21** (Richtarik, Sokolov & Fatkhullin; gradient estimators :math:`h_m`, starting
    at 0 so that :math:`h_m^0=C(g_m^0)`; the inner transform sees the averaged estimate):

    .. math::
        h_m \\leftarrow h_m + C(g_m - h_m),\\qquad
        x \\leftarrow x + \\mathrm{inner}\\big(\\tfrac1W\\textstyle\\sum_m h_m\\big).

    **Params.** whatever ``inner`` takes, in float16, bfloat16, float32 or float64 (any
    shapes; ``None`` and size-0 leaves allowed); complex params are refused, since the
    compressors act on real entries. With ``num_workers`` the gradients (not the
    params) carry the worker axis, so :class:`optax.MultiSteps`, whose accumulators are
    shaped like the params, cannot wrap it.

    Args:
        inner: the optimizer whose update is compressed (EF14) or that consumes the
            aggregated estimator (EF21), e.g. ``optax.sgd(eta)``; its float
            hyperparameters may be traced.
        compressor: a callable ``(key, tree) -> tree``, e.g. ``top_k(6)``; it should be
            contractive (see :mod:`jaxtheory.optim._compress`).
        variant: ``"ef14"`` (default) or ``"ef21"`` (static).
        num_workers: ``None`` for one node (gradients shaped like params), or the static
            number of workers ``W``: gradients then have a leading axis of size ``W``,
            buffers are per worker, params and the returned update are shared.
        key: seed (an int, or an integer scalar array such as a traced seed) or PRNG key of
            the compressor's randomness; may be traced.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` with state
        :class:`ErrorFeedbackState`; extra keyword arguments go to the inner update.

    Example:
        >>> import jax, jax.numpy as jnp, optax
        >>> from jaxtheory.optim import error_feedback, top_k
        >>> opt = error_feedback(optax.sgd(0.1), top_k(1))
        >>> x = jnp.array([1.0, -2.0]); state = opt.init(x)
        >>> for _ in range(3):
        ...     u, state = opt.update(2 * x, state, x)   # gradient of |x|^2
        ...     x = optax.apply_updates(x, u)
        >>> x, state.error
        (Array([ 0.6 , -0.96], dtype=float32), Array([0.12, 0.  ], dtype=float32))

    References:
        Seide et al. 2014 (1-bit SGD); Stich, Cordonnier & Jaggi, arXiv:1809.07599;
        Karimireddy et al., arXiv:1901.09847; Richtarik, Sokolov & Fatkhullin, *EF21*,
        arXiv:2106.05203.
    """
    if variant not in ("ef14", "ef21"):
        raise ValueError(f"variant must be 'ef14' or 'ef21', got {variant!r}")
    if num_workers is not None and (not isinstance(num_workers, int) or num_workers < 1):
        raise ValueError(f"num_workers must be None or a positive int, got {num_workers!r}")
    inner = optax.with_extra_args_support(inner)
    W = num_workers

    def init_fn(params):
        check_float_params(params, "error_feedback")
        zeros = jax.tree.map(jnp.zeros_like, params)
        if W is None:
            error = zeros
        else:
            error = jax.tree.map(lambda z: jnp.broadcast_to(z, (W,) + z.shape).copy(), zeros)
        if variant == "ef14" and W is not None:
            inner_state = jax.vmap(lambda _: inner.init(params))(jnp.arange(W))
        else:
            inner_state = inner.init(params)
        return ErrorFeedbackState(inner_state, error, _as_key(key))

    def compress_all(k, tree):
        if W is None:
            return compressor(k, tree)
        return jax.vmap(compressor)(jax.random.split(k, W), tree)

    def mean_workers(tree):
        if W is None:
            return tree
        return jax.tree.map(lambda x: jnp.mean(x, axis=0), tree)

    def update_fn(grads, state, params=None, **extra_args):
        if W is not None:
            _check_workers(grads, W, "grads")
        new_key, sub = jax.random.split(state.key)
        if variant == "ef14":
            if W is None:
                u, inner_state = inner.update(grads, state.inner_state, params, **extra_args)
            else:
                u, inner_state = jax.vmap(lambda g, s: inner.update(g, s, params, **extra_args))(
                    grads, state.inner_state
                )
            p = jax.tree.map(lambda e, v: e - v, state.error, u)
            c = compress_all(sub, p)
            error = jax.tree.map(lambda a, b: a - b, p, c)
            updates = jax.tree.map(lambda x: -x, mean_workers(c))
        else:
            diff = jax.tree.map(lambda g, h: g - h, grads, state.error)
            c = compress_all(sub, diff)
            error = jax.tree.map(lambda h, v: h + v, state.error, c)
            updates, inner_state = inner.update(mean_workers(error), state.inner_state, params, **extra_args)
        if params is not None:
            updates = jax.tree.map(lambda v, x: v.astype(jnp.asarray(x).dtype), updates, params)
        return updates, ErrorFeedbackState(inner_state, error, new_key)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)
