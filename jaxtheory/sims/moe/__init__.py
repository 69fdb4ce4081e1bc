"""Mixture-of-experts scaling: μP and MSSP across width, experts and sparsity (arXiv 2605.14200).

Vankadara, Haas et al., "How to Scale Mixture-of-Experts: From μP to the Maximally
Scale-Stable Parameterization" (arXiv 2605.14200).

* :mod:`~jaxtheory.sims.moe.model`: the MLP-MoE (flax linen): input layer, sigmoid
  router with :math:`(M_{base}/K)^\\alpha` gate normalisation, M experts, soft or top-K
  routing, output layer; intermediates exposed for diagnostics.
* :mod:`~jaxtheory.sims.moe.param`: the per-layer tables (init std, learning-rate and
  Adam-ε multipliers) of SP, NTP, μP, MSSP and μP-with-global-ε for SGD and Adam in
  regimes I–III, and the authors' tuned base-width multipliers, as data; the init
  function and the per-layer optax transform.
* :mod:`~jaxtheory.sims.moe.tasks`: teacher–student regression, an MoE teacher, and
  scikit-learn's digits.
* :mod:`~jaxtheory.sims.moe.train`: :class:`MoESpec` and :func:`run` for the sweep
  engine.
* :mod:`~jaxtheory.sims.moe.diagnostics`: the refined coordinate check and aggregation
  observables.
* :mod:`~jaxtheory.sims.moe.dmft`: the DMFT (N → ∞ limit) of a one-hidden-layer
  soft-routing MoE in regime I, solved by sampling single sites to a damped fixed point,
  and the same network at finite width; import it as a submodule
  (``from jaxtheory.sims.moe import dmft``; its ``run`` is that experiment's simulator).
"""

from jaxtheory.sims.moe.diagnostics import (
    AGG_TERMS,
    aggregate_decomposition,
    gate_entropy,
    refined_coord_check,
    rms,
)
from jaxtheory.sims.moe.model import ACTIVATIONS, MoEMLP, moe_forward, route
from jaxtheory.sims.moe.param import (
    BASE_LR,
    LAYERS,
    M_BASE,
    MSSP_CHANGES,
    MUP_TABLE,
    OPTIMIZERS,
    REGIMES,
    RULES,
    TUNED_MULTIPLIERS,
    ZERO,
    LayerRule,
    Monomial,
    Parameterization,
    RuleNumbers,
    TunedMultipliers,
    init_params,
    layer_rules,
    moe_dims,
    moe_optimizer,
    monomial,
    param_shapes,
    parameterization,
    scale_by_tree,
    stack_numbers,
    tuned_multipliers,
)
from jaxtheory.sims.moe.tasks import TASKS, Task, make_task, sample_batch, task_dims
from jaxtheory.sims.moe.train import (
    DEFAULT_PARAMS,
    METRIC_DIMS,
    MoESpec,
    log_steps,
    mse,
    run,
    spec_dims,
    spec_model,
    spec_parameterization,
)

__all__ = [
    # model
    "ACTIVATIONS",
    "MoEMLP",
    "moe_forward",
    "route",
    # parameterizations
    "LAYERS",
    "RULES",
    "OPTIMIZERS",
    "REGIMES",
    "M_BASE",
    "ZERO",
    "MUP_TABLE",
    "MSSP_CHANGES",
    "TUNED_MULTIPLIERS",
    "TunedMultipliers",
    "tuned_multipliers",
    "BASE_LR",
    "Monomial",
    "LayerRule",
    "Parameterization",
    "RuleNumbers",
    "stack_numbers",
    "monomial",
    "moe_dims",
    "layer_rules",
    "parameterization",
    "param_shapes",
    "init_params",
    "scale_by_tree",
    "moe_optimizer",
    # tasks
    "TASKS",
    "Task",
    "make_task",
    "sample_batch",
    "task_dims",
    # training
    "DEFAULT_PARAMS",
    "METRIC_DIMS",
    "MoESpec",
    "log_steps",
    "spec_dims",
    "spec_parameterization",
    "spec_model",
    "mse",
    "run",
    # diagnostics
    "AGG_TERMS",
    "rms",
    "gate_entropy",
    "refined_coord_check",
    "aggregate_decomposition",
]
