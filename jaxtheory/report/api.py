"""The public API of a package: its public modules and symbols, with their docstrings.

:func:`public_api` lists every public symbol (a name in the ``__all__`` of a module
whose dotted path has no component starting with ``_``); the API reference
(``docs/_ext/apigen.py``) is generated from it, and the docs build fails on any symbol
without a docstring (:func:`missing_docstrings`).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Sequence
from typing import Any

__all__ = ["PublicSymbol", "PublicAPI", "public_api", "missing_docstrings"]


@dataclasses.dataclass(frozen=True)
class PublicSymbol:
    """One public symbol, at the module where the API reference documents it.

    Attributes:
        module: dotted name of the public module that documents it (the shallowest
            public module exporting it).
        name: the exported name.
        kind: ``"function"``, ``"class"``, ``"exception"`` or ``"data"``.
        doc: its docstring (for data: the ``#:`` comment or string after the
            assignment), ``None`` when it has none.
        also: other public paths under which the same object is exported.
    """

    module: str
    name: str
    kind: str
    doc: str | None
    also: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        """The dotted path ``module.name``."""
        return f"{self.module}.{self.name}"


@dataclasses.dataclass
class PublicAPI:
    """The public surface of a package.

    Attributes:
        modules: public modules by dotted name, with their docstrings (``None`` when
            missing).
        symbols: every public symbol once, in module order then ``__all__`` order.
        errors: modules that failed to import, with the error.
    """

    modules: dict[str, str | None]
    symbols: list[PublicSymbol]
    errors: dict[str, str]

    def by_module(self) -> dict[str, list[PublicSymbol]]:
        """Symbols grouped by the module that documents them (every public module)."""
        out: dict[str, list[PublicSymbol]] = {m: [] for m in self.modules}
        for s in self.symbols:
            out[s.module].append(s)
        return out


def _is_public_module(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


def _auto_class_doc(cls: type) -> bool:
    """True when ``cls.__doc__`` was made up by ``namedtuple`` or ``dataclass``."""
    doc = cls.__doc__ or ""
    fields = getattr(cls, "_fields", None)
    if isinstance(fields, tuple):
        args = ", ".join(fields)
        if doc in (f"{cls.__name__}({args})", f"{cls.__name__}({args},)"):
            return True
    if dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}("):
        return True
    return False


def _kind(obj: Any) -> str:
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if inspect.isroutine(obj):
        return "function"
    doc = getattr(obj, "__doc__", None)
    if callable(obj) and hasattr(obj, "__wrapped__") and doc and doc != type(obj).__doc__:
        return "function"  # jax.jit / functools.wraps wrappers
    return "data"


def _attr_docs(modname: str) -> dict[str, str]:
    """``#:`` comments and strings after assignments of a module, by name."""
    try:
        from sphinx.pycode import ModuleAnalyzer
    except ImportError:  # pragma: no cover - docs extra missing
        return {}
    try:
        analyzer = ModuleAnalyzer.for_module(modname)
        docs = analyzer.find_attr_docs()
    except Exception:  # noqa: BLE001 - no source, e.g. a compiled module
        return {}
    return {name: "\n".join(lines).strip() for (ns, name), lines in docs.items() if ns == ""}


def _own_doc(obj: Any, kind: str) -> str | None:
    if kind == "data":
        return None
    doc = getattr(obj, "__doc__", None)
    if inspect.isclass(obj) and _auto_class_doc(obj):
        return None
    if not isinstance(doc, str) or not doc.strip():
        return None
    return doc


def _exported_names(mod: Any, private_children: Sequence[Any]) -> list[str]:
    """Names a public module exports: its ``__all__``, or, for a package without one,
    the ``__all__`` of its private submodules plus its own non-underscore definitions."""
    if hasattr(mod, "__all__"):
        return [str(n) for n in mod.__all__]
    names: list[str] = []
    for child in private_children:
        names += [n for n in getattr(child, "__all__", ()) if hasattr(mod, n)]
    for n, v in vars(mod).items():
        if n.startswith("_") or n in names or inspect.ismodule(v):
            continue
        if getattr(v, "__module__", None) == mod.__name__ and (inspect.isclass(v) or inspect.isroutine(v)):
            names.append(n)
    return names


