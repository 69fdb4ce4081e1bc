"""Sweep spaces: named axes of hyperparameter values, flattened into lanes.

A :class:`Space` names the axes of a sweep. Each axis is either *dynamic* (its values
become a batched argument of one compiled program) or *static* (it names a field of
the simulator's spec, which fixes shapes: one compile per value). Seeds are an axis of
their own. Whether an axis is static is decided by the spec it is bound to, so the
same space works for any simulator; :func:`static` only documents the intent and is
checked.

Two more things a space can say. ``paired=(...)`` names axes whose values stay out of
the lanes' PRNG keys (common random numbers): lanes that differ only in those axes get
the same key, hence the same data, init and noise, which is what a tuning or a method
comparison needs. A parameter declared :func:`categorical` takes labels: an axis of
strings (``values("adam", "sgd")``) sweeps it, the run receives the label's integer
code, and the results carry the labels as the coordinate.

Example:
    >>> from jaxtheory.sweep import Space, log, values, zipped
    >>> space = Space(lr=log(1e-3, 1e-1, num=3), momentum=values(0.0, 0.9), seeds=2)
    >>> space.shape
    {'lr': 3, 'momentum': 2, 'seed': 2}
    >>> [round(v, 4) for v in space.axes["lr"].resolve()]
    [0.001, 0.01, 0.1]
    >>> Space(lr=log(1e-3, 1e-1, num=3), seeds=2, paired=("lr",)).paired
    ('lr',)
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = [
    "SpaceError",
    "Axis",
    "values",
    "lin",
    "log",
    "uniform",
    "loguniform",
    "static",
    "zipped",
    "Categorical",
    "categorical",
    "Space",
    "BoundSpace",
    "parse_axis",
]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = {"seed", "seeds", "lane", "status", "diverged_step"}
# Keywords of xarray's ``sel``/``isel``: ``ds.sel(method="sgd")`` would not select.
_SEL_KEYWORDS = {"method", "tolerance", "drop", "indexers"}


class SpaceError(ValueError):
    """A malformed sweep space; the message names the axis and the fault."""


def _is_scalar(v: Any) -> bool:
    return isinstance(v, (bool, int, float, str, np.generic)) or (isinstance(v, np.ndarray) and v.ndim == 0)


def _py(v: Any) -> Any:
    """A numpy scalar as the matching Python scalar."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclasses.dataclass(frozen=True)
