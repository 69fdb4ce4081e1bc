"""Code provenance: a fingerprint of the code that computes a sweep's results.

A stored chunk is only as good as the code that computed it. :func:`code_provenance`
fingerprints that code: the source text of the module defining a run function (or an
experiment) and of every module it imports, transitively, inside the tracked packages,
plus the versions of the numerical libraries and JAX's x64 flag. The sweep engine
writes the fingerprint into every chunk and ``manifest.json`` and resumes only chunks
that carry the fingerprint of the code running now; :meth:`jaxtheory.Experiment.run_id`
hashes it into the run directory's name.

How the module closure is found (static, deterministic):

* The start is the source file of the object (a function, after unwrapping
  ``functools.partial`` and ``__wrapped__``; a module; a class; or a path).
* Its dotted name comes from the directories above it that hold an ``__init__.py``;
  the directory above the outermost of them is its *root*. The ``__init__.py`` of every
  package above a module belongs to the closure (importing the module runs them).
* Every ``import`` and ``from ... import`` statement anywhere in the file (including
  those inside functions and ``if`` blocks) is read with :mod:`ast`, relative imports
  resolved against the module's package. ``import a.b.c`` counts ``a``, ``a.b`` and
  ``a.b.c`` (importing it runs all three); ``from a.b import c`` counts ``a.b`` and
  ``a.b.c`` where ``c`` is a submodule.
* An imported module is followed when its top-level package is ``jaxtheory`` or
  ``sweeps`` (located as ``import`` would locate it, without importing anything new),
  or when it lives directly in the importing module's root (its own package and the
  modules beside that package, such as a script's helper module next to it). Everything else
  (jax, numpy, the standard library) enters through its version or not at all.
* Files are resolved on disk from the package directories, so the closure is the same
  whatever else the process has imported. Imports made by other means
  (:func:`importlib.import_module`, ``__import__``) are not followed.

The source is read from disk and hashed when the fingerprint is taken, so it is the
code the process imports as long as no file is edited between the import and the sweep.
A later call in the same process reuses the closure it found when one ``stat`` of each
of its files and of each directory an import was looked up in shows no change (the
same modification time, size, inode and change time; a new or removed file changes its
directory's). As git does with its index, a file or directory modified within the last
:data:`SETTLE_S` seconds is never trusted to be unchanged: such a closure is walked and
hashed again on every call. A run function with no source file (defined in ``exec``'d
text) is fingerprinted by its compiled code object.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib.util
import inspect
import json
import marshal
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "Slice",
    "FACADES",
    "JUDGEMENT_MODULES",
    "TRACKED_PACKAGES",
    "ENVIRONMENT_PACKAGES",
    "SETTLE_S",
    "code_provenance",
    "code_fingerprint",
    "module_closure",
    "environment",
]

#: Top-level packages whose modules are always followed into the closure.
TRACKED_PACKAGES = ("jaxtheory", "sweeps")

#: Package initialisers that only re-export (the judgement layer, for ``jaxtheory``):
#: neither hashed nor followed into.
FACADES = ("jaxtheory",)

#: The judgement layer: modules that turn results into verdicts and figures. An import of
#: one of them is never followed (simulation code decides no number through them; a
#: simulator module that offers host-side analysis helpers may import them); they enter a
#: fingerprint only when given as a start, as in an experiment's judgement fingerprint.
JUDGEMENT_MODULES = (
    "jaxtheory.experiment",
    "jaxtheory.claims",
    "jaxtheory.analysis",
    "jaxtheory.plots",
    "jaxtheory.report",
    "jaxtheory.registry",
    "jaxtheory.docs_build",
    "jaxtheory.cli",
)

#: Distributions whose versions enter the fingerprint.
ENVIRONMENT_PACKAGES = ("jax", "jaxlib", "optax", "flax", "numpy")

#: Seconds after its last modification a file must be left alone before a stored
#: closure trusts its ``stat`` to tell that it is unchanged (file times are coarser than
#: the time between a write and the next one).
SETTLE_S = 2.0


_JUDGEMENT_PREFIXES = tuple(f"{m}." for m in JUDGEMENT_MODULES)


def _digest(data: bytes, size: int = 16) -> str:
    return hashlib.blake2b(data, digest_size=size).hexdigest()


# Imported names per (file, content hash): a file is read and hashed on every call (cheap),
# parsed again only when its content changed.
_IMPORTS: dict[tuple[Path, str], frozenset[str]] = {}
_IMPORTS_MAX = 4096


def _module_name(path: Path) -> tuple[str, Path, bool]:
    """A file's dotted name from the packages above it, its root, and whether it is a package."""
    is_pkg = path.name == "__init__.py"
    parts = [] if is_pkg else [path.stem]
    d = path.parent
    while (d / "__init__.py").is_file():
        parts.insert(0, d.name)
        d = d.parent
    return ".".join(parts), d, is_pkg