def public_api(package: str = "jaxtheory") -> PublicAPI:
    """Import every module of ``package`` and list its public modules and symbols.

    A public module is one whose dotted name has no component starting with ``_``
    (``__main__`` is never imported). Its public symbols are the names in its
    ``__all__`` (submodules listed there count as modules, not symbols). A package
    without ``__all__`` exports what its private submodules' ``__all__`` list, as
    ``jaxtheory.optim`` does with ``from ._family import *``. An object exported by
    several public modules is documented once, at the shallowest one.

    Returns:
        A :class:`PublicAPI`; modules that fail to import are in ``errors``.

    Example:
        >>> api = public_api()
        >>> "jaxtheory.sweep" in api.modules
        True
        >>> [s.module for s in api.symbols if s.name == "Space"]
        ['jaxtheory.sweep']
    """
    errors: dict[str, str] = {}
    root = importlib.import_module(package)
    names = [package]
    if hasattr(root, "__path__"):
        for info in pkgutil.walk_packages(
            root.__path__, prefix=f"{package}.", onerror=lambda n: errors.setdefault(n, "import failed")
        ):
            if info.name.split(".")[-1] == "__main__":
                continue
            names.append(info.name)
    mods: dict[str, Any] = {}
    for n in sorted(set(names)):
        try:
            mods[n] = importlib.import_module(n)
        except Exception as e:  # noqa: BLE001 - reported, never hidden
            errors[n] = f"{type(e).__name__}: {e}"
    public = sorted((n for n in mods if _is_public_module(n)), key=lambda n: (n.count("."), n))
    modules = {n: (mods[n].__doc__ if (mods[n].__doc__ or "").strip() else None) for n in public}

    seen: dict[tuple[int, str], int] = {}
    symbols: list[PublicSymbol] = []
    for n in public:
        mod = mods[n]
        children = [
            m for c, m in mods.items() if c.rsplit(".", 1)[0] == n and c.rsplit(".", 1)[-1].startswith("_")
        ]
        attr_docs: dict[str, str] | None = None
        for name in _exported_names(mod, children):
            if not hasattr(mod, name):
                errors[f"{n}.{name}"] = f"{n}.__all__ names {name!r}, which the module lacks"
                continue
            obj = getattr(mod, name)
            if inspect.ismodule(obj):
                continue
            kind = _kind(obj)
            key = (id(obj), name)
            if key in seen:
                i = seen[key]
                symbols[i] = dataclasses.replace(symbols[i], also=symbols[i].also + (f"{n}.{name}",))
                continue
            doc = _own_doc(obj, kind)
            if kind == "data":
                if attr_docs is None:
                    attr_docs = _attr_docs(n)
                    # Re-exported data keeps its comment where it is defined.
                    for c in sorted(mods, key=lambda c: -c.count(".")):
                        if c.startswith(n + "."):
                            attr_docs = {**_attr_docs(c), **attr_docs}
                doc = attr_docs.get(name) or None
            seen[key] = len(symbols)
            symbols.append(PublicSymbol(n, name, kind, doc))
    return PublicAPI(modules, symbols, errors)


def missing_docstrings(api: PublicAPI | None = None) -> list[str]:
    """Public modules and symbols without a docstring, as dotted paths (plus import errors).

    Example:
        >>> missing_docstrings() == [] or all(isinstance(p, str) for p in missing_docstrings())
        True
    """
    api = api or public_api()
    out = [f"{m} (module)" for m, doc in api.modules.items() if doc is None]
    out += [f"{s.path} ({s.kind})" for s in api.symbols if s.doc is None]
    out += [f"{m}: {err}" for m, err in api.errors.items()]
    return out