class Axis:
    """One axis of a sweep: a kind, its arguments, and (once placed in a space) a name.

    Build axes with :func:`values`, :func:`lin`, :func:`log`, :func:`uniform`,
    :func:`loguniform`, :func:`static` or :func:`zipped` rather than directly.

    Attributes:
        kind: ``"values"``, ``"lin"``, ``"log"``, ``"uniform"``, ``"loguniform"`` or
            ``"zip"``.
        args: the constructor's arguments, as given.
        static: declared static with :func:`static`.
        members: for ``"zip"``, the member axes in order.
        name: the axis name, set by :class:`Space`.
    """

    kind: str
    args: tuple = ()
    static: bool = False
    members: tuple[tuple[str, Axis], ...] = ()
    name: str | None = None

    def _where(self) -> str:
        return f"axis {self.name!r}" if self.name else "an unnamed axis"

    def validate(self) -> None:
        """Raise :class:`SpaceError` when the axis is malformed."""
        where = self._where()
        if self.kind == "values":
            if len(self.args) == 0:
                raise SpaceError(f"{where} is empty: give it at least one value")
            for v in self.args:
                if self.static:
                    # a static value becomes a spec field: any hashable value will do
                    try:
                        hash(v)
                    except TypeError:
                        raise SpaceError(
                            f"{where}: static value {v!r} is unhashable (spec fields must "
                            "hash: use a tuple, not a list)"
                        ) from None
                    if isinstance(v, tuple):
                        continue
                if not _is_scalar(v):
                    raise SpaceError(
                        f"{where}: value {v!r} is not a scalar "
                        "(numbers, booleans or strings; static axes may also hold tuples)"
                    )
                if isinstance(_py(v), float) and not math.isfinite(_py(v)):
                    raise SpaceError(f"{where}: value {v!r} is not finite")
            kinds = {type(_py(v)) for v in self.args if not isinstance(v, tuple)}
            if str in kinds and len(kinds) > 1:
                raise SpaceError(f"{where} mixes strings and numbers: {self.args!r}")
        elif self.kind in ("lin", "log"):
            start, stop, num = self.args
            for label, b in (("start", start), ("stop", stop)):
                if not isinstance(_py(b), (int, float)) or isinstance(_py(b), bool):
                    raise SpaceError(f"{where}: {label} {b!r} is not a number")
                if not math.isfinite(float(b)):
                    raise SpaceError(f"{where}: {label} {b!r} is not finite")
            if not isinstance(_py(num), int) or isinstance(_py(num), bool) or num < 1:
                raise SpaceError(f"{where}: num must be a positive integer, got {num!r}")
            if self.kind == "log" and (start <= 0 or stop <= 0):
                raise SpaceError(
                    f"{where}: a log axis needs positive bounds, got {start!r} and {stop!r} "
                    "(bounds are values, not exponents: log(1e-4, 1e-1, num=16))"
                )
        elif self.kind in ("uniform", "loguniform"):
            low, high, count, seed = self.args
            for label, b in (("low", low), ("high", high)):
                if not isinstance(_py(b), (int, float)) or isinstance(_py(b), bool):
                    raise SpaceError(f"{where}: {label} {b!r} is not a number")
                if not math.isfinite(float(b)):
                    raise SpaceError(f"{where}: {label} {b!r} is not finite")
            if not low < high:
                raise SpaceError(f"{where}: needs low < high, got {low!r} and {high!r}")
            if self.kind == "loguniform" and low <= 0:
                raise SpaceError(
                    f"{where}: a log-uniform axis needs positive bounds, got {low!r} "
                    "(bounds are values, not exponents)"
                )
            if not isinstance(_py(count), int) or isinstance(_py(count), bool) or count < 1:
                raise SpaceError(f"{where}: count must be a positive integer, got {count!r}")
            if not isinstance(_py(seed), int) or isinstance(_py(seed), bool):
                raise SpaceError(f"{where}: seed must be an integer, got {seed!r}")
        elif self.kind == "zip":
            if not self.members:
                raise SpaceError(f"{where}: a zipped axis needs at least one member")
            lengths = {}
            for n, m in self.members:
                m.validate()
                if m.kind == "zip":
                    raise SpaceError(f"{where}: zipped axes cannot nest ({n!r})")
                lengths[n] = len(m.resolve())
            if len(set(lengths.values())) > 1:
                raise SpaceError(f"{where}: zipped members must have equal lengths, got {lengths}")
        else:
            raise SpaceError(f"{where}: unknown axis kind {self.kind!r}")

    def resolve(self) -> list:
        """The axis values as a list of Python scalars (for ``"zip"``: tuples)."""
        if self.kind == "values":
            return [_py(v) for v in self.args]
        if self.kind == "lin":
            start, stop, num = self.args
            return [float(v) for v in np.linspace(start, stop, num)]
        if self.kind == "log":
            start, stop, num = self.args
            return [float(v) for v in np.geomspace(start, stop, num)]
        if self.kind in ("uniform", "loguniform"):
            low, high, count, seed = self.args
            rng = np.random.default_rng(seed)
            if self.kind == "uniform":
                draws = rng.uniform(low, high, size=count)
            else:
                draws = np.exp(rng.uniform(math.log(low), math.log(high), size=count))
            return [float(v) for v in draws]
        if self.kind == "zip":
            cols = [m.resolve() for _, m in self.members]
            return list(zip(*cols))
        raise SpaceError(f"{self._where()}: unknown axis kind {self.kind!r}")

    def __len__(self) -> int:
        return len(self.resolve())

    def describe(self) -> dict:
        """A JSON-able description of the axis (kind, arguments, resolved values)."""
        d: dict[str, Any] = {"kind": self.kind}
        if self.kind == "zip":
            d["members"] = {n: m.describe() for n, m in self.members}
        else:
            d["args"] = [_py(a) for a in self.args]
            d["values"] = self.resolve()
        if self.static:
            d["static"] = True
        return d


