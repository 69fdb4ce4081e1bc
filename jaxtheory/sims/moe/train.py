"""Training runs of the MLP-MoE as pure functions, for the sweep engine (arXiv 2605.14200).

:func:`run` draws the parameters of a rule (:func:`~jaxtheory.sims.moe.param.init_params`),
trains them with the rule's per-layer optimizer
(:func:`~jaxtheory.sims.moe.param.moe_optimizer`) on fresh minibatches (``lax.scan``
under :func:`~jaxtheory.divergence.guarded_scan`), and returns the loss curve, the final
evaluation loss and the diagnostics of :mod:`~jaxtheory.sims.moe.diagnostics` at init
and at the end. Width, regime, rule, optimizer and task are static (:class:`MoESpec`);
the learning-rate scale and ε are parameters that may be traced, so ``vmap`` over
(learning rate, seed) at a fixed width is one compiled program. A run never raises on
blow-up: a lane that goes non-finite freezes and its final metrics are NaN.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.sims.moe.diagnostics import (
    AGG_TERMS,
    aggregate_decomposition,
    gate_entropy,
    refined_coord_check,
    rms,
)
from jaxtheory.sims.moe.model import MoEMLP, moe_forward
from jaxtheory.sims.moe.param import (
    LAYERS,
    Parameterization,
    init_params,
    moe_dims,
    moe_optimizer,
    parameterization,
    stack_numbers,
)
from jaxtheory.divergence import first_nonfinite
from jaxtheory.sims import _record
from jaxtheory.sims.moe.tasks import make_task, sample_batch, task_dims
from jaxtheory.simulator import Simulator

__all__ = [
    "DEFAULT_PARAMS",
    "METRIC_DIMS",
    "MoESpec",
    "log_steps",
    "spec_dims",
    "spec_parameterization",
    "spec_model",
    "mse",
    "run",
]

#: Default of every parameter :func:`run` reads: learning-rate scale and base Adam ε.
DEFAULT_PARAMS = {"lr_scale": 1.0, "eps": 1e-8}
_OWN_DIMS = {
    "loss": ("step",),
    "init_loss": (),
    "final_loss": (),
    "final_acc": (),
    "rms_h_agg0": (),
    "rms_z0": (),
    "gate_entropy0": (),
    "act_rms0": ("layer",),
    "rms_h_agg0_draws": ("draw",),
    "rms_z0_draws": ("draw",),
    "rms_h_agg": (),
    "rms_dh_agg": (),
    "rms_z": (),
    "gate_entropy": (),
    "agg_terms": ("term",),
    "rcc_effective": ("layer",),
    "rcc_propagating": ("layer",),
    "act_rms": ("layer",),
    "expert_spread": (),
}
#: Each metric's own dimensions (for the sweep engine's ``metric_dims``): a leading
#: ``rule`` dimension (the rules of ``MoESpec.rules``), then the metric's own.
METRIC_DIMS = {k: ("rule", *v) for k, v in _OWN_DIMS.items()}


@dataclasses.dataclass(frozen=True)
class MoESpec:
    """Everything that fixes shapes and structure of an MoE run (the compile key).

    Attributes:
        width: hidden width :math:`N`.
        regime: ``"I"``, ``"II"`` or ``"III"`` (sets :math:`M, N_e` from :math:`N`).
        rules: rules of :data:`~jaxtheory.sims.moe.param.RULES` run side by side in
            each lane (vmapped: same init key and batches, one compile).
        optimizer: ``"sgd"`` or ``"adam"``.
        task: one of :data:`~jaxtheory.sims.moe.tasks.TASKS`.
        d_in: input dimension (teachers).
        d_out: output dimension (teachers).
        steps: optimizer steps.
        batch_size: minibatch size.
        top_k: active experts per token (None: soft routing).
        m_ratio: :math:`N/M` in regimes II/III.
        m_fixed: :math:`M` in regime I.
        n_e_fixed: :math:`N_e` in regime II.
        activation: nonlinearity name.
        task_seed: fixes the teacher / data split.
        n_eval: evaluation-set size (teachers).
        n_probe: probe inputs for the diagnostics (first of the evaluation set).
        num_log: about how many log-spaced steps of the loss curve are kept.
        init_draws: independent init draws per lane whose initial ``h_agg`` and router
            logits are measured (the lane's own first; at least 1): init statistics
            that do not depend on training, with more draws than lanes.
        tuned: apply the authors' tuned base-width multipliers
            (:data:`~jaxtheory.sims.moe.param.TUNED_MULTIPLIERS`: base learning rate,
            init-std and per-role learning-rate multipliers) to every rule.
    """

    width: int = 64
    regime: str = "III"
    rules: tuple = ("mup", "mssp")
    optimizer: str = "adam"
    task: str = "teacher"
    d_in: int = 32
    d_out: int = 4
    steps: int = 30
    batch_size: int = 64
    top_k: int | None = None
    m_ratio: int = 8
    m_fixed: int = 4
    n_e_fixed: int = 8
    activation: str = "gelu"
    task_seed: int = 0
    n_eval: int = 512
    n_probe: int = 64
    num_log: int = 12
    init_draws: int = 1
    tuned: bool = False


def log_steps(steps: int, num: int) -> np.ndarray:
    """Steps (0 = init, t = after t updates) at which the loss curve is kept: 0, ~``num``
    log-spaced ones, and ``steps``.

    Example:
        >>> log_steps(100, 3).tolist()
        [0, 1, 10, 100]
    """
    return _record.log_steps(steps, num, include_zero=True)


def spec_dims(spec: MoESpec) -> dict[str, int]:
    """``{"d_in", "d_out", "N", "N_e", "M", "K"}`` of a spec.

    Example:
        >>> spec_dims(MoESpec(width=64, regime="II"))
        {'d_in': 32, 'd_out': 4, 'N': 64, 'N_e': 8, 'M': 8, 'K': 8}
    """
    d_in, d_out = task_dims(spec.task, spec.d_in, spec.d_out)
    return {
        "d_in": d_in,
        "d_out": d_out,
        **moe_dims(
            spec.regime,
            spec.width,
            m_ratio=spec.m_ratio,
            m_fixed=spec.m_fixed,
            n_e_fixed=spec.n_e_fixed,
            top_k=spec.top_k,
        ),
    }


def spec_parameterization(spec: MoESpec, rule: str | None = None) -> Parameterization:
    """The :class:`~jaxtheory.sims.moe.param.Parameterization` of a spec's rule (default:
    its first).

    Example:
        >>> spec_parameterization(MoESpec(regime="III"), "mssp").tie_experts
        True
    """
    return parameterization(
        rule or spec.rules[0], spec.optimizer, spec.regime, spec_dims(spec), tuned=spec.tuned
    )


def spec_model(spec: MoESpec) -> MoEMLP:
    """The :class:`~jaxtheory.sims.moe.model.MoEMLP` of a spec.

    Example:
        >>> spec_model(MoESpec(width=32, regime="I")).M
        4
    """
    d = spec_dims(spec)
    pz = spec_parameterization(spec)
    return MoEMLP(
        N=d["N"],
        M=d["M"],
        N_e=d["N_e"],
        d_out=d["d_out"],
        K=None if spec.top_k is None else d["K"],
        alpha=pz.alpha,
        activation=spec.activation,
    )


def mse(f: jax.Array, y: jax.Array) -> jax.Array:
    """Mean squared error over all entries, :math:`\\mathrm{mean}((f-y)^2)`.

    Example:
        >>> import jax.numpy as jnp
        >>> float(mse(jnp.ones((2, 2)), jnp.zeros((2, 2))))
        1.0
    """
    return jnp.mean(jnp.square(f - y))


def run(spec: MoESpec, params: dict, key: jax.Array) -> dict:
    """One training run of the MoE per rule; pure, jittable, vmappable over (LR, seed).

    The key splits into (init, data); step ``t`` trains on
    ``sample_batch(task, fold_in(data, t))``. The rules of ``spec.rules`` run side by
    side under ``vmap`` with the same keys (paired: same init noise, same batches). The
    learning rate is the rule's base (:data:`~jaxtheory.sims.moe.param.BASE_LR` of the
    optimizer, or the tuned row's with ``spec.tuned``) times ``lr_scale``, times each
    layer's multiplier (arXiv 2605.14200). Plain ``lax.scan``: a blow-up propagates NaN/inf into
    the metrics, never an exception; the engine flags the lane.

    Args:
        spec: :class:`MoESpec` (static).
        params: ``lr_scale`` and ``eps`` (may be traced).
        key: PRNG key of the lane.

    Returns:
        Per rule (leading axis): ``loss`` (minibatch loss before each update at
        :func:`log_steps`; at ``steps`` the evaluation loss), ``init_loss`` and
        ``final_loss`` (evaluation set), ``final_acc`` (digits only), the init
        diagnostics ``rms_h_agg0``, ``rms_z0``, ``gate_entropy0``, ``act_rms0`` (per
        layer), ``rms_h_agg0_draws`` and ``rms_z0_draws`` (over ``spec.init_draws``
        init draws: the lane's own, then keys folded from its init key), the final ones ``rms_h_agg``, ``rms_dh_agg`` (:math:`h_{agg,t}-h_{agg,0}`),
        ``rms_z``, ``gate_entropy``, ``agg_terms``, ``rcc_effective``,
        ``rcc_propagating``, ``act_rms`` (per layer), ``expert_spread`` (RMS spread of
        ``W1`` across experts over its RMS); and ``diverged_step``, the first step whose
        loss is non-finite in any rule (-1 if none).

    Example:
        >>> import jax
        >>> spec = MoESpec(width=16, steps=5, batch_size=8, n_eval=32, n_probe=8)
        >>> out = run(spec, DEFAULT_PARAMS, jax.random.key(0))
        >>> out["loss"].shape, out["rcc_effective"].shape, int(out["diverged_step"])
        ((2, 6), (2, 5), -1)
    """
    if spec.init_draws < 1:
        raise ValueError(f"init_draws must be at least 1, got {spec.init_draws}")
    d = spec_dims(spec)
    pzs = [spec_parameterization(spec, r) for r in spec.rules]
    pz = pzs[0]
    model = spec_model(spec)
    task = make_task(spec.task, spec.d_in, spec.d_out, spec.task_seed, spec.n_eval)
    ex, ey = jnp.asarray(task.eval_x), jnp.asarray(task.eval_y)
    probe = ex[: spec.n_probe]
    k_init, k_data = jax.random.split(key)
    at = jnp.asarray(log_steps(spec.steps, spec.num_log), jnp.int32)

    def loss_fn(p, x, y):
        return mse(moe_forward(model, p, x)[0], y)

    grad = jax.value_and_grad(loss_fn)

    def one_rule(nums):
        p0 = init_params(pz, d["d_out"], k_init, numbers=nums)
        tx = moe_optimizer(pz, nums.base_lr * params["lr_scale"], eps=params["eps"], numbers=nums)

        def step(carry, t):
            p, s = carry
            x, y = sample_batch(task, jax.random.fold_in(k_data, t), spec.batch_size)
            loss, g = grad(p, x, y)
            u, s = tx.update(g, s, p)
            return (optax.apply_updates(p, u), s), loss

        (pt, _), losses = jax.lax.scan(step, (p0, tx.init(p0)), jnp.arange(spec.steps))

        def init_rms(k):  # one more init draw: only its forward pass on the probes
            _, i = moe_forward(model, init_params(pz, d["d_out"], k, numbers=nums), probe)
            return rms(i["h_agg"]), rms(i["z"])

        f_end, _ = moe_forward(model, pt, ex)
        final_loss = mse(f_end, ey)
        losses = jnp.concatenate([losses, final_loss[None]])
        _, i0 = moe_forward(model, p0, probe)
        more = (jnp.zeros((0,)), jnp.zeros((0,)))
        if spec.init_draws > 1:  # sequential (lax.map): one extra init in memory at a time
            more = jax.lax.map(init_rms, jax.random.split(jax.random.fold_in(k_init, 1), spec.init_draws - 1))
        _, it = moe_forward(model, pt, probe)
        rcc = refined_coord_check(p0, pt, i0, it)
        extra = {}
        if task.labels is not None:
            extra["final_acc"] = jnp.mean(jnp.argmax(f_end, -1) == jnp.asarray(task.labels))
        w1 = pt["W1"]
        spread = rms(w1 - w1.mean(0, keepdims=True)) / jnp.maximum(rms(w1), 1e-30)
        return {
            "loss": losses[at],
            "init_loss": loss_fn(p0, ex, ey),
            "final_loss": final_loss,
            **extra,
            "rms_h_agg0": rms(i0["h_agg"]),
            "rms_z0": rms(i0["z"]),
            "rms_h_agg0_draws": jnp.concatenate([rms(i0["h_agg"])[None], more[0]]),
            "rms_z0_draws": jnp.concatenate([rms(i0["z"])[None], more[1]]),
            "gate_entropy0": gate_entropy(i0["gates"]),
            "act_rms0": refined_coord_check(p0, p0, i0, i0)["activation"],
            "rms_h_agg": rms(it["h_agg"]),
            "rms_dh_agg": rms(it["h_agg"] - i0["h_agg"]),
            "rms_z": rms(it["z"]),
            "gate_entropy": gate_entropy(it["gates"]),
            "agg_terms": aggregate_decomposition(i0, it),
            "rcc_effective": rcc["effective"],
            "rcc_propagating": rcc["propagating"],
            "act_rms": rcc["activation"],
            "expert_spread": spread,
        }, losses

    out, losses = jax.vmap(one_rule)(stack_numbers(pzs))
    return {**out, "diverged_step": first_nonfinite(losses, axis=1)}  # losses: (rule, step)


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=MoESpec(),
    params=DEFAULT_PARAMS,
    metric_dims=METRIC_DIMS,
    coords=lambda spec: {
        "rule": list(spec.rules),
        "step": log_steps(spec.steps, spec.num_log),
        "layer": list(LAYERS),
        "term": list(AGG_TERMS),
        "draw": np.arange(spec.init_draws),
    },
)
