"""Tasks for the MoE runs, none downloaded (arXiv 2605.14200).

* ``"teacher"``: teacher–student regression, :math:`x \\sim N(0, I_d)`,
  :math:`y = \\tanh(xA)\\,b/8` with a fixed random teacher :math:`A \\in \\mathbb
  R^{d\\times 64}` (entries :math:`N(0, 1/d)`, so :math:`xA` has unit variance) and
  :math:`b \\in \\mathbb R^{64\\times C}` (entries :math:`N(0,1)`).
* ``"teacher_moe"``: a fixed random MoE teacher (width 64, 4 experts of width 16,
  :math:`1/\\sqrt{\\text{fan-in}}` init, soft routing), output rescaled to unit variance.
* ``"digits"``: scikit-learn's :func:`~sklearn.datasets.load_digits` (shipped with the
  package; 64 pixels, 10 classes), pixels in :math:`[0,1]` centred on the training mean,
  one-hot targets for the MSE (as the authors' code), a fixed 80/20 split.

Teachers and splits are fixed by ``seed`` (built once in numpy, outside ``jit``, and
closed over as constants). Training batches are fresh draws from the lane's data key
(online for the teachers, with replacement from the training split for digits); the
evaluation set is fixed.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["TASKS", "Task", "make_task", "sample_batch", "task_dims"]

#: Task names accepted by :func:`make_task`.
TASKS = ("teacher", "teacher_moe", "digits")

_TEACHER_WIDTH = 64


class Task(NamedTuple):
    """A task's constants: the kind, the teacher/data arrays and a fixed evaluation set.

    Attributes:
        kind: one of :data:`TASKS`.
        consts: the teacher's weights, or the training split (``x``, ``y``).
        eval_x: evaluation inputs ``(n_eval, d_in)``.
        eval_y: evaluation targets ``(n_eval, d_out)``.
        labels: integer evaluation labels (digits) or None.
    """

    kind: str
    consts: dict
    eval_x: np.ndarray
    eval_y: np.ndarray
    labels: np.ndarray | None


def task_dims(kind: str, d_in: int, d_out: int) -> tuple[int, int]:
    """The input and output dimensions of a task (digits fixes them at 64 and 10).

    Example:
        >>> task_dims("digits", 32, 4), task_dims("teacher", 32, 4)
        ((64, 10), (32, 4))
    """
    if kind == "digits":
        return 64, 10
    return int(d_in), int(d_out)


def _teacher_fn(kind: str, c: dict):
    if kind == "teacher":
        return lambda x: jnp.tanh(x @ c["A"]) @ c["b"] / 8.0
    if kind == "teacher_moe":

        def f(x):
            h = jax.nn.gelu(x @ c["W_in"], approximate=False)
            g = jax.nn.sigmoid(h @ c["Q"])
            e = jax.nn.gelu(jnp.einsum("bn,mne->bme", h, c["W1"]), approximate=False)
            o = jnp.einsum("bme,men->bmn", e, c["W2"])
            return jnp.einsum("bm,bmn->bn", g, o) @ c["W_out"] * c["scale"]

        return f
    raise ValueError(f"no teacher for task {kind!r}")


@functools.lru_cache(maxsize=16)
def _make(kind: str, d_in: int, d_out: int, seed: int, n_eval: int) -> Task:
    rng = np.random.default_rng(seed)
    if kind == "digits":
        from sklearn.datasets import load_digits

        x, y = load_digits(return_X_y=True)
        x = x.astype(np.float32) / 16.0
        perm = np.random.RandomState(seed).permutation(x.shape[0])
        n_test = int(round(0.2 * x.shape[0]))
        test, train = perm[:n_test], perm[n_test:]
        x = x - x[train].mean(axis=0)
        onehot = np.eye(10, dtype=np.float32)[y]
        consts = {"x": x[train], "y": onehot[train]}
        return Task(kind, consts, x[test], onehot[test], y[test].astype(np.int32))
    if kind == "teacher":
        consts = {
            "A": rng.normal(0, 1 / np.sqrt(d_in), (d_in, _TEACHER_WIDTH)),
            "b": rng.normal(0, 1, (_TEACHER_WIDTH, d_out)),
        }
    elif kind == "teacher_moe":
        n, m, ne = _TEACHER_WIDTH, 4, 16
        consts = {
            "W_in": rng.normal(0, 1 / np.sqrt(d_in), (d_in, n)),
            "Q": rng.normal(0, 1 / np.sqrt(n), (n, m)),
            "W1": rng.normal(0, 1 / np.sqrt(n), (m, n, ne)),
            "W2": rng.normal(0, 1 / np.sqrt(ne), (m, ne, n)),
            "W_out": rng.normal(0, 1 / np.sqrt(n), (n, d_out)),
            "scale": 1.0,
        }
    else:
        raise ValueError(f"unknown task {kind!r}; use one of {TASKS}")
    consts = {k: np.asarray(v, np.float32) for k, v in consts.items()}
    ex = rng.normal(size=(n_eval, d_in)).astype(np.float32)
    with jax.ensure_compile_time_eval():  # constants, even when first built under a trace
        if kind == "teacher_moe":
            probe = np.asarray(_teacher_fn(kind, consts)(jnp.asarray(ex)))
            consts["scale"] = np.float32(1.0 / max(float(probe.std()), 1e-6))
        ey = np.asarray(_teacher_fn(kind, consts)(jnp.asarray(ex)), np.float32)
    return Task(kind, consts, ex, ey, None)


def make_task(kind: str, d_in: int = 32, d_out: int = 4, seed: int = 0, n_eval: int = 512) -> Task:
    """Build (and cache) a task's constants and its fixed evaluation set.

    Args:
        kind: one of :data:`TASKS`.
        d_in: input dimension (ignored for digits).
        d_out: output dimension (ignored for digits).
        seed: fixes the teacher, the evaluation set and the digits split.
        n_eval: size of the evaluation set (teachers only).

    Returns:
        A :class:`Task`.

    Example:
        >>> t = make_task("teacher", d_in=8, d_out=2, n_eval=16)
        >>> t.eval_x.shape, t.eval_y.shape
        ((16, 8), (16, 2))
    """
    d_in, d_out = task_dims(kind, d_in, d_out)
    return _make(kind, d_in, d_out, int(seed), int(n_eval))


def sample_batch(task: Task, key: jax.Array, batch: int) -> tuple[jax.Array, jax.Array]:
    """A fresh minibatch: new Gaussian inputs for the teachers, a draw with replacement
    from the training split for digits.

    Example:
        >>> import jax
        >>> x, y = sample_batch(make_task("digits"), jax.random.key(0), 5)
        >>> x.shape, y.shape
        ((5, 64), (5, 10))
    """
    c = {k: jnp.asarray(v) for k, v in task.consts.items()}
    if task.kind == "digits":
        idx = jax.random.randint(key, (batch,), 0, c["x"].shape[0])
        return c["x"][idx], c["y"][idx]
    d_in = task.eval_x.shape[1]
    x = jax.random.normal(key, (batch, d_in), jnp.float32)
    return x, _teacher_fn(task.kind, c)(x)