def values(*vals: Any) -> Axis:
    """An axis of explicit values, e.g. ``values(0.0, 0.5, 0.9)``."""
    if len(vals) == 1 and isinstance(vals[0], (list, tuple, np.ndarray)):
        vals = tuple(np.asarray(vals[0]).tolist()) if isinstance(vals[0], np.ndarray) else tuple(vals[0])
    return Axis("values", tuple(vals))


def lin(start: float, stop: float, num: int) -> Axis:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""
    return Axis("lin", (start, stop, num))


def log(start: float, stop: float, num: int) -> Axis:
    """``num`` log-spaced values from ``start`` to ``stop`` inclusive, given as values.

    ``log(1e-4, 1e-1, num=4)`` is ``1e-4, 1e-3, 1e-2, 1e-1``: the bounds are the values
    themselves, never exponents.
    """
    return Axis("log", (start, stop, num))


def uniform(low: float, high: float, count: int, seed: int = 0) -> Axis:
    """``count`` values drawn uniformly from ``[low, high)`` with a fixed numpy seed."""
    return Axis("uniform", (low, high, count, seed))


def loguniform(low: float, high: float, count: int, seed: int = 0) -> Axis:
    """``count`` values drawn log-uniformly from ``[low, high)`` (bounds are values)."""
    return Axis("loguniform", (low, high, count, seed))


def static(*vals: Any) -> Axis:
    """An axis of values for a spec field that changes shapes: one compile per value.

    Values may be any hashable Python value a spec field holds, tuples included:
    ``static(4, 16)``, ``static((64, 64), (128, 32))``.
    """
    if len(vals) == 1 and isinstance(vals[0], list):
        vals = tuple(vals[0])
    return Axis("values", tuple(vals), static=True)


def zipped(**members: Any) -> Axis:
    """Axes that vary together: ``zipped(lr=[0.1, 0.01], momentum=[0.0, 0.9])``.

    The group becomes one dimension of the results (named by the key the group gets in
    the :class:`Space`), with one coordinate per member.
    """
    ms = tuple((n, _as_axis(n, v)) for n, v in members.items())
    return Axis("zip", (), members=ms)


def _as_axis(name: str, v: Any) -> Axis:
    if isinstance(v, Axis):
        ax = v
    elif isinstance(v, (list, tuple, np.ndarray)):
        ax = Axis("values", tuple(v.tolist() if isinstance(v, np.ndarray) else v))
    elif _is_scalar(v):
        ax = values(v)
    else:
        raise SpaceError(f"axis {name!r}: cannot make an axis from {type(v).__name__} {v!r}")
    return dataclasses.replace(ax, name=name)