def _imported_names(tree: ast.AST, modname: str, is_pkg: bool) -> frozenset[str]:
    """Dotted names a module's import statements may load (a superset; unresolvable ones drop out)."""
    out: set[str] = set()
    package = modname if is_pkg else modname.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                pkg_parts = package.split(".") if package else []
                if node.level - 1 > len(pkg_parts):
                    continue
                base_parts = pkg_parts[: len(pkg_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if not base:
                continue
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
    return frozenset(out)


def _read(path: Path, modname: str, is_pkg: bool) -> tuple[str, frozenset[str]]:
    data = path.read_bytes()
    digest = _digest(data)
    names = _IMPORTS.get((path, digest))
    if names is None:
        try:
            names = _imported_names(ast.parse(data, filename=str(path)), modname, is_pkg)
        except (SyntaxError, ValueError):  # not Python we can parse: its text still counts
            names = frozenset()
        if len(_IMPORTS) >= _IMPORTS_MAX:
            _IMPORTS.clear()
        _IMPORTS[(path, digest)] = names
    return digest, names


@dataclasses.dataclass(frozen=True)
class Slice:
    """Part of a module: what the top-level ``names`` of ``path`` need (see the module docstring).

    Example:
        >>> import jaxtheory.sims.quadratic as q
        >>> p = code_provenance(Slice(q.__file__, ("run",)))
        >>> [m for m in p["modules"] if m.startswith("jaxtheory.sims.quadratic")]
        ['jaxtheory.sims.quadratic[run]']
    """

    path: str | os.PathLike
    names: tuple[str, ...]
    #: source text of anonymous parts (a ``lambda`` passed inline), hashed as they are
    texts: tuple[str, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "path", Path(self.path).resolve())
        object.__setattr__(self, "names", tuple(sorted(set(self.names))))
        object.__setattr__(self, "texts", tuple(sorted(set(self.texts))))


def _bound_names(node: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).partition(".")[0] for a in node.names if a.name != "*"}
    targets: list[ast.AST] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _read_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _read_slice(sl: Slice) -> tuple[str, frozenset[str]]:
    """The digest of a slice's syntax and the dotted names its imports may load."""
    tree = ast.parse(sl.path.read_bytes(), filename=str(sl.path))
    modname, _, is_pkg = _module_name(sl.path)
    body = list(tree.body)
    defines: dict[str, list[int]] = {}
    always: list[int] = []
    for i, node in enumerate(body):
        names = _bound_names(node)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            pass
        elif not names:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # the module docstring, or a bare string
            always.append(i)
        for n in names:
            defines.setdefault(n, []).append(i)
    keep: set[int] = set()
    todo = [*always, *(i for n in sl.names for i in defines.get(n, ()))]
    while todo:
        i = todo.pop()
        if i in keep:
            continue
        keep.add(i)
        for n in _read_names(body[i]):
            todo.extend(j for j in defines.get(n, ()) if j not in keep)
    kept = [body[i] for i in sorted(keep)]
    text = "\n".join([*(ast.dump(n, include_attributes=False) for n in kept), *sl.texts])
    imports = ast.Module(
        body=[n for n in kept if isinstance(n, (ast.Import, ast.ImportFrom))], type_ignores=[]
    )
    return _digest(text.encode()), _imported_names(imports, modname, is_pkg)


def _tracked_location(top: str) -> Path | None:
    """Directory (package) or file (module) that ``import top`` loads, without importing it."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        locs = list(spec.submodule_search_locations)
        return Path(locs[0]).resolve() if locs else None
    return Path(spec.origin).resolve() if spec.origin and os.path.isfile(spec.origin) else None


def _local_location(top: str, root: Path) -> Path | None:
    if (root / top / "__init__.py").is_file():
        return (root / top).resolve()
    if (root / f"{top}.py").is_file():
        return (root / f"{top}.py").resolve()
    return None


def _resolve(name: str, top_loc: Path) -> Path | None:
    """The file of dotted module ``name`` whose top-level package or module is at ``top_loc``."""
    parts = name.split(".")
    if not os.path.isdir(top_loc):
        return top_loc if len(parts) == 1 else None
    base = os.path.join(top_loc, *parts[1:])
    init = os.path.join(base, "__init__.py")
    if os.path.isfile(init):
        return Path(init)
    if len(parts) > 1 and os.path.isfile(base + ".py"):
        return Path(base + ".py")
    return None


def _unwrap(obj: Any) -> Any:
    """The function under partials and decorators (``jax.jit``, ``functools.wraps``)."""
    for _ in range(32):
        if isinstance(obj, functools.partial):
            obj = obj.func
        elif hasattr(obj, "__wrapped__"):
            obj = obj.__wrapped__
        else:
            break
    return obj


def _source_file(obj: Any) -> Path | None:
    if isinstance(obj, Slice):
        return obj.path
    if isinstance(obj, (str, os.PathLike)):
        return Path(obj).resolve()
    obj = _unwrap(obj)
    if not (
        inspect.ismodule(obj)
        or inspect.isclass(obj)
        or inspect.isfunction(obj)
        or inspect.ismethod(obj)
        or inspect.iscode(obj)
    ):
        obj = type(obj)
    try:
        f = inspect.getsourcefile(obj)
    except TypeError:  # built-in, or defined without a file
        return None
    if not f or not os.path.isfile(f):
        return None
    return Path(f).resolve()


def module_closure(*objs: Any) -> dict[str, Path]:
    """The source files of ``objs`` and of the tracked modules they import, transitively.

    Args:
        *objs: functions, classes, modules or paths of Python files. An object without a
            source file contributes nothing.

    Returns:
        ``{dotted module name: file}``, sorted by name.

    Example:
        >>> from jaxtheory.sims import quadratic
        >>> files = module_closure(quadratic.run)
        >>> "jaxtheory.sims.quadratic" in files, "jaxtheory.claims" in files  # judgement stays out
        (True, False)
        >>> any(name.startswith("jaxtheory.sims.moe") for name in files)
        False
    """
    return {name: path for name, (path, _) in sorted(_closure(objs).items())}


# Closures found, by start files and import path, with the stat signature they depend on.
_CLOSURES: dict[tuple, tuple[tuple, dict[str, tuple[Path, str]]]] = {}
_CLOSURES_MAX = 256


def _signature(files: Iterable[str], dirs: Iterable[str]) -> tuple | None:
    """Stat of each file and directory a closure depends on; ``None`` when any is missing
    or was modified within :data:`SETTLE_S` seconds (too recent to trust)."""
    recent = time.time_ns() - int(SETTLE_S * 1e9)
    out = []
    for p in (*files, *dirs):
        try:
            st = os.stat(p)
        except OSError:
            return None
        if st.st_mtime_ns > recent or st.st_ctime_ns > recent:
            return None
        out.append((st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino))
    return tuple(out)


def _closure(objs: Iterable[Any]) -> dict[str, tuple[Path, str]]:
    """:func:`_walk`, reused while a stat of everything it read or searched shows no change."""
    starts = tuple(o if isinstance(o, Slice) else f for o in objs for f in [_source_file(o)] if f is not None)
    key = (starts, tuple(sys.path))
    hit = _CLOSURES.get(key)
    if hit is not None:
        (files, dirs, sig), found = hit
        if sig is not None and _signature(files, dirs) == sig:
            return dict(found)
    found, searched = _walk(starts)
    files = tuple(str(p) for p, _ in found.values())
    dirs = tuple(sorted(searched))
    if len(_CLOSURES) >= _CLOSURES_MAX:
        _CLOSURES.clear()
    _CLOSURES[key] = ((files, dirs, _signature(files, dirs)), dict(found))
    return found


def _nearest_dir(path: str) -> str:
    """The deepest existing directory holding ``path`` (where a new file would show)."""
    d = os.path.dirname(path)
    while d and not os.path.isdir(d):
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return d


def _walk(starts: Iterable[Path | Slice]) -> tuple[dict[str, tuple[Path, str]], set[str]]:
    """The closure of ``starts``, and the directories it searched for modules."""
    found: dict[str, tuple[Path, str]] = {}
    searched: set[str] = set()
    tops: dict[tuple[str, Path], Path | None] = {}
    tried: set[tuple[str, Path]] = set()  # (dotted name, root of the importing file)
    queued: set[Path | Slice] = set()
    queue: list[Path | Slice] = []

    def push(f: Path | Slice) -> None:
        if f not in queued:
            queued.add(f)
            queue.append(f)

    for f in starts:
        push(f)
    whole = {f for f in starts if not isinstance(f, Slice)}
    while queue:
        item = queue.pop()
        path = item.path if isinstance(item, Slice) else item
        modname, root, is_pkg = _module_name(path)
        if isinstance(item, Slice):
            if path in whole:  # the whole module is in the closure anyway
                continue
            key = f"{modname}[{','.join(item.names)}{',<lambda>' if item.texts else ''}]"
        else:
            key = modname
        if key in found:
            continue
        if is_pkg and modname in FACADES:
            searched.add(str(root))
            continue
        try:
            digest, names = _read_slice(item) if isinstance(item, Slice) else _read(path, modname, is_pkg)
        except OSError:  # vanished or unreadable since it was found: not part of the code
            continue
        found[key] = (path, digest)
        searched.update((str(path.parent), str(root)))  # a new __init__.py would rename it
        parts = modname.split(".")  # importing a.b.c first runs a/__init__.py and a/b/__init__.py
        for i in range(1, len(parts)):
            push(root.joinpath(*parts[:i], "__init__.py"))
        for name in sorted(names):
            top = name.partition(".")[0]
            key = (top, root)
            if key not in tops:
                loc = _tracked_location(top) if top in TRACKED_PACKAGES else None
                tops[key] = loc or _local_location(top, root)
            loc = tops[key]
            if loc is None:
                continue
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in JUDGEMENT_MODULES or prefix.startswith(_JUDGEMENT_PREFIXES):
                    break
                if (prefix, loc) in tried:
                    continue
                tried.add((prefix, loc))
                f = _resolve(prefix, loc)
                if f is not None:
                    push(f)
                elif os.path.isdir(loc):  # where the module or package would appear
                    where = os.path.join(loc, *parts[1:i])
                    searched.update((_nearest_dir(where), _nearest_dir(os.path.join(where, "_"))))
    return found, searched


@functools.cache
def _versions() -> tuple[tuple[str, str | None], ...]:
    from importlib import metadata

    out = []
    for name in ENVIRONMENT_PACKAGES:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, None))
    return tuple(out)


def environment() -> dict[str, Any]:
    """The library versions and JAX flags that enter the fingerprint.

    Returns:
        ``{"jax": ..., "jaxlib": ..., "optax": ..., "flax": ..., "numpy": ..., "x64": bool}``
        (a version is ``None`` when the package is not installed). ``x64`` is read when
        called, so it reflects an enclosing ``jax.enable_x64`` context.

    Example:
        >>> env = environment()
        >>> sorted(env) == sorted([*ENVIRONMENT_PACKAGES, "x64"])
        True
    """
    import jax

    return {**dict(_versions()), "x64": bool(jax.config.jax_enable_x64)}


def code_provenance(*objs: Any) -> dict[str, Any]:
    """The fingerprint of the code behind ``objs``, with what it is made of.

    Args:
        *objs: the run function and anything else whose module decides the results
            (an experiment's module file, say); see the module docstring for which
            imports are followed.

    Returns:
        A dict with ``"fingerprint"`` (16 hex digits), ``"modules"`` (dotted module name
        to the hash of its source), ``"environment"`` (:func:`environment`) and
        ``"origin"`` (the source file of the first object, or ``None``); plus
        ``"loose"`` (hashes of compiled code) for objects without a source file. The
        fingerprint hashes the module names, their source hashes and the environment,
        not file paths: the same code in another checkout has the same
        fingerprint.

    Example:
        >>> from jaxtheory.sims import quadratic
        >>> p = code_provenance(quadratic.run)
        >>> p["fingerprint"] == code_provenance(quadratic.run)["fingerprint"]
        True
        >>> "jaxtheory.sims.quadratic" in p["modules"], p["environment"]["x64"]
        (True, False)
    """
    modules = {name: digest for name, (_, digest) in sorted(_closure(objs).items())}
    loose = []  # objects without a source file: their compiled code stands in
    for obj in objs:
        if _source_file(obj) is None:
            code = getattr(_unwrap(obj), "__code__", None)
            loose.append(_digest(marshal.dumps(code)) if code is not None else repr(type(obj)))
    env = environment()
    payload = json.dumps({"modules": modules, "loose": loose, "environment": env}, sort_keys=True)
    first = next((f for f in map(_source_file, objs) if f is not None), None)
    return {
        "fingerprint": _digest(payload.encode(), 8),
        "modules": modules,
        "environment": env,
        **({"loose": loose} if loose else {}),
        "origin": str(first) if first else None,
    }


def code_fingerprint(*objs: Any) -> str:
    """The fingerprint string of :func:`code_provenance` (16 hex digits).

    Example:
        >>> from jaxtheory.sims import quadratic
        >>> len(code_fingerprint(quadratic.run))
        16
    """
    return code_provenance(*objs)["fingerprint"]
