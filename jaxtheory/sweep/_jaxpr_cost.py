"""Operation counts of a jaxpr with every loop multiplied by its trip count.

XLA's cost analysis (``compiled.cost_analysis()``) counts the body of a ``while`` loop
once, and every ``lax.scan`` becomes such a loop, so a simulator that runs 10⁴ steps in
a scan is charged for one. :func:`jaxpr_cost` walks the jaxpr instead: a ``scan``'s body
is counted ``length`` times, a ``while`` loop's body as many times as the bound its
condition compares its counter with (a literal integer; an *upper* bound, since the loop
may stop earlier; counted once, and named in ``notes``, when no such bound is found), a
``cond``'s most expensive branch once. Each count is also kept with every loop counted
once, as XLA counts, so the two can be compared and XLA's fused byte count scaled by the
loops (:mod:`jaxtheory.sweep.plan`).

The counts are textbook operation counts, not measurements: a matrix product is
``2·M·N·K``, an elementwise operation one per output element (a transcendental function
one transcendental), a reduction one per input element, a sort ``n·log₂ n`` per sorted
row, a factorisation its leading-order count (Cholesky ``n³/3``, LU ``2n³/3``, QR
``2mn²``, symmetric eigendecomposition ``9n³``, SVD ``12mn²``), a Threefry draw 60
integer operations per 32-bit word; data movement (reshape, gather, slice, broadcast)
costs no operation. ``bytes`` is the unfused traffic: every operation reads its inputs
and writes its outputs (an upper estimate of what a fused program moves).
``peak_bytes`` is the largest sum of live values along the program order (values freed
after their last use; a loop body's own peak added while it runs): an estimate of the
memory the program needs, computed without compiling it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["JaxprCost", "jaxpr_cost"]

_TRANSCENDENTAL = frozenset(
    """exp exp2 log log1p expm1 tanh logistic sin cos tan asin acos atan atan2 sinh cosh asinh
    acosh atanh pow sqrt rsqrt cbrt erf erfc erf_inv lgamma digamma igamma igammac igamma_grad_a
    random_gamma_grad bessel_i0e bessel_i1e polygamma zeta regularized_incomplete_beta""".split()
)
_FREE = frozenset(
    """reshape broadcast_in_dim squeeze expand_dims transpose slice dynamic_slice
    dynamic_update_slice gather concatenate pad iota rev convert_element_type bitcast_convert_type
    copy copy_p device_put stop_gradient random_seed random_wrap random_unwrap random_key_data
    sharding_constraint mesh_cast reshard optimization_barrier split empty pvary name
    select_and_gather_add real imag complex conj squeeze_p broadcast""".split()
)
_REDUCE = frozenset(
    """reduce_sum reduce_max reduce_min reduce_prod reduce_and reduce_or reduce_xor argmax argmin
    cumsum cumprod cummax cummin cumlogsumexp reduce_precision""".split()
)
_RANDOM_OPS_PER_WORD = 60  # Threefry-2x32: 20 rounds of add, rotate, xor, plus key injections
_CMP = {"lt": 0, "le": 1, "gt": 0, "ge": 1, "ne": 0}


@dataclasses.dataclass
class JaxprCost:
    """Counts of one program (see the module docstring).

    Attributes:
        flops: operations by ``"matmul:<dtype>"`` / ``"vector:<dtype>"``, loops multiplied.
        transcendentals: transcendental functions evaluated, loops multiplied.
        bytes: unfused bytes read and written, loops multiplied.
        flops_once, transcendentals_once, bytes_once: the same with every loop body
            counted once (as XLA's cost analysis counts).
        iterations: loop iterations run one after another (nested loops multiply).
        peak_bytes: the live-value estimate of the memory the program needs.
        notes: what the counts could not resolve (loops of unknown trip count,
            primitives without a rule).
    """

    flops: dict[str, float] = dataclasses.field(default_factory=dict)
    transcendentals: float = 0.0
    bytes: float = 0.0
    flops_once: float = 0.0
    transcendentals_once: float = 0.0
    bytes_once: float = 0.0
    iterations: float = 0.0
    peak_bytes: float = 0.0
    notes: set[str] = dataclasses.field(default_factory=set)

    @property
    def total_flops(self) -> float:
        return float(sum(self.flops.values()))

    def add(self, other: JaxprCost, times: float = 1.0) -> None:
        for k, v in other.flops.items():
            self.flops[k] = self.flops.get(k, 0.0) + times * v
        self.transcendentals += times * other.transcendentals
        self.bytes += times * other.bytes
        self.flops_once += other.flops_once
        self.transcendentals_once += other.transcendentals_once
        self.bytes_once += other.bytes_once
        self.iterations += times * other.iterations
        self.notes |= other.notes

    def scaled(self, k: float) -> JaxprCost:
        """The counts of ``k`` copies run side by side (a lane's counts scaled to a chunk):
        everything times ``k`` but the loop iterations, which run in step."""
        return JaxprCost(
            {key: k * v for key, v in self.flops.items()},
            k * self.transcendentals,
            k * self.bytes,
            k * self.flops_once,
            k * self.transcendentals_once,
            k * self.bytes_once,
            self.iterations,
            k * self.peak_bytes,
            set(self.notes),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "flops": float(self.total_flops),
            "flops_by_kind": {k: float(v) for k, v in sorted(self.flops.items())},
            "transcendentals": float(self.transcendentals),
            "bytes": float(self.bytes),
            "flops_once": float(self.flops_once),
            "transcendentals_once": float(self.transcendentals_once),
            "bytes_once": float(self.bytes_once),
            "iterations": float(self.iterations),
            "peak_bytes": float(self.peak_bytes),
            "notes": sorted(self.notes),
        }


def _aval(v):
    return getattr(v, "aval", None)


def _is_literal(v) -> bool:
    return type(v).__name__ == "Literal"


def _size(v) -> int:
    shape = getattr(_aval(v), "shape", ())
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def _itemsize(dtype) -> int:
    try:
        return int(np.dtype(dtype).itemsize)
    except TypeError:  # a PRNG key type: two uint32 words (Threefry)
        return 8


def _nbytes(v) -> int:
    a = _aval(v)
    if a is None or not hasattr(a, "dtype"):
        return 0
    return _size(v) * _itemsize(a.dtype)


def _dtype_name(v) -> str:
    a = _aval(v)
    try:
        dt = np.dtype(a.dtype)
    except TypeError:
        return "uint32"
    if dt.kind == "c":
        return {8: "float32", 16: "float64"}[dt.itemsize]
    if dt.kind in "iub":
        return "int"
    return dt.name


def _sub_jaxprs(params) -> Iterable[tuple[str, Any]]:
    for name, p in params.items():
        for q in p if isinstance(p, (tuple, list)) else (p,):
            if hasattr(q, "eqns"):
                yield name, q
            elif hasattr(getattr(q, "jaxpr", None), "eqns"):
                yield name, q.jaxpr


def _trip(eqn, known: list) -> int | None:
    """A ``while`` loop's trip count, when its condition compares a counter with a bound.

    The condition must be ``i < b`` (or ``<=``, ``>``, ``>=``, ``!=``) between a loop
    variable ``i`` and either an integer literal or another loop variable ``b``, the
    counter stepping by one (``fori_loop``'s form); the count is then ``b₀ - i₀`` from the
    initial values when they are known (a literal bound with an unknown start counts from
    0). ``None`` when no such comparison is found.
    """
    cond = eqn.params["cond_jaxpr"]
    cj = cond.jaxpr if hasattr(cond, "jaxpr") else cond
    bj = _closed(eqn.params["body_jaxpr"])[0]
    nc, nb = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]
    init = known[nc + nb :]  # the carries' initial values (None: unknown)
    pos = {v: i for i, v in enumerate(cj.invars[nc:])}
    best = None
    for e in cj.eqns:
        name = e.primitive.name
        if name not in _CMP or len(e.invars) != 2:
            continue
        a, b = e.invars
        if name in ("gt", "ge"):
            a, b = b, a
        extra = _CMP[name]

        def value(v):
            if _is_literal(v):
                return np.asarray(v.val)
            i = pos.get(v)
            return None if i is None or init[i] is None else np.asarray(init[i])

        va, vb = value(a), value(b)
        if vb is None or not np.issubdtype(vb.dtype, np.integer) or vb.size != 1:
            continue
        start = (
            int(va.reshape(-1)[0])
            if va is not None and va.size == 1 and np.issubdtype(va.dtype, np.integer)
            else 0
        )
        step = _advance(bj, pos[a], nb + pos[a]) if a in pos else None
        n = max(int(vb.reshape(-1)[0]) + extra - start, 0)
        n = -(-n // step) if step else n
        best = n if best is None else max(best, n)
    return best


def _leaf(eqn, c: JaxprCost) -> None:
    """Operation counts of a primitive without a sub-program."""
    name = eqn.primitive.name
    out = eqn.outvars[0] if eqn.outvars else None
    n_out = sum(_size(v) for v in eqn.outvars)
    dt = _dtype_name(out) if out is not None else "float32"
    moved = sum(_nbytes(v) for v in eqn.invars) + sum(_nbytes(v) for v in eqn.outvars)
    c.bytes += moved
    c.bytes_once += moved
    flops, kind, trans = 0.0, "vector", 0.0
    if name in _FREE:
        pass
    elif name == "dot_general":
        (lc, _), _ = eqn.params["dimension_numbers"]
        shape = _aval(eqn.invars[0]).shape
        k = int(np.prod([shape[d] for d in lc], dtype=np.int64)) if lc else 1
        flops, kind, dt = 2.0 * n_out * k, "matmul", _dtype_name(eqn.invars[0])
    elif name == "conv_general_dilated":
        rhs = _aval(eqn.invars[1]).shape
        out_feat = rhs[eqn.params["dimension_numbers"].rhs_spec[0]]
        flops, kind = 2.0 * n_out * np.prod(rhs) / max(out_feat, 1), "matmul"
    elif name in _TRANSCENDENTAL:
        trans = float(n_out)
    elif name in _REDUCE:
        flops = float(sum(_size(v) for v in eqn.invars))
    elif name in ("sort",):
        a = _aval(eqn.invars[0])
        n = a.shape[eqn.params.get("dimension", -1)] if a.shape else 1
        flops = float(_size(eqn.invars[0])) * max(math.log2(max(n, 2)), 1.0) * eqn.params.get("num_keys", 1)
    elif name in ("random_bits", "threefry2x32"):
        flops, dt = float(n_out) * _RANDOM_OPS_PER_WORD, "int"
    elif name in ("random_split", "random_fold_in"):
        flops, dt = float(n_out) * 2 * _RANDOM_OPS_PER_WORD, "int"
    elif name in (
        "cholesky",
        "lu",
        "qr",
        "eigh",
        "svd",
        "triangular_solve",
        "eig",
        "householder_product",
        "geqrf",
        "schur",
        "tridiagonal",
        "tridiagonal_solve",
        "lu_pivots_to_permutation",
    ):
        shape = _aval(eqn.invars[0]).shape
        batch = int(np.prod(shape[:-2], dtype=np.int64)) if len(shape) > 2 else 1
        m, n = (shape[-2], shape[-1]) if len(shape) >= 2 else (1, shape[-1] if shape else 1)
        per = {
            "cholesky": n**3 / 3,
            "lu": 2 * n**3 / 3,
            "qr": 2 * m * n * n,
            "geqrf": 2 * m * n * n,
            "householder_product": 2 * m * n * n,
            "eigh": 9 * n**3,
            "eig": 25 * n**3,
            "schur": 25 * n**3,
            "svd": 12 * max(m, n) * min(m, n) ** 2,
            "tridiagonal": 4 * n**3 / 3,
            "tridiagonal_solve": 8 * n,
            "lu_pivots_to_permutation": 0,
        }.get(name)
        if name == "triangular_solve":
            b = _aval(eqn.invars[1]).shape
            per = m * m * (b[-1] if eqn.params.get("left_side", True) else b[-2])
        flops, kind = float(batch * per), "matmul"
    elif name == "fft":
        lengths = eqn.params.get("fft_lengths", ())
        n = int(np.prod(lengths)) if lengths else 1
        flops = 5.0 * float(n_out) * max(math.log2(max(n, 2)), 1.0)
    elif name in ("scatter", "scatter-add", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"):
        flops = float(_size(eqn.invars[-1])) if name != "scatter" else 0.0
    elif name == "integer_pow":
        flops = float(n_out) * max(abs(int(eqn.params.get("y", 2))) - 1, 1)
    elif name in ("custom_call", "pure_callback", "io_callback", "ffi_call"):
        c.notes.add(f"{name}: not counted")
    else:  # elementwise
        flops = float(n_out)
    if flops:
        key = f"{kind}:{dt}"
        c.flops[key] = c.flops.get(key, 0.0) + flops
        c.flops_once += flops
    c.transcendentals += trans
    c.transcendentals_once += trans


def _advance(jaxpr, out_i: int, in_i: int, depth: int = 0) -> int | None:
    """How much one run of ``jaxpr`` advances a counter: input ``in_i`` to output ``out_i``.

    ``c + k`` (a literal ``k``) advances it by ``k``, ``c + x`` with ``x`` a boolean turned
    to a number by at most 1 (a lane counting its live rounds), a scan carrying it ``length``
    times its body's advance, a call its program's; ``None`` when undetermined.
    """
    jaxpr = _closed(jaxpr)[0]
    if depth > 8 or out_i >= len(jaxpr.outvars) or in_i >= len(jaxpr.invars):
        return None
    target, source = jaxpr.outvars[out_i], jaxpr.invars[in_i]
    producer = {v: e for e in jaxpr.eqns for v in e.outvars}

    def strip(v):  # through dtype conversions
        e = producer.get(v)
        while e is not None and e.primitive.name == "convert_element_type":
            v = e.invars[0]
            e = producer.get(v)
        return v

    v = strip(target)
    if v is source:
        return 0
    e = producer.get(v)
    if e is None:
        return None
    name = e.primitive.name
    if name == "add" and len(e.invars) == 2:
        for a, b in (e.invars, e.invars[::-1]):
            if not _is_literal(a) and strip(a) is source:
                if _is_literal(b):
                    return int(np.asarray(b.val).reshape(-1)[0])
                pb = producer.get(b)
                if pb is not None and pb.primitive.name == "convert_element_type":
                    if np.dtype(_aval(pb.invars[0]).dtype) == np.bool_:
                        return 1
        return None
    if name == "scan":
        nconst, ncar = e.params["num_consts"], e.params["num_carry"]
        k = e.outvars.index(v)
        if k >= ncar or e.invars[nconst + k] is not source and strip(e.invars[nconst + k]) is not source:
            return None
        inner = _advance(e.params["jaxpr"], k, nconst + k, depth + 1)
        return None if inner is None else int(e.params["length"]) * inner
    subs = list(_sub_jaxprs(e.params))
    if len(subs) == 1 and name not in ("while", "cond", "switch"):
        k = e.outvars.index(v)
        ins = [i for i, x in enumerate(e.invars) if not _is_literal(x) and strip(x) is source]
        if len(ins) == 1:
            return _advance(subs[0][1], k, ins[0], depth + 1)
    return None


_EVAL_MAX = 1 << 16  # elements: small values the walk computes to resolve loop bounds
_PER_ITERATION_MAX = 4096  # scan steps walked one by one when their bodies' loops depend on them


def _closed(j):
    """(jaxpr, consts) of a ``Jaxpr`` or ``ClosedJaxpr``."""
    if hasattr(getattr(j, "jaxpr", None), "eqns"):
        return j.jaxpr, list(getattr(j, "consts", []))
    return j, []


def _evaluate(eqn, vals):
    """The outputs of a primitive on known inputs, or ``None``s (too large, or failing)."""
    if any(_size(v) > _EVAL_MAX for v in eqn.outvars) or list(_sub_jaxprs(eqn.params)):
        return [None] * len(eqn.outvars)
    try:
        out = eqn.primitive.bind(*vals, **eqn.params)
    except Exception:  # noqa: BLE001 - a primitive that cannot run eagerly: unknown
        return [None] * len(eqn.outvars)
    out = out if eqn.primitive.multiple_results else [out]
    try:
        return [np.asarray(o) for o in out]
    except Exception:  # noqa: BLE001 - e.g. PRNG keys
        return [None] * len(eqn.outvars)


def jaxpr_cost(jaxpr) -> JaxprCost:
    """Counts of ``jaxpr`` (a ``Jaxpr`` or ``ClosedJaxpr``); see the module docstring.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> def f(x, w):
        ...     return jax.lax.scan(lambda c, _: (c @ w, None), x, None, length=10)[0]
        >>> t = jax.jit(f).trace(jnp.ones((4, 8)), jnp.ones((8, 8)))
        >>> c = jaxpr_cost(t.jaxpr)
        >>> c.flops["matmul:float32"] == 10 * 2 * 4 * 8 * 8, c.flops_once == 2 * 4 * 8 * 8
        (True, True)
    """
    return _walk(jaxpr, None)[0]


def _walk(jaxpr, known_in: list | None) -> tuple[JaxprCost, list]:
    """Counts of a program whose inputs' values are ``known_in`` (``None``: unknown), and
    its outputs' values where they follow from known ones."""
    jaxpr, consts = _closed(jaxpr)
    env: dict[Any, Any] = dict(zip(jaxpr.constvars, consts))
    for v, k in zip(jaxpr.invars, known_in or []):
        if k is not None:
            env[v] = k

    def val(v):
        return np.asarray(v.val) if _is_literal(v) else env.get(v)

    c = JaxprCost()
    last: dict[Any, int] = {}
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if not _is_literal(v):
                last[v] = i
    for v in jaxpr.outvars:
        if not _is_literal(v):
            last[v] = len(jaxpr.eqns)
    live = float(sum(_nbytes(v) for v in [*jaxpr.constvars, *jaxpr.invars]))
    peak = live
    for i, eqn in enumerate(jaxpr.eqns):
        name = eqn.primitive.name
        subs = list(_sub_jaxprs(eqn.params))
        ins_known = [val(v) for v in eqn.invars]
        outs_known: list = [None] * len(eqn.outvars)
        inner_peak = 0.0
        if not subs:
            _leaf(eqn, c)
            if all(k is not None for k in ins_known):
                outs_known = _evaluate(eqn, ins_known)
        elif name == "scan":
            inner_peak = _scan(eqn, ins_known, c)
        elif name == "while":
            parts = dict(subs)
            nc, nb = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]
            body, _ = _walk(parts["body_jaxpr"], ins_known[nc:])
            cond, _ = _walk(parts["cond_jaxpr"], ins_known[:nc] + ins_known[nc + nb :])
            bound = _trip(eqn, ins_known)
            if bound is None:
                c.notes.add("a while loop of unknown trip count: its body counted once")
                bound = 1
            c.add(body, bound)
            c.add(cond, bound)
            c.iterations += bound
            inner_peak = max(body.peak_bytes, cond.peak_bytes)
        elif name in ("cond", "switch"):
            walked = [_walk(s, ins_known[1:]) for _, s in subs]
            branches = [w[0] for w in walked]
            worst = max(branches, key=lambda b: (b.total_flops + b.transcendentals, b.bytes))
            c.add(worst)
            inner_peak = max(b.peak_bytes for b in branches)
        else:  # calls (jit, custom_jvp, custom_vjp, remat, linear solves): their programs once each
            for k, (_, s) in enumerate(subs):
                inner, got = _walk(s, ins_known if len(_closed(s)[0].invars) == len(ins_known) else None)
                c.add(inner)
                inner_peak = max(inner_peak, inner.peak_bytes)
                if k == 0 and len(got) == len(eqn.outvars):
                    outs_known = got
        for v, k in zip(eqn.outvars, outs_known):
            if k is not None:
                env[v] = k
        outs = float(sum(_nbytes(v) for v in eqn.outvars))
        ins = float(sum(_nbytes(v) for v in eqn.invars if not _is_literal(v)))
        peak = max(peak, live + outs + max(0.0, inner_peak - ins))
        live += outs - sum(_nbytes(v) for v in eqn.outvars if v not in last)  # unused outputs
        for v in {v for v in eqn.invars if not _is_literal(v)}:
            if last.get(v) == i and v not in jaxpr.invars:
                live -= _nbytes(v)
    c.peak_bytes = peak
    return c, [val(v) for v in jaxpr.outvars]


def _scan(eqn, ins_known: list, c: JaxprCost) -> float:
    """Add a scan's counts to ``c``: its body times its length, or, when the body holds a
    loop whose bound follows from the step's inputs, the steps one by one. Returns the
    body's peak."""
    body = eqn.params["jaxpr"]
    n = int(eqn.params["length"])
    nc, ncar = eqn.params["num_consts"], eqn.params["num_carry"]
    consts, carry, xs = ins_known[:nc], ins_known[nc : nc + ncar], ins_known[nc + ncar :]
    once, _ = _walk(body, consts + [None] * (ncar + len(xs)))
    unresolved = any("unknown trip count" in x for x in once.notes)
    steppable = any(x is not None for x in xs) or any(x is not None for x in carry)
    if unresolved and steppable and n <= _PER_ITERATION_MAX:  # does a step's input resolve it?
        ti = n - 1 if eqn.params.get("reverse", False) else 0
        first, _ = _walk(body, consts + list(carry) + [None if x is None else np.asarray(x)[ti] for x in xs])
        steppable = not any("unknown trip count" in x for x in first.notes)
    if not (unresolved and steppable and n <= _PER_ITERATION_MAX):
        c.add(once, n)
        c.iterations += n
        return once.peak_bytes
    total = JaxprCost()
    peak = 0.0
    rev = eqn.params.get("reverse", False)
    for t in range(n):
        ti = n - 1 - t if rev else t
        xs_t = [None if x is None else np.asarray(x)[ti] for x in xs]
        step, got = _walk(body, consts + list(carry) + xs_t)
        carry = got[:ncar] if len(got) >= ncar else [None] * ncar
        total.add(step)
        peak = max(peak, step.peak_bytes)
    total.flops_once, total.transcendentals_once, total.bytes_once = (
        once.flops_once,
        once.transcendentals_once,
        once.bytes_once,
    )
    total.iterations += n
    c.add(total)
    return peak