@dataclasses.dataclass(frozen=True)
class Categorical:
    """A parameter that takes one of a fixed list of labels; the run receives its code.

    Declare it once, as the parameter's default in the run's ``params``, so every label
    has a fixed code whatever a space sweeps: the code of a label is its index in
    :attr:`labels`, not in the axis, so ``values("sgd")`` or ``--set opt=sgd,adam``
    still hands the run the codes it was written for. Build it with
    :func:`categorical`.

    Inside ``run`` the parameter is an ``int32`` scalar. Branch on it with
    :meth:`switch` (``lax.switch`` with branches given by label) or compare it with
    :meth:`code`: ``jnp.where(params["opt"] == OPT.code("adam"), ...)``. Under ``vmap``
    a switch on a batched code computes every branch and selects one, as ``where``
    does; a choice that changes shapes belongs in the spec (a static axis) instead.

    Attributes:
        labels: the labels, in code order (label ``labels[i]`` has code ``i``).
        default: the label a lane gets when no axis sweeps the parameter.

    Example:
        >>> OPT = categorical("adam", "sgd", "muon")
        >>> OPT.code("sgd"), OPT.label(2), OPT.default
        (1, 'muon', 'adam')
        >>> OPT.codes(["muon", "adam"]).tolist()
        [2, 0]
        >>> OPT.with_default("sgd").default
        'sgd'
    """

    labels: tuple[str, ...]
    default: str

    def __post_init__(self):
        labels = self.labels
        if not isinstance(labels, tuple) or not labels:
            raise SpaceError(f"a categorical parameter needs at least one label, got {labels!r}")
        for lab in labels:
            if not isinstance(lab, str) or not lab:
                raise SpaceError(f"categorical labels must be non-empty strings, got {lab!r}")
        if len(set(labels)) != len(labels):
            raise SpaceError(f"categorical labels repeat: {labels!r}")
        if self.default not in labels:
            raise SpaceError(
                f"categorical default {self.default!r} is not one of its labels ({', '.join(labels)})"
            )

    def code(self, label: str) -> int:
        """The integer code of ``label``.

        Raises:
            SpaceError: for a label not in :attr:`labels`.
        """
        try:
            return self.labels.index(label)
        except ValueError:
            raise SpaceError(f"unknown label {label!r}; the labels are {', '.join(self.labels)}") from None

    def codes(self, labels: Any) -> np.ndarray:
        """The codes of a sequence of labels, as an ``int32`` array."""
        return np.asarray([self.code(_py(v)) for v in np.asarray(labels).ravel()], dtype=np.int32)

    def label(self, code: int) -> str:
        """The label of an integer code."""
        c = int(code)
        if not 0 <= c < len(self.labels):
            raise SpaceError(f"code {code!r} is out of range for labels {', '.join(self.labels)}")
        return self.labels[c]

    def with_default(self, default: Any) -> Categorical:
        """The same labels with another default, given as a label or a ``Categorical``.

        A ``Categorical`` is returned as it is (a redeclaration replaces the old one).
        """
        if isinstance(default, Categorical):
            return default
        if isinstance(default, str):
            self.code(default)
            return dataclasses.replace(self, default=default)
        raise SpaceError(
            f"the default of a categorical parameter is one of its labels "
            f"({', '.join(self.labels)}), got {default!r}"
        )

    def switch(self, code: Any, branches: Mapping[str, Any], *operands: Any) -> Any:
        """``lax.switch(code, ...)`` with one branch per label, given by label.

        Args:
            code: the parameter as the run receives it (an integer code).
            branches: ``{label: function}`` naming every label exactly once.
            *operands: passed to the chosen branch.

        Returns:
            What the branch of ``code``'s label returns.

        Raises:
            SpaceError: when ``branches`` misses a label or names an unknown one.

        Example:
            >>> import jax.numpy as jnp
            >>> OPT = categorical("double", "negate")
            >>> float(OPT.switch(jnp.int32(1), {"negate": lambda x: -x, "double": lambda x: 2 * x}, 3.0))
            -3.0
        """
        import jax

        missing = [lab for lab in self.labels if lab not in branches]
        extra = [lab for lab in branches if lab not in self.labels]
        if missing or extra:
            raise SpaceError(
                "switch needs one branch per label ("
                + ", ".join(self.labels)
                + ")"
                + (f"; missing {', '.join(missing)}" if missing else "")
                + (f"; unknown {', '.join(map(str, extra))}" if extra else "")
            )
        return jax.lax.switch(code, [branches[lab] for lab in self.labels], *operands)

    def __len__(self) -> int:
        return len(self.labels)


