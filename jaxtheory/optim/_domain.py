"""Domain checks shared by the transforms: what params they take, refused at ``init``.

Every check runs on the params given to ``init`` (at trace time under ``jit``): dtypes
and shapes always, values only when they are concrete (an eager ``init``). A params tree
without leaves is the placeholder :func:`optax.tree.map_params` initializes with; it
passes every check.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

REAL_DTYPES = "float16, bfloat16, float32 or float64"
COMPLEX_FIX = (
    "optimize the real and imaginary parts as real leaves instead (e.g. with "
    "optax.contrib.split_real_and_imaginary)"
)


def is_placeholder(params: Any) -> bool:
    """True for a params tree without array leaves (:func:`optax.tree.map_params`)."""
    return not jax.tree.leaves(params)


def check_float_params(params: Any, name: str, *, complex_ok: bool = False) -> None:
    """Refuses params that are not floating point (or complex, unless ``complex_ok``).

    Raises:
        ValueError: naming the leaf, the dtypes ``name`` takes, and the fix.
    """
    for leaf in jax.tree.leaves(params):
        dt = jnp.result_type(leaf)
        if jnp.issubdtype(dt, jnp.complexfloating):
            if complex_ok:
                continue
            raise ValueError(
                f"{name} takes real floating params ({REAL_DTYPES}); got a {dt} leaf of shape "
                f"{jnp.shape(leaf)}: {COMPLEX_FIX}"
            )
        if not jnp.issubdtype(dt, jnp.floating):
            kinds = f"floating ({REAL_DTYPES}" + (", or complex)" if complex_ok else ")")
            raise ValueError(
                f"{name} takes {kinds} params; got a {dt} leaf of shape {jnp.shape(leaf)}: cast the "
                "params to a float dtype"
            )


def concrete(x: Any) -> np.ndarray | None:
    """``x`` as a float64 numpy array when its value is known (not a tracer), else None."""
    if isinstance(x, jax.core.Tracer):
        return None
    return np.asarray(x).astype(np.float64)


def value_tol(x: Any, scale: float = 1.0) -> float:
    """A tolerance for value checks: a few rounding steps of ``x``'s dtype times ``scale``."""
    return 32.0 * float(jnp.finfo(jnp.result_type(x)).eps) * max(1.0, scale)


def check_simplex(params: Any, name: str) -> None:
    """Refuse params that are not points of the probability simplex along their last axis.

    Every leaf must have a last axis; where its values are known (eager ``init``), its
    entries must be ``>= 0`` with a positive sum along that axis (a zero entry stays 0).

    Raises:
        ValueError: naming the domain and the fix.
    """
    check_float_params(params, name)
    for leaf in jax.tree.leaves(params):
        if jnp.ndim(leaf) < 1:
            raise ValueError(
                f"{name} takes probability vectors along the last axis of every leaf; got a scalar "
                "leaf: give it a last axis (a simplex of size 1 never moves) or route it elsewhere "
                "with optax.partition"
            )
        value = concrete(leaf)
        if value is not None and value.size and not (np.all(value >= 0) and np.all(value.sum(-1) > 0)):
            raise ValueError(
                f"{name} takes points of the probability simplex (entries >= 0 with a positive "
                f"sum along the last axis; a zero entry stays 0); got a leaf of shape "
                f"{jnp.shape(leaf)} with least entry {value.min():.3g} and row sums "
                f"{value.sum(-1)}: start from positive weights, e.g. the uniform distribution"
            )
