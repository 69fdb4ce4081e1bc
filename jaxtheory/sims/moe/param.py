"""Parameterizations of the MLP-MoE as data: SP, NTP, μP, MSSP and μP with a global Adam ε.

arXiv 2605.14200 (Vankadara, Haas et al., "How to Scale Mixture-of-Experts: From μP to
the Maximally Scale-Stable Parameterization"). The per-layer tables are transcribed
once, from the authors' code (``scaling_configs.py``), into
:data:`MUP_TABLE`: for every regime and quantity (init std, SGD learning-rate
multiplier, Adam learning-rate multiplier, Adam-ε multiplier) each layer's value is a
*monomial* in the dimensions :math:`(d_{in}, N, N_e, M, K)`, e.g. the regime-II SGD
learning rate of the expert down-projection :math:`\\eta\\,M N`. Values are absolute (as
in the authors' code: Adam learning rates are :math:`\\eta/\\text{fan-in}`), so the base
learning rate :math:`\\eta` is the one the tuned runs of the code use.

MSSP is μP plus structural changes (:data:`MSSP_CHANGES`): a zero router in regime I,
the expert down-projection init multiplied by :math:`\\sqrt M` in regime II, and tied
expert initialization in regime III. In every μP/MSSP rule the output layer is
zero-initialised. SP, NTP and μP-with-global-ε are derived from the same data
(:func:`layer_rules`).

The authors' tuned base-width multipliers (from their
``tuned_multipliers.py``) are :data:`TUNED_MULTIPLIERS`: per
optimizer × regime × rule a base learning rate, one init-std multiplier for every
layer and one learning-rate multiplier per role (input, output, router, expert up- and
down-projection), constants in width. :func:`parameterization` applies them with
``tuned=True``, exactly as the authors' ``moe_training.py`` does: every layer's init std
times ``init``, every layer's learning rate times its role's multiplier, Adam ε
unchanged.

Applied through :func:`init_params` (per-layer init std, tied experts) and
:func:`moe_optimizer` (an optax transform with per-label Adam ε and per-label update
scaling around any base optimizer; the base learning rate may be a traced scalar).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

__all__ = [
    "LAYERS",
    "RULES",
    "OPTIMIZERS",
    "REGIMES",
    "M_BASE",
    "BASE_LR",
    "ZERO",
    "MUP_TABLE",
    "MSSP_CHANGES",
    "TUNED_MULTIPLIERS",
    "TunedMultipliers",
    "tuned_multipliers",
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
]

#: Layer names, in forward order: input layer, router, expert up-projection, expert
#: down-projection, output layer.
LAYERS = ("W_in", "Q", "W1", "W2", "W_out")
#: Parameterization rules: standard, neural-tangent, μP, MSSP, μP with one global Adam ε.
RULES = ("sp", "ntp", "mup", "mssp", "mup_global_eps")
#: Base optimizers whose learning rates and ε the tables give.
OPTIMIZERS = ("sgd", "adam")
#: Scaling regimes: I (N ≍ N_e), II (N ≍ M ≍ K), III (all proportional).
REGIMES = ("I", "II", "III")
#: Base number of experts of the gate normalisation :math:`(M_{base}/K)^\alpha`.
M_BASE = 8
#: Base learning rate per optimizer without tuned multipliers: the authors' tuned base
#: η; a run's learning rate is ``base_lr * lr_scale``.
BASE_LR = {"adam": 0.16, "sgd": 0.04}

#: A monomial :math:`\prod_d d^{e_d}` as a sorted tuple of ``(dimension, exponent)``.
Monomial = tuple


def monomial(**exponents: float) -> Monomial:
    """A monomial :math:`\\prod_d d^{e_d}` in the MoE dimensions, as hashable data.

    Args:
        **exponents: ``dimension=exponent`` for ``d_in``, ``N``, ``N_e``, ``M``, ``K``.

    Returns:
        A sorted tuple of ``(dimension, exponent)`` pairs (empty for the constant 1).

    Example:
        >>> monomial(N=-0.5, M=1)
        (('M', 1), ('N', -0.5))
    """
    bad = set(exponents) - {"d_in", "N", "N_e", "M", "K"}
    if bad:
        raise ValueError(f"unknown dimensions {sorted(bad)}")
    return tuple(sorted((k, v) for k, v in exponents.items() if v != 0))


#: Marker for a zero-initialised layer (in place of an init-std monomial).
ZERO = None

_m = monomial
_ONE = _m()

#: μP per-layer table of arXiv 2605.14200 (as implemented in the authors' code):
#: ``MUP_TABLE[regime][quantity][layer]`` is a :data:`Monomial` (or
#: :data:`ZERO`); quantities ``init`` (absolute std), ``sgd_lr`` and ``adam_lr``
#: (multipliers of the base learning rate) and ``adam_eps`` (multiplier of the base ε).
MUP_TABLE: dict = {
    "I": {
        "init": {"W_in": _m(d_in=-0.5), "Q": _m(N=-1), "W1": _m(N=-0.5), "W2": _m(N_e=-0.5), "W_out": ZERO},
        "sgd_lr": {"W_in": _m(N=1), "Q": _m(N=-1), "W1": _ONE, "W2": _ONE, "W_out": _m(N=-1)},
        "adam_lr": {"W_in": _m(d_in=-1), "Q": _m(N=-1), "W1": _m(N=-1), "W2": _m(N_e=-1), "W_out": _m(N=-1)},
        # the authors' table gives only the exponent n^-1 for W1/W2, not the formula: 1/N is used.
        "adam_eps": {"W_in": _m(N=-1), "Q": _ONE, "W1": _m(N=-1), "W2": _m(N=-1), "W_out": _ONE},
    },
    "II": {
        "init": {"W_in": _m(d_in=-0.5), "Q": _m(N=-0.5), "W1": _m(N=-0.5), "W2": _m(N_e=-0.5), "W_out": ZERO},
        "sgd_lr": {
            "W_in": _m(N=1),
            "Q": _m(M=1, N=-1),
            "W1": _m(M=1, N=-1),
            "W2": _m(M=1, N=1),
            "W_out": _m(N=-1),
        },
        "adam_lr": {"W_in": _m(d_in=-1), "Q": _m(N=-1), "W1": _m(N=-1), "W2": _m(N_e=-1), "W_out": _m(N=-1)},
        "adam_eps": {"W_in": _m(N=-1), "Q": _m(M=-1), "W1": _m(M=-1), "W2": _m(N=-1, M=-1), "W_out": _ONE},
    },
    "III": {
        "init": {"W_in": _m(d_in=-0.5), "Q": _m(N=-0.5), "W1": _m(N=-0.5), "W2": _m(N_e=-0.5), "W_out": ZERO},
        # router SGD LR: the table gives only n^0, not the formula: M/N as in regime II.
        "sgd_lr": {"W_in": _m(N=1), "Q": _m(M=1, N=-1), "W1": _m(M=1), "W2": _m(M=1), "W_out": _m(N=-1)},
        "adam_lr": {"W_in": _m(d_in=-1), "Q": _m(N=-1), "W1": _m(N=-1), "W2": _m(N_e=-1), "W_out": _m(N=-1)},
        "adam_eps": {
            "W_in": _m(N=-1),
            "Q": _m(M=-1),
            "W1": _m(N=-1, M=-1),
            "W2": _m(N=-1, M=-1),
            "W_out": _ONE,
        },
    },
}

#: MSSP's structural changes to μP per regime: ``init`` entries
#: replace μP's init std (zero router in I, :math:`\sqrt{M/N_e}` expert down-projection in
#: II); ``tie_experts`` ties every expert to one initial copy (III).
MSSP_CHANGES: dict = {
    "I": {"init": {"Q": ZERO}, "tie_experts": False},
    "II": {"init": {"W2": _m(M=0.5, N_e=-0.5)}, "tie_experts": False},
    "III": {"init": {}, "tie_experts": True},
}

_FAN_IN = {"W_in": "d_in", "Q": "N", "W1": "N", "W2": "N_e", "W_out": "N"}


@dataclasses.dataclass(frozen=True)
class TunedMultipliers:
    """One row of the authors' tuned base-width multipliers.

    Attributes:
        config: the authors' scaling-config name.
        key: the entry of that config in their ``tuned_multipliers.py`` (``soft``: soft
            routing, zero output init, experts shared where the rule ties them;
            ``_no_shared``: untied experts; ``_ll1overN``: output layer initialised with
            std 1/N instead of 0).
        base_lr: the base learning rate :math:`\\eta`.
        init: multiplier of every layer's init std.
        lr: learning-rate multiplier per layer of :data:`LAYERS`, as a tuple in that order.
        best_val_top5: the best validation top-5 accuracy of the authors' tuning run
            (TinyImageNet), as the authors report it.
    """

    config: str
    key: str
    base_lr: float
    init: float
    lr: tuple
    best_val_top5: float

    def per_layer(self) -> dict[str, float]:
        """``{layer: learning-rate multiplier}``."""
        return dict(zip(LAYERS, self.lr))


def _row(config, key, base_lr, init, lr_in, lr_out, lr_router, lr_w1, lr_w2, top5):
    # the authors' column order (init×, lr_in, lr_out, lr_router, lr_W1, lr_W2) -> LAYERS
    return TunedMultipliers(config, key, base_lr, init, (lr_in, lr_router, lr_w1, lr_w2, lr_out), top5)


_SGD_I = _row("fixed_E_mup_multfree", "soft", 0.04, 1.0, 0.016, 256.0, 1.0, 1.0, 1.0, 0.300)
_SGD_III = _row(
    "mup_stdinit_allscaling_multfree",
    "soft_no_shared_ll1overN",
    0.04,
    1.0,
    1 / 16,
    4.0,
    4096.0,
    1 / 4,
    1 / 16,
    0.291,
)
_ADAM_I = _row("fixed_E_mup_adam", "soft", 0.16, 1.0, 4.0, 1.0, 1.0, 1.0, 1.0, 0.293)
_ADAM_III = _row(
    "mup_adam_allscaling_stdinit_ours",
    "soft_no_shared_ll1overN",
    0.16,
    0.25,
    1.0,
    4.0,
    1.0,
    4.0,
    1 / 16,
    0.3265,
)

#: The authors' tuned base-width multipliers (arXiv 2605.14200; their
#: ``tuned_multipliers.py``, best accuracy at the base width with soft routing):
#: ``TUNED_MULTIPLIERS[(optimizer, regime, rule)]`` for ``rule`` in ``("mup", "mssp")``.
#: Regime II has one row per rule; in regimes I and III the authors give one row per
#: optimizer and both rules use it (regime I: μP and MSSP share the config and differ
#: only in the router init; regime III: the row was tuned without tied experts, i.e. on
#: μP). Four rows (II μP, III) were tuned with a 1/N output init (``_ll1overN``); the
#: rules here keep the zero output init of the tables, so those rows are used outside
#: the exact setting they were tuned in.
TUNED_MULTIPLIERS: dict = {
    ("sgd", "I", "mup"): _SGD_I,
    ("sgd", "I", "mssp"): _SGD_I,
    ("sgd", "II", "mup"): _row(
        "mup_bottleneck_stdinit", "soft_ll1overN", 0.01, 0.25, 1 / 256, 2.0**20, 16.0, 64.0, 1 / 256, 0.296
    ),
    ("sgd", "II", "mssp"): _row(
        "mup_bottleneck_ours", "soft", 0.01, 0.25, 1 / 64, 65536.0, 4.0, 1.0, 1 / 64, 0.3135
    ),
    ("sgd", "III", "mup"): _SGD_III,
    ("sgd", "III", "mssp"): _SGD_III,
    ("adam", "I", "mup"): _ADAM_I,
    ("adam", "I", "mssp"): _ADAM_I,
    ("adam", "II", "mup"): _row(
        "mup_bottleneck_adam_stdinit_multfree",
        "soft_ll1overN",
        0.16,
        0.25,
        4.0,
        64.0,
        1 / 4,
        1 / 16,
        1 / 16,
        0.317,
    ),
    ("adam", "II", "mssp"): _row(
        "mup_bottleneck_adam_multfree", "soft", 0.16, 0.25, 4.0, 4.0, 4.0, 1 / 4, 1 / 256, 0.3267
    ),
    ("adam", "III", "mup"): _ADAM_III,
    ("adam", "III", "mssp"): _ADAM_III,
}


def tuned_multipliers(rule: str, optimizer: str, regime: str) -> TunedMultipliers:
    """The authors' tuned base-width multipliers of a rule × optimizer × regime.

    Args:
        rule: ``"mup"`` or ``"mssp"`` (the rules the authors tuned).
        optimizer: ``"sgd"`` or ``"adam"``.
        regime: ``"I"``, ``"II"`` or ``"III"``.

    Returns:
        The :class:`TunedMultipliers` row of :data:`TUNED_MULTIPLIERS`.

    Example:
        >>> tm = tuned_multipliers("mssp", "adam", "II")
        >>> tm.base_lr, tm.init, tm.per_layer()["W2"]
        (0.16, 0.25, 0.00390625)
    """
    key = (optimizer, regime, rule)
    if key not in TUNED_MULTIPLIERS:
        raise ValueError(
            f"no tuned multipliers for rule {rule!r}, optimizer {optimizer!r}, "
            f"regime {regime!r}: the authors tuned 'mup' and 'mssp' with "
            f"{OPTIMIZERS} in {REGIMES}"
        )
    return TUNED_MULTIPLIERS[key]


@dataclasses.dataclass(frozen=True)
class LayerRule:
    """One layer's scalings as monomials in the dimensions.

    Attributes:
        init: init std (:data:`ZERO` for a zero-initialised layer).
        lr: learning-rate multiplier of the base :math:`\\eta`.
        eps: Adam-ε multiplier of the base :math:`\\varepsilon` (1 for SGD).
    """

    init: Monomial | None
    lr: Monomial
    eps: Monomial


def layer_rules(rule: str, optimizer: str, regime: str) -> dict[str, LayerRule]:
    """Every layer's :class:`LayerRule` for a rule × optimizer × regime (arXiv 2605.14200).

    μP and MSSP come from :data:`MUP_TABLE` (MSSP with :data:`MSSP_CHANGES`); SP is
    :math:`1/\\sqrt{\\text{fan-in}}` init with learning rate :math:`\\eta/N` and one ε;
    NTP is its multiplier-free form: a forward multiplier :math:`a = \\text{fan-in}^{-1/2}`
    on unit-variance weights with a flat learning rate equals, by the abc symmetry, SGD
    learning rate :math:`a^2\\eta`, Adam learning rate :math:`a\\eta` and Adam ε
    :math:`\\varepsilon/a` on the product weights.

    Args:
        rule: one of :data:`RULES`.
        optimizer: ``"sgd"`` or ``"adam"``.
        regime: ``"I"``, ``"II"`` or ``"III"``.

    Returns:
        ``{layer: LayerRule}`` over :data:`LAYERS`.

    Example:
        >>> layer_rules("mssp", "adam", "II")["W2"].init
        (('M', 0.5), ('N_e', -0.5))
    """
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; use one of {RULES}")
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}; use one of {OPTIMIZERS}")
    if regime not in REGIMES:
        raise ValueError(f"unknown regime {regime!r}; use one of {REGIMES}")
    out = {}
    for layer in LAYERS:
        fan = _FAN_IN[layer]
        if rule in ("sp", "ntp"):
            init = _m(**{fan: -0.5})
            if rule == "sp":
                lr, eps = _m(N=-1), _ONE
            elif optimizer == "sgd":
                lr, eps = _m(**{fan: -1}), _ONE
            else:
                lr, eps = _m(**{fan: -0.5}), _m(**{fan: 0.5})
        else:
            t = MUP_TABLE[regime]
            init = t["init"][layer]
            if rule == "mssp":
                init = MSSP_CHANGES[regime]["init"].get(layer, init)
            lr = t[f"{optimizer}_lr"][layer]
            eps = t["adam_eps"][layer] if (optimizer == "adam" and rule != "mup_global_eps") else _ONE
        if optimizer == "sgd":
            eps = _ONE
        out[layer] = LayerRule(init, lr, eps)
    return out


def moe_dims(
    regime: str,
    width: int,
    *,
    m_ratio: int = 8,
    m_fixed: int = 4,
    n_e_fixed: int = 8,
    top_k: int | None = None,
) -> dict[str, int]:
    """The MoE dimensions of a regime at width :math:`N`.

    Regime I: :math:`M = m_{fixed}`, :math:`N_e = N`; regime II: :math:`M = N/m_{ratio}`,
    :math:`N_e = n_{e,fixed}`; regime III: :math:`M = N/m_{ratio}`, :math:`N_e = N`.
    :math:`K = M` (soft routing) unless ``top_k`` is given.

    Args:
        regime: ``"I"``, ``"II"`` or ``"III"``.
        width: the hidden width :math:`N`.
        m_ratio: :math:`N/M` in regimes II and III.
        m_fixed: :math:`M` in regime I.
        n_e_fixed: :math:`N_e` in regime II.
        top_k: experts per token (None: all).

    Returns:
        ``{"N", "N_e", "M", "K"}``.

    Example:
        >>> moe_dims("II", 64)
        {'N': 64, 'N_e': 8, 'M': 8, 'K': 8}
    """
    if regime == "I":
        M, N_e = m_fixed, width
    elif regime == "II":
        M, N_e = max(1, width // m_ratio), n_e_fixed
    elif regime == "III":
        M, N_e = max(1, width // m_ratio), width
    else:
        raise ValueError(f"unknown regime {regime!r}; use one of {REGIMES}")
    K = M if top_k is None else min(int(top_k), M)
    return {"N": int(width), "N_e": int(N_e), "M": int(M), "K": int(K)}


def _eval(mono: Monomial | None, dims: Mapping[str, int]) -> float:
    if mono is ZERO:
        return 0.0
    return float(math.prod(float(dims[d]) ** e for d, e in mono))


@dataclasses.dataclass(frozen=True)
class Parameterization:
    """A rule × optimizer × regime at concrete dimensions: per-layer numbers.

    Attributes:
        rule: one of :data:`RULES`.
        optimizer: ``"sgd"`` or ``"adam"``.
        regime: ``"I"``, ``"II"`` or ``"III"``.
        dims: ``{"d_in", "N", "N_e", "M", "K"}``.
        init_std: per-layer init std (0 for zero init).
        lr_mult: per-layer learning-rate multiplier.
        eps_mult: per-layer Adam-ε multiplier.
        tie_experts: every expert starts as a copy of expert 0 (MSSP regime III).
        alpha: gate-normalisation exponent (1 in II/III, 0 in I).
        base_lr: the base learning rate :math:`\\eta` the multipliers apply to
            (:data:`BASE_LR`, or the tuned row's).
        tuned: the authors' tuned multipliers (:data:`TUNED_MULTIPLIERS`) are applied.
    """

    rule: str
    optimizer: str
    regime: str
    dims: tuple
    init_std: tuple
    lr_mult: tuple
    eps_mult: tuple
    tie_experts: bool
    alpha: float
    base_lr: float = 0.0
    tuned: bool = False

    def dim(self, name: str) -> int:
        """One dimension by name."""
        return dict(self.dims)[name]

    def per_layer(self, field: str) -> dict[str, float]:
        """``{layer: value}`` of ``init_std``, ``lr_mult`` or ``eps_mult``."""
        return dict(zip(LAYERS, getattr(self, field)))

    def numbers(self) -> RuleNumbers:
        """The per-layer numbers as float32 arrays (see :class:`RuleNumbers`)."""
        f = lambda v: jnp.asarray(v, jnp.float32)  # noqa: E731
        return RuleNumbers(
            f(self.init_std),
            f(self.lr_mult),
            f(self.eps_mult),
            f(1.0 if self.tie_experts else 0.0),
            f(self.base_lr),
        )


class RuleNumbers(NamedTuple):
    """A rule's per-layer numbers as arrays, so rules can be batched with ``vmap``.

    Rules at the same dimensions differ only in these numbers (MSSP's structural
    changes included: a zero std, a larger std, a tie flag), so one compiled program
    can run several rules side by side.

    Attributes:
        init_std: ``(5,)`` init std per layer of :data:`LAYERS`.
        lr_mult: ``(5,)`` learning-rate multipliers.
        eps_mult: ``(5,)`` Adam-ε multipliers.
        tie: scalar, 1.0 when the experts start tied.
        base_lr: scalar, the base learning rate :math:`\\eta` of the rule.
    """

    init_std: jax.Array
    lr_mult: jax.Array
    eps_mult: jax.Array
    tie: jax.Array
    base_lr: jax.Array


def stack_numbers(pzs) -> RuleNumbers:
    """Stack the :class:`RuleNumbers` of several parameterizations along a leading axis.

    Example:
        >>> d = {"d_in": 8, **moe_dims("I", 16)}
        >>> nums = stack_numbers([parameterization(r, "adam", "I", d) for r in ("mup", "mssp")])
        >>> nums.init_std.shape, nums.init_std[:, 1].tolist()
        ((2, 5), [0.0625, 0.0])
    """
    return jax.tree.map(lambda *a: jnp.stack(a), *[pz.numbers() for pz in pzs])


def parameterization(
    rule: str, optimizer: str, regime: str, dims: Mapping[str, int], *, tuned: bool = False
) -> Parameterization:
    """Evaluate :func:`layer_rules` at concrete dimensions (arXiv 2605.14200).

    With ``tuned=True`` the authors' tuned base-width multipliers
    (:func:`tuned_multipliers`) are applied as their code applies them: every layer's
    init std times the row's ``init``, each layer's learning-rate multiplier times its
    role's, and the row's base learning rate; Adam ε is unchanged.

    Args:
        rule: one of :data:`RULES` (``"mup"`` or ``"mssp"`` with ``tuned=True``).
        optimizer: ``"sgd"`` or ``"adam"``.
        regime: ``"I"``, ``"II"`` or ``"III"``.
        dims: ``d_in``, ``N``, ``N_e``, ``M``, ``K``.
        tuned: apply :data:`TUNED_MULTIPLIERS`.

    Returns:
        A :class:`Parameterization`.

    Example:
        >>> dims = {"d_in": 32, **moe_dims("II", 64)}
        >>> pz = parameterization("mup", "sgd", "II", dims)
        >>> pz.per_layer("lr_mult")["W2"], pz.per_layer("init_std")["W_out"], pz.base_lr
        (512.0, 0.0, 0.04)
        >>> parameterization("mup", "sgd", "II", dims, tuned=True).per_layer("lr_mult")["W2"]
        2.0
    """
    rules = layer_rules(rule, optimizer, regime)
    dims = {k: int(dims[k]) for k in ("d_in", "N", "N_e", "M", "K")}
    tie = rule == "mssp" and MSSP_CHANGES[regime]["tie_experts"]
    init = [_eval(rules[l].init, dims) for l in LAYERS]
    lr = [_eval(rules[l].lr, dims) for l in LAYERS]
    base_lr = BASE_LR[optimizer]
    if tuned:
        tm = tuned_multipliers(rule, optimizer, regime)
        init = [v * tm.init for v in init]
        lr = [v * c for v, c in zip(lr, tm.lr)]
        base_lr = tm.base_lr
    return Parameterization(
        rule,
        optimizer,
        regime,
        tuple(sorted(dims.items())),
        tuple(init),
        tuple(lr),
        tuple(_eval(rules[l].eps, dims) for l in LAYERS),
        bool(tie),
        0.0 if regime == "I" else 1.0,
        float(base_lr),
        bool(tuned),
    )


def param_shapes(pz: Parameterization, d_out: int) -> dict[str, tuple[int, ...]]:
    """Shapes of the MoE's parameters: experts stacked on a leading axis of size M.

    Example:
        >>> pz = parameterization("mup", "adam", "III", {"d_in": 8, **moe_dims("III", 16)})
        >>> param_shapes(pz, 4)["W1"]
        (2, 16, 16)
    """
    d_in, N, N_e, M = (pz.dim(k) for k in ("d_in", "N", "N_e", "M"))
    return {"W_in": (d_in, N), "Q": (N, M), "W1": (M, N, N_e), "W2": (M, N_e, N), "W_out": (N, d_out)}


def init_params(
    pz: Parameterization, d_out: int, key: jax.Array, dtype=jnp.float32, *, numbers: RuleNumbers | None = None
) -> dict[str, jax.Array]:
    """Draw the MoE's parameters: :math:`W = \\sigma_\\ell\\,\\xi`, :math:`\\xi_{ij}\\sim N(0,1)`.

    Per-layer std :math:`\\sigma_\\ell` from ``pz`` (0: zero init); with
    ``pz.tie_experts`` every expert's ``W1``/``W2`` is a copy of expert 0 (MSSP,
    regime III). One standard-normal draw of all entries, cut in :data:`LAYERS` order.

    Args:
        pz: the :class:`Parameterization`.
        d_out: output dimension :math:`C`.
        key: PRNG key.
        dtype: parameter dtype.
        numbers: per-layer numbers to use instead of ``pz``'s (may be traced, e.g.
            one rule of a vmapped :func:`stack_numbers`); ``pz`` then only fixes shapes.

    Returns:
        ``{"W_in", "Q", "W1", "W2", "W_out"}``.

    Example:
        >>> import jax
        >>> pz = parameterization("mssp", "adam", "III", {"d_in": 8, **moe_dims("III", 16)})
        >>> p = init_params(pz, 4, jax.random.key(0))
        >>> bool((p["W1"][0] == p["W1"][1]).all()), float(abs(p["W_out"]).max())
        (True, 0.0)
    """
    shapes = param_shapes(pz, d_out)
    sizes = [math.prod(shapes[layer]) for layer in LAYERS]
    # one draw for all layers (one PRNG kernel: compiles far faster than five under vmap)
    flat = jax.random.normal(key, (sum(sizes),), dtype)
    offsets = [0, *itertools.accumulate(sizes)]
    out = {}
    for i, layer in enumerate(LAYERS):
        shape = shapes[layer]
        w = flat[offsets[i] : offsets[i + 1]].reshape(shape)
        if layer in ("W1", "W2"):
            if numbers is None:
                if pz.tie_experts:
                    w = jnp.broadcast_to(w[:1], shape)
            else:
                w = jnp.where(numbers.tie > 0, jnp.broadcast_to(w[:1], shape), w)
        std = pz.init_std[i] if numbers is None else numbers.init_std[i]
        out[layer] = (w * std).astype(dtype)
    return out


class _ScaleByTreeState(optax.EmptyState):
    pass


def scale_by_tree(scales) -> optax.GradientTransformation:
    """Multiply each update leaf by its own scale: :math:`u_\\ell \\leftarrow c_\\ell u_\\ell`.

    Args:
        scales: a pytree with the params' structure (or a prefix of it) of floats.

    Returns:
        A stateless :class:`optax.GradientTransformation`.

    Example:
        >>> import jax.numpy as jnp
        >>> tx = scale_by_tree({"a": 2.0, "b": 0.5})
        >>> u, _ = tx.update({"a": jnp.ones(2), "b": jnp.ones(2)}, tx.init(None))
        >>> u["a"].tolist(), u["b"].tolist()
        ([2.0, 2.0], [0.5, 0.5])
    """

    def init_fn(params):
        del params
        return optax.EmptyState()

    def update_fn(updates, state, params=None):
        del params
        return jax.tree.map(lambda c, u: (c * u).astype(u.dtype), scales, updates), state

    return optax.GradientTransformation(init_fn, update_fn)


def _adam(eps):
    return optax.scale_by_adam(b1=0.9, b2=0.999, eps=eps)


def moe_optimizer(
    pz: Parameterization,
    learning_rate,
    *,
    eps=1e-8,
    base: Callable[[object], optax.GradientTransformation] | None = None,
    numbers: RuleNumbers | None = None,
) -> optax.GradientTransformation:
    """The per-layer optimizer of a parameterization around a base optimizer.

    .. math::
        W_\\ell \\leftarrow W_\\ell - \\eta\\, c_\\ell\\, \\mathrm{base}_{\\varepsilon\\, e_\\ell}(g_\\ell)

    with per-layer learning-rate multiplier :math:`c_\\ell` and ε multiplier
    :math:`e_\\ell` from ``pz`` (arXiv 2605.14200). Built as
    ``chain(multi_transform({layer: base(eps·e_layer)}), scale_by_tree(c), scale(-η))``,
    so any base direction slots in; ``learning_rate`` and ``eps`` may be traced scalars.

    Args:
        pz: the :class:`Parameterization`.
        learning_rate: base learning rate :math:`\\eta`.
        eps: base Adam ε.
        base: ``eps -> GradientTransformation`` giving the update direction
            (default: ``scale_by_adam`` for ``"adam"``, identity for ``"sgd"``).
        numbers: per-layer numbers to use instead of ``pz``'s (may be traced).

    Returns:
        An :class:`optax.GradientTransformation` over ``{"W_in", ..., "W_out"}``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> pz = parameterization("mup", "sgd", "I", {"d_in": 4, **moe_dims("I", 8)})
        >>> p = init_params(pz, 2, jax.random.key(0))
        >>> tx = moe_optimizer(pz, 0.1)
        >>> g = jax.tree.map(jnp.ones_like, p)
        >>> u, _ = tx.update(g, tx.init(p))
        >>> round(float(u["W_in"][0, 0]), 6), round(float(u["W_out"][0, 0]), 6)
        (-0.8, -0.0125)
    """
    if base is None:
        base = _adam if pz.optimizer == "adam" else (lambda e: optax.identity())
    eps_mult = pz.eps_mult if numbers is None else [numbers.eps_mult[i] for i in range(len(LAYERS))]
    lr_mult = pz.lr_mult if numbers is None else [numbers.lr_mult[i] for i in range(len(LAYERS))]
    transforms = {layer: base(eps * e) for layer, e in zip(LAYERS, eps_mult)}
    labels = {layer: layer for layer in LAYERS}
    return optax.chain(
        optax.multi_transform(transforms, labels),
        scale_by_tree(dict(zip(LAYERS, lr_mult))),
        optax.scale(-learning_rate),
    )