def categorical(*labels: str, default: str | None = None) -> Categorical:
    """Declare a categorical parameter: its labels (in code order) and its default.

    Put it in the run's ``params`` (``{"opt": categorical("adam", "sgd")}``); sweep it with
    an axis of labels (``Space(opt=values("adam", "sgd"))``). The run receives
    ``labels.index(label)`` as an ``int32`` scalar; the results' coordinate holds the
    labels; a lane's PRNG key derives from the label, not the code.

    Args:
        *labels: the labels, distinct non-empty strings (names, so ``--set opt=a,b``
            can spell them).
        default: the label of lanes no axis sweeps (default: the first label).

    Returns:
        A :class:`Categorical`.

    Raises:
        SpaceError: for no labels, a repeated or non-string label, or a default that is
            not a label.

    Example:
        >>> OPT = categorical("adam", "sgd", default="sgd")
        >>> OPT.labels, OPT.default, OPT.code("adam")
        (('adam', 'sgd'), 'sgd', 0)
    """
    if len(labels) == 1 and isinstance(labels[0], (list, tuple)):
        labels = tuple(labels[0])
    labels = tuple(labels)
    return Categorical(labels, labels[0] if default is None and labels else default)


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise SpaceError(f"axis name {name!r} is not a valid identifier")
    if name in _RESERVED:
        raise SpaceError(f"axis name {name!r} is reserved (use seeds=N for seeds)")
    if name in _SEL_KEYWORDS:
        raise SpaceError(
            f"axis name {name!r} is a keyword of xarray's sel(): results.sel({name}=...) "
            "would not select along it; name the axis otherwise (e.g. 'algo')"
        )


class Space:
    """A sweep space: named axes and a number of seeds.

    A lane's PRNG key hashes its config's values by name and its seed index, so adding
    a value to an axis changes no other lane. Axes named in ``paired`` stay out of that
    hash (common random numbers): lanes that differ only in paired axes get the same
    key, hence the same data, init and noise, so a learning-rate tuning or a method
    comparison measures the setting, not the draw. Static axes may be paired too; their
    lanes then share keys, and draw the same numbers as far as they draw the same shapes.

    An axis of strings sweeps a parameter declared :func:`categorical` in the run's
    params: the run receives each label's code, the results keep the labels as the
    coordinate, and the key hashes the label (reordering the labels moves no lane's key).

    Args:
        *axes: axes that already carry a name (``Axis(..., name=...)``), for spaces
            built programmatically.
        seeds: number of seeds per config (a positive integer); a ``seed`` dimension.
        base_seed: root of every lane's PRNG key.
        paired: names of axes (or of zipped members; a zipped group's name pairs all its
            members) whose values do not enter the lanes' keys.
        **named: ``name=axis``; a list or tuple stands for :func:`values`, a scalar for
            a single value.

    Raises:
        SpaceError: on an empty axis, a non-positive log bound, an unhashable static
            value, seeds < 1, a name used twice, a paired name that is no axis, and
            similar faults, before anything compiles.

    Example:
        >>> space = Space(lr=log(1e-3, 1e-1, num=3), opt=values("adam", "sgd"), seeds=4,
        ...               paired=("lr", "opt"))
        >>> space.key_config({"lr": 0.01, "opt": "adam", "momentum": 0.9})
        {'momentum': 0.9}
        >>> space.describe()["paired"]
        ['lr', 'opt']
    """

    def __init__(
        self,
        *axes: Axis,
        seeds: int = 1,
        base_seed: int = 0,
        paired: str | tuple[str, ...] | list[str] = (),
        **named: Any,
    ):
        items: list[tuple[str, Axis]] = []
        for ax in axes:
            if not isinstance(ax, Axis) or ax.name is None:
                raise SpaceError(f"positional axes must be named Axis objects, got {ax!r}")
            items.append((ax.name, ax))
        for n, v in named.items():
            items.append((n, _as_axis(n, v)))
        if isinstance(seeds, bool) or not isinstance(_py(seeds), int) or seeds < 1:
            raise SpaceError(f"seeds must be a positive integer, got {seeds!r}")
        if isinstance(base_seed, bool) or not isinstance(_py(base_seed), int):
            raise SpaceError(f"base_seed must be an integer, got {base_seed!r}")
        seen: dict[str, str] = {}
        for n, ax in items:
            _check_name(n)
            names = [n] + [m for m, _ in ax.members]
            for m in names:
                if m != n:
                    _check_name(m)
                if m in seen:
                    raise SpaceError(f"axis name {m!r} is used twice ({seen[m]} and {n!r})")
                seen[m] = repr(n)
            ax.validate()
        self.axes: dict[str, Axis] = dict(items)
        self.seeds = int(seeds)
        self.base_seed = int(base_seed)
        if isinstance(paired, str):
            paired = (paired,)
        if not isinstance(paired, (tuple, list)):
            raise SpaceError(f"paired must be a tuple of axis names, got {paired!r}")
        leaves: dict[str, tuple[str, ...]] = {}
        for n, ax in self.axes.items():
            leaves[n] = tuple(m for m, _ in ax.members) if ax.kind == "zip" else (n,)
            for m, _ in ax.members:
                leaves[m] = (m,)
        for n in paired:
            if not isinstance(n, str) or n not in leaves:
                known = ", ".join(leaves) or "(none)"
                raise SpaceError(f"paired names {n!r}, which is not an axis of this space; axes: {known}")
        if len(set(paired)) != len(paired):
            raise SpaceError(f"paired names an axis twice: {tuple(paired)!r}")
        #: Names of the paired axes, as given.
        self.paired: tuple[str, ...] = tuple(paired)
        self._unkeyed = frozenset(m for n in self.paired for m in leaves[n])

    # -- editing ---------------------------------------------------------------
    def replace(
        self,
        *,
        seeds: int | None = None,
        base_seed: int | None = None,
        paired: str | tuple[str, ...] | list[str] | None = None,
        **named: Any,
    ) -> Space:
        """A copy with some axes replaced or added (order kept), and/or new seeds.

        The pairing is kept unless ``paired`` replaces it.
        """
        merged: dict[str, Any] = dict(self.axes)
        for n, v in named.items():
            merged[n] = v
        return Space(
            seeds=self.seeds if seeds is None else seeds,
            base_seed=self.base_seed if base_seed is None else base_seed,
            paired=self.paired if paired is None else paired,
            **merged,
        )

    def key_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """The part of a lane's config its PRNG key hashes: all but the paired values."""
        return {k: v for k, v in config.items() if k not in self._unkeyed}

    # -- inspection ------------------------------------------------------------
    @property
    def shape(self) -> dict[str, int]:
        """Length of each axis, and of ``seed``."""
        return {**{n: len(a) for n, a in self.axes.items()}, "seed": self.seeds}

    def describe(self) -> dict:
        """A JSON-able description of the space (``paired``, sorted, only when given)."""
        d = {
            "axes": {n: a.describe() for n, a in self.axes.items()},
            "seeds": self.seeds,
            "base_seed": self.base_seed,
        }
        if self.paired:  # it changes the keys, so it changes the description (and run ids)
            d["paired"] = sorted(self.paired)
        return d

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}[{len(a)}]" for n, a in self.axes.items())
        pair = f", paired={','.join(self.paired)}" if self.paired else ""
        return f"Space({inner}, seeds={self.seeds}{pair})"

    def bind(self, spec: Any, params: Mapping[str, Any]) -> BoundSpace:
        """Split the axes into static (spec fields) and dynamic (params) ones.

        Raises:
            SpaceError: for an axis that names neither a spec field nor a parameter,
                an axis declared static that names a parameter, strings on a parameter
                not declared :func:`categorical`, a label a categorical parameter lacks,
                or numbers on a categorical parameter.
        """
        fields = {f.name for f in dataclasses.fields(spec)} if dataclasses.is_dataclass(spec) else set()
        for n, d in params.items():
            if isinstance(d, str):
                raise SpaceError(
                    f"parameter {n!r} has the label {d!r} as its default: declare it "
                    f"categorical({d!r}, ...) with all its labels, so the run receives a code"
                )
        static_axes: dict[str, Axis] = {}
        dynamic_axes: dict[str, Axis] = {}
        for n, ax in self.axes.items():
            leaf_names = [m for m, _ in ax.members] if ax.kind == "zip" else [n]
            kinds = set()
            for m in leaf_names:
                if m in fields:
                    kinds.add("static")
                elif m in params:
                    kinds.add("dynamic")
                else:
                    known = sorted(fields | set(params))
                    raise SpaceError(
                        f"axis {m!r} is not a parameter of the run function nor a field of "
                        f"its spec; known names: {', '.join(known)}"
                    )
            if len(kinds) > 1:
                raise SpaceError(f"axis {n!r} zips spec fields (static) with parameters (dynamic)")
            if "static" in kinds:
                for v in ax.resolve():
                    try:
                        hash(v)
                    except TypeError as e:
                        raise SpaceError(f"axis {n!r}: static value {v!r} is unhashable") from e
                static_axes[n] = ax
            else:
                if ax.static:
                    raise SpaceError(
                        f"axis {n!r} is declared static but {n!r} is a parameter, not a "
                        "spec field; static axes must name fields of the spec"
                    )
                for v in ax.resolve():
                    for m, x in zip(leaf_names, v if ax.kind == "zip" else (v,)):
                        cat = params[m]
                        if isinstance(cat, Categorical):
                            if not isinstance(x, str):
                                raise SpaceError(
                                    f"axis {m!r}: parameter {m!r} is categorical; give its "
                                    f"labels ({', '.join(cat.labels)}), not {x!r}"
                                )
                            if x not in cat.labels:
                                raise SpaceError(
                                    f"axis {m!r}: unknown label {x!r}; parameter {m!r} takes "
                                    f"{', '.join(cat.labels)}"
                                )
                        elif isinstance(x, str):
                            raise SpaceError(
                                f"axis {m!r}: dynamic values must be numbers or booleans, "
                                f"got {x!r}; declare the parameter categorical(...) in the "
                                "run's params to sweep labels, or make it a spec field"
                            )
                dynamic_axes[n] = ax
        return BoundSpace(self, static_axes, dynamic_axes)


@dataclasses.dataclass
class BoundSpace:
    """A space split against a spec: static groups and a flat table of dynamic configs."""

    space: Space
    static_axes: dict[str, Axis]
    dynamic_axes: dict[str, Axis]

    @property
    def seeds(self) -> int:
        return self.space.seeds

    def static_groups(self) -> list[dict[str, Any]]:
        """Every combination of static values, as ``{field: value}`` dicts."""
        cols = []
        for n, ax in self.static_axes.items():
            if ax.kind == "zip":
                cols.append([dict(zip([m for m, _ in ax.members], t)) for t in ax.resolve()])
            else:
                cols.append([{n: v} for v in ax.resolve()])
        groups = []
        for combo in itertools.product(*cols):
            g: dict[str, Any] = {}
            for d in combo:
                g.update(d)
            groups.append(g)
        return groups

    def static_indices(self) -> list[tuple[int, ...]]:
        """The index of each static group along each static axis."""
        return list(itertools.product(*[range(len(a)) for a in self.static_axes.values()]))

    def dynamic_table(self) -> dict[str, np.ndarray]:
        """The product of dynamic axes flattened: ``{param: values}`` of one length.

        Config order is row-major over the axes in the order they were given.
        """
        cols: list[list[dict[str, Any]]] = []
        for n, ax in self.dynamic_axes.items():
            if ax.kind == "zip":
                cols.append([dict(zip([m for m, _ in ax.members], t)) for t in ax.resolve()])
            else:
                cols.append([{n: v} for v in ax.resolve()])
        rows = []
        for combo in itertools.product(*cols):
            r: dict[str, Any] = {}
            for d in combo:
                r.update(d)
            rows.append(r)
        names = [
            m
            for ax_n, ax in self.dynamic_axes.items()
            for m in ([mm for mm, _ in ax.members] if ax.kind == "zip" else [ax_n])
        ]
        return {m: np.asarray([r[m] for r in rows]) for m in names} if names else {}

    @property
    def dynamic_shape(self) -> tuple[int, ...]:
        return tuple(len(a) for a in self.dynamic_axes.values())

    @property
    def num_configs(self) -> int:
        return int(np.prod(self.dynamic_shape, dtype=np.int64)) if self.dynamic_axes else 1


# -- parsing ``--set AXIS=VALUES`` --------------------------------------------------

_FUNC = re.compile(r"^\s*(lin|log|uniform|loguniform)\s*\((.*)\)\s*$")


def _parse_scalar(tok: str) -> Any:
    t = tok.strip()
    if t == "":
        raise SpaceError("empty value")
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(t)
    except ValueError:
        pass
    try:
        v = float(t)
    except ValueError:
        if re.match(r"^[A-Za-z_][A-Za-z0-9_.\-]*$", t):
            return t
        raise SpaceError(f"cannot parse value {t!r}") from None
    if not math.isfinite(v):
        raise SpaceError(f"value {t!r} is not finite")
    return v


def parse_axis(text: str) -> tuple[str, Axis | int]:
    """Parse ``AXIS=VALUES`` from the command line; nothing is evaluated as code.

    VALUES is a comma list of numbers, booleans or names (``0.1,0.2``, ``true``,
    ``adam,sgd``) or one of ``lin(a, b, num)``, ``log(a, b, num)``,
    ``uniform(low, high, count[, seed])``, ``loguniform(low, high, count[, seed])``.
    ``seeds=N`` sets the number of seeds.

    Example:
        >>> name, ax = parse_axis("lr=log(1e-3,1e-1,3)")
        >>> name, [round(v, 3) for v in ax.resolve()]
        ('lr', [0.001, 0.01, 0.1])
        >>> parse_axis("momentum=0,0.9")[1].resolve()
        [0, 0.9]
    """
    if "=" not in text:
        raise SpaceError(f"--set {text!r}: expected AXIS=VALUES, e.g. lr=0.1,0.01")
    name, _, rhs = text.partition("=")
    name = name.strip()
    if not _NAME.match(name):
        raise SpaceError(f"--set {text!r}: {name!r} is not a valid axis name")
    if name in ("paired", "base_seed"):
        raise SpaceError(
            f"--set {text!r}: {name!r} is not an axis; it is part of the preset's space (and kept by --set)"
        )
    if name == "seeds":
        v = _parse_scalar(rhs)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise SpaceError(f"--set {text!r}: seeds must be a positive integer")
        return name, v
    m = _FUNC.match(rhs)
    try:
        if m:
            fn, inner = m.group(1), m.group(2)
            args = [_parse_scalar(a) for a in inner.split(",")]
            need = {"lin": (3, 3), "log": (3, 3), "uniform": (3, 4), "loguniform": (3, 4)}[fn]
            if not need[0] <= len(args) <= need[1]:
                raise SpaceError(f"{fn}() takes {need[0]}..{need[1]} arguments, got {len(args)}")
            ctor = {"lin": lin, "log": log, "uniform": uniform, "loguniform": loguniform}[fn]
            ax = ctor(*args)
        else:
            ax = values(*[_parse_scalar(t) for t in rhs.split(",")])
        ax = dataclasses.replace(ax, name=name)
        ax.validate()
    except SpaceError as e:
        raise SpaceError(f"--set {text!r}: {e}") from None
    return name, ax
