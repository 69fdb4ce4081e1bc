"""Experiments: a simulator, a space, figures and a paper's claims, in one object.

An experiment lives in ``sweeps/<name>.py`` and exposes one module-level
``EXPERIMENT``; the registry (:mod:`jaxtheory.registry`) finds it by its ``name``. A
minimal one::

    import dataclasses
    import jax.numpy as jnp
    from jaxtheory import Experiment, Paper, Preset, Claim, Figure
    from jaxtheory.sweep import Space, log, values

    @dataclasses.dataclass(frozen=True)
    class Spec:                 # everything that fixes shapes: the compile key
        dim: int = 8
        steps: int = 100

    def run(spec, params, key): # pure, jittable, vmappable; params are JAX scalars
        ...
        return {"loss": losses}  # a dict of arrays; here losses has shape (steps,)

    def final_loss(ds, spec):   # a claim's sample: the final loss of every seed
        return ds["loss"].isel(step=-1)                # dims (seed, lr)

    EXPERIMENT = Experiment(
        name="my-experiment",
        paper=Paper(title="...", arxiv="2601.00001"),
        run=run,
        spec=Spec(),
        params={"lr": 0.1, "noise": 1.0},       # defaults of every parameter run reads
        metric_dims={"loss": ("step",)},        # names of each metric's own dims
        coords=lambda spec: {"step": jnp.arange(spec.steps)},
        presets={
            "smoke": Preset(Space(lr=log(1e-3, 1e-1, num=4), seeds=4)),   # CPU, seconds
            "full": Preset(Space(lr=log(1e-4, 1.0, num=64), seeds=64),
                           spec={"steps": 10_000}),                    # one accelerator
        },
        claims=[Claim.at_most("final-loss", "The loss falls below 0.1 at every lr.",
                              final_loss, 0.1, source="proposed")],
        figures=[Figure("loss", draw_loss)],     # draw_loss(ds, spec, fig)
        description="What is simulated and how, in Markdown with $math$.",
    )

``EXPERIMENT.sweep("smoke", out="runs")`` runs the preset through the sweep engine into
``runs/<name>/<preset>-<hash>/``, evaluates every claim on the assembled results,
and writes ``claims.json`` next to ``results.nc``; rerunning it resumes. The hash covers
the spec, params, space and the fingerprint of the code
(:func:`~jaxtheory.sweep.code_provenance` of the run function and of the module
defining the experiment, with every ``jaxtheory`` module they import): after any edit
of that code, the run goes to a new directory and is computed afresh, never served from
chunks of the old code. The command line does the same: ``jaxtheory run my-experiment
--preset smoke``.

A claim (:mod:`jaxtheory.claims`) is a named, falsifiable check with a computed
verdict: ``pass``, ``fail``, ``inconclusive`` (the statistic's 95% interval, bootstrapped
over seeds, contains the decision boundary: the preset cannot decide) or
``not-applicable``. Its constructors (:meth:`Claim.at_most`, :meth:`Claim.slope`,
:meth:`Claim.ordering`, :meth:`Claim.close`, :meth:`Claim.identity`,
:meth:`Claim.fraction`, ...) take the per-seed sample the statistic is computed from, the
paper's value and tolerance (the very values the verdict uses) and a ``source``. A
claim that fails stays failing: it is a finding, reported with its interval.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any


from jaxtheory.claims import Claim, ClaimResult, evaluate_claims
from jaxtheory.simulator import Simulator
from jaxtheory.sweep import store
from jaxtheory.sweep.engine import SweepResult, sweep
from jaxtheory.sweep.provenance import code_provenance
from jaxtheory.sweep.space import Axis, Categorical, Space

__all__ = [
    "Paper",
    "Preset",
    "Claim",
    "ClaimResult",
    "Figure",
    "Experiment",
    "ExperimentRun",
    "evaluate_claims",
    "verdict_summary",
]


#: The banner on the page of an experiment whose paper was not found (``Paper(found=False)``).
RECONSTRUCTION_BANNER = "Reconstruction from the abstract, not the paper's algorithm."


@dataclasses.dataclass(frozen=True)
class Paper:
    """The paper an experiment checks.

    Attributes:
        title: the paper's title.
        arxiv: its arXiv id, where one exists.
        authors: author list as printed.
        url: a link, when there is no arXiv id.
        found: ``False`` when the paper itself was not found and the experiment is a
            reconstruction from its abstract (the page then carries the banner
            :data:`RECONSTRUCTION_BANNER`).
        banner: a further note shown at the top of the page (e.g. "an illustration of the
            theorem's mechanism, not a test of it").
        unverified: the paper's own claims that this project cannot decide (large
            pretrained models, private data, a theorem or an asymptotic statement no finite
            computation establishes), listed on the page without a verdict.
        reconstructed: what of the paper was rebuilt without it (a model, an algorithm,
            a data set), in a few words, for the index of papers; claims tested on it
            have ``source="reconstruction"``.

    Example:
        >>> Paper("A reconstructed paper", found=False).found
        False
    """

    title: str
    arxiv: str | None = None
    authors: str = ""
    url: str | None = None
    found: bool = True
    banner: str = ""
    unverified: tuple[str, ...] = ()
    reconstructed: str = ""

    def __post_init__(self):
        if isinstance(self.unverified, str):
            raise TypeError("Paper.unverified is a tuple of claims, not one string")
        object.__setattr__(self, "unverified", tuple(self.unverified))

    @property
    def link(self) -> str | None:
        """A URL for the paper."""
        if self.arxiv:
            return f"https://arxiv.org/abs/{self.arxiv}"
        return self.url


@dataclasses.dataclass(frozen=True)
class Preset:
    """A named size of an experiment: the space to sweep and spec/param overrides.

    Attributes:
        space: the :class:`~jaxtheory.sweep.Space`.
        spec: spec fields to replace (e.g. a longer horizon for ``full``).
        params: parameter defaults to replace.
        description: one line on what this preset is for.
        chunk: lanes per chunk when the caller gives none (``None``: as many as fit
            memory); say why beside a preset that sets it.
    """

    space: Space
    spec: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    description: str = ""
    chunk: int | None = None


@dataclasses.dataclass(frozen=True)
class Figure:
    """A figure drawn from an experiment's results.

    Attributes:
        name: file stem (``<name>.png`` and ``<name>.svg``).
        draw: ``draw(ds, spec, fig)`` draws on a :class:`matplotlib.figure.Figure`.
        caption: one or two sentences shown under the figure in the docs.
        size: figure size in inches.
    """

    name: str
    draw: Callable[[Any, Any, Any], None]
    caption: str = ""
    size: tuple[float, float] = (6.4, 4.0)


@dataclasses.dataclass
class ExperimentRun:
    """A finished run of an experiment preset.

    Attributes:
        experiment: the :class:`Experiment`.
        preset: preset name.
        run_dir: the run directory (``None`` when run in memory).
        results: the assembled :class:`xarray.Dataset`.
        claims: one :class:`ClaimResult` per claim.
        manifest: the sweep's manifest.
        spec: the spec the run used (preset overrides applied).
        rejudged: ``True`` when no lane was computed and the claims were evaluated
            again because their code (the judgement fingerprint) changed.
    """

    experiment: Experiment
    preset: str
    run_dir: Path | None
    results: Any
    claims: list[ClaimResult]
    manifest: dict
    spec: Any
    rejudged: bool = False

    @property
    def passed(self) -> bool:
        """True when every claim passed."""
        return all(c.passed for c in self.claims)

    @property
    def failed(self) -> list[str]:
        """Names of the claims whose verdict is ``fail``."""
        return [c.name for c in self.claims if c.verdict == "fail"]

    @property
    def errors(self) -> list[str]:
        """Names of the claims whose verdict is ``error`` (the measurement raised)."""
        return [c.name for c in self.claims if c.verdict == "error"]

    @property
    def inconclusive(self) -> list[str]:
        """Names of the claims whose verdict is ``inconclusive``."""
        return [c.name for c in self.claims if c.verdict == "inconclusive"]

    def check(self) -> ExperimentRun:
        """Check that the run is whole: every claim evaluated and every figure drawn.

        What an experiment's smoke test asserts before its own checks: ``claims.json``
        (when the run is on disk) lists the experiment's claims in order, no claim's
        measurement raised, every verdict is one of :data:`~jaxtheory.claims.VERDICTS`
        and every source one of :data:`~jaxtheory.claims.SOURCES`, and each figure draws
        data on every axes (:func:`jaxtheory.plots.check_drawn`). A failing or
        inconclusive verdict is not a defect of the run and passes.

        Returns:
            The run itself, so a test can write ``run = exp.sweep(...).check()``.

        Raises:
            AssertionError: naming the claim that is not whole.
            EmptyFigureError: (a :class:`ValueError`) naming a figure axes without data.

        Example:
            >>> from jaxtheory.registry import get_experiment
            >>> run = get_experiment("noisy-quadratic").sweep("smoke", quiet=True)  # doctest: +SKIP
            >>> run.check().passed  # doctest: +SKIP
            True
        """
        from matplotlib.figure import Figure as MplFigure

        from jaxtheory import plots
        from jaxtheory.claims import SOURCES, VERDICTS

        names = [c.name for c in self.experiment.claims]
        if self.run_dir is not None:
            stored = json.loads((Path(self.run_dir) / "claims.json").read_text())
            got = [c["name"] for c in stored]
            if got != names:
                raise AssertionError(f"claims.json lists {got}, the experiment declares {names}")
        if [c.name for c in self.claims] != names:
            raise AssertionError(f"the run evaluated {[c.name for c in self.claims]}, not {names}")
        for c in self.claims:
            if c.verdict == "error" or c.error is not None:
                raise AssertionError(f"claim {c.name!r} is an error: {c.error}")
            if c.verdict not in VERDICTS or c.source not in SOURCES:
                raise AssertionError(f"claim {c.name!r}: verdict {c.verdict!r}, source {c.source!r}")
        for f in self.experiment.figures:
            fig = MplFigure(figsize=f.size)
            f.draw(self.results, self.spec, fig)
            plots.check_drawn(fig, f"{self.experiment.name}/{f.name}")
        return self


def verdict_summary(claims: Sequence[ClaimResult]) -> str:
    """``"5 pass, 1 fail, 2 inconclusive of 8 claims"`` (verdicts that occur, in order)."""
    from jaxtheory.claims import VERDICTS

    counts = [(v, sum(c.verdict == v for c in claims)) for v in VERDICTS]
    return ", ".join(f"{n} {v}" for v, n in counts if n) + f" of {len(claims)} claims"


def _stable_hash(obj: Any) -> str:
    text = json.dumps(store.to_jsonable(obj), sort_keys=True)
    return hashlib.blake2b(text.encode(), digest_size=5).hexdigest()


@dataclasses.dataclass(frozen=True)
class Experiment:
    """A registered experiment: simulator, presets, figures and the paper's claims.

    Attributes:
        name: registry name (kebab-case), e.g. ``"noisy-quadratic"``.
        paper: the :class:`Paper` checked.
        run: ``run(spec, params, key) -> {metric: array}``, pure and vmappable; in host
            mode (``jit=False``) ``run(spec, params, seed)`` in plain Python/numpy.
            With ``simulator=``, taken from it (as are ``spec``, ``params``,
            ``metric_dims``, ``coords`` and ``jit`` where not given; ``params`` given
            here override the simulator's defaults).
        spec: default spec (frozen dataclass).
        params: default of every parameter ``run`` reads.
        presets: ``{"smoke": Preset(...), "full": Preset(...), ...}``.
        claims: the paper's claims as :class:`Claim` objects.
        figures: :class:`Figure` objects.
        metric_dims: names of each metric's own dimensions.
        coords: coordinates of metric dimensions, or a function of the spec.
        description: Markdown (with ``$math$``) on what is simulated and how.
        default_preset: preset used when none is named.
        source_file: the file of the module that defines the experiment; its code
            enters the fingerprint (:meth:`provenance`). Found from the caller when not
            given (``None`` when the caller has no file).
        jit: ``True``: the sweep compiles ``jit(vmap(run))``. ``False``: host mode, for
            computations that are naturally host-side (Python dynamic programs over
            version spaces): ``run`` is called per lane with Python scalars and an
            integer ``seed`` (see :func:`jaxtheory.sweep.sweep`), through the same chunk
            store, resume, ``results.nc`` and claims.
        simulator: the :class:`~jaxtheory.simulator.Simulator` whose declaration
            supplies the run function, spec, parameter defaults, metric dims,
            coordinates, x64 policy and mode.
        origin: where the experiment is loaded from, recorded in every run's manifest
            so that ``show``, ``report`` and ``judge`` find it again: ``"module:ATTR"``
            or the path of a file (found from the defining module when not given).
    """

    name: str
    paper: Paper
    run: Callable[..., Mapping[str, Any]] | None = None
    spec: Any = None
    params: Mapping[str, Any] | None = None
    presets: Mapping[str, Preset] = dataclasses.field(default_factory=dict)
    claims: Sequence[Claim] = ()
    figures: Sequence[Figure] = ()
    metric_dims: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    coords: Callable[[Any], Mapping[str, Any]] | Mapping[str, Any] | None = None
    description: str = ""
    default_preset: str = "smoke"
    source_file: str | None = None
    jit: bool | None = None
    origin: str = ""
    simulator: Simulator | None = None

    def __post_init__(self):
        try:
            caller_globals = sys._getframe(2).f_globals
        except ValueError:  # pragma: no cover - no caller frame
            caller_globals = {}
        if self.source_file is None:  # the module whose `Experiment(...)` made this object
            caller = caller_globals.get("__file__")
            if caller and os.path.isfile(caller):
                object.__setattr__(self, "source_file", os.path.abspath(caller))
        if not self.origin:  # how to load it again: its module, or its file
            mod = caller_globals.get("__name__", "")
            if mod and mod != "__main__" and not mod.startswith("_jaxtheory_file_"):
                object.__setattr__(self, "origin", f"{mod}:EXPERIMENT")
            elif self.source_file:
                object.__setattr__(self, "origin", self.source_file)
        self._from_simulator()
        if not isinstance(self.jit, bool):
            raise TypeError(f"experiment {self.name!r}: jit must be True or False, got {self.jit!r}")
        if not self.presets:
            raise ValueError(f"experiment {self.name!r} has no presets")
        if self.default_preset not in self.presets:
            raise ValueError(
                f"experiment {self.name!r}: default preset {self.default_preset!r} "
                f"is not one of {sorted(self.presets)}"
            )
        names = [c.name for c in self.claims]
        if len(set(names)) != len(names):
            raise ValueError(f"experiment {self.name!r}: claim names repeat: {names}")

    def _from_simulator(self) -> None:
        """Take what the experiment does not give from its declared simulator."""
        sim = self.simulator
        put = object.__setattr__
        if sim is not None:
            if not isinstance(sim, Simulator):
                raise TypeError(f"experiment {self.name!r}: simulator must be a Simulator, got {sim!r}")
            if self.run is None:
                put(self, "run", sim.run)
            if self.spec is None:
                put(self, "spec", sim.spec)
            params = dict(sim.params)
            for k, v in dict(self.params or {}).items():  # a label overrides a categorical's default
                params[k] = (
                    params[k].with_default(v)
                    if isinstance(params.get(k), Categorical) and isinstance(v, str)
                    else v
                )
            put(self, "params", params)
            if not self.metric_dims:
                put(self, "metric_dims", dict(sim.metric_dims))
            if self.coords is None:
                put(self, "coords", sim.coords)
            if self.jit is None:
                put(self, "jit", sim.jit)
        if self.jit is None:
            put(self, "jit", True)
        missing = [k for k in ("run", "spec", "params") if getattr(self, k) is None]
        if missing:
            raise TypeError(f"experiment {self.name!r}: give {', '.join(missing)}, or a simulator=")

    @property
    def x64(self) -> bool:
        """Whether the sweep runs inside ``jax.enable_x64(True)`` (the simulator's policy)."""
        return bool(self.simulator is not None and self.simulator.x64)

    def preset(self, name: str | None = None) -> Preset:
        """The named preset (the default one for ``None``)."""
        name = name or self.default_preset
        if name not in self.presets:
            raise KeyError(
                f"experiment {self.name!r} has no preset {name!r}; presets: {', '.join(self.presets)}"
            )
        return self.presets[name]

    def resolve(
        self, preset: str | None = None, overrides: Mapping[str, Any] | None = None
    ) -> tuple[Any, dict, Space]:
        """The (spec, params, space) a preset runs, with ``--set``-style overrides applied.

        Overrides map axis names to axes (or lists of values); ``seeds`` sets the seed
        count. A preset may give a categorical parameter's default as a label.
        """
        p = self.preset(preset)
        spec = dataclasses.replace(self.spec, **dict(p.spec)) if p.spec else self.spec
        params = dict(self.params)
        for k, v in dict(p.params).items():
            params[k] = params[k].with_default(v) if isinstance(params.get(k), Categorical) else v
        space = p.space
        if overrides:
            ov = dict(overrides)
            seeds = ov.pop("seeds", None)
            for k, v in ov.items():
                if isinstance(v, Axis):
                    ov[k] = dataclasses.replace(v, name=k)
            space = space.replace(seeds=seeds, **ov)
        return spec, params, space

    def _own(self, obj: Any) -> tuple[list[str], list[str]] | None:
        """What of the experiment's own module ``obj`` is: its top-level name, or for an
        anonymous function its source text and the module-level names its code reads;
        ``None`` when ``obj`` is defined elsewhere."""
        if obj is None or not self.source_file:
            return None
        import inspect

        from jaxtheory.sweep.provenance import _source_file, _unwrap

        f = _source_file(obj)
        if f is None or f != Path(self.source_file).resolve():
            return None
        fn = _unwrap(obj)
        name = getattr(fn, "__name__", None)
        if isinstance(name, str) and name.isidentifier():
            return [name], []
        code = getattr(fn, "__code__", None)
        try:
            text = inspect.getsource(fn).strip()
        except (OSError, TypeError):  # pragma: no cover - no source
            text = repr(code)
        return list(getattr(code, "co_names", ())), [text]

    def provenance(self) -> dict:
        """The *simulation* fingerprint: the code that computes the stored results.

        :func:`~jaxtheory.sweep.code_provenance` of the run function, of the sweep
        engine and of every ``jaxtheory`` (and ``sweeps``) module they import,
        transitively, with the library versions and the x64 flag. Where the run function,
        the spec class or the coordinates function is defined in the experiment's own
        module, only the part of that module they need counts (a
        :class:`~jaxtheory.sweep.provenance.Slice`). The judgement layer (claims,
        analysis, figures, the experiment's claims and captions) is left out: editing it
        re-judges the stored results (:meth:`judgement_provenance`) and computes nothing.
        """
        from jaxtheory.sweep.provenance import Slice

        objs: list[Any] = []
        names: list[str] = []
        texts: list[str] = []
        for obj in (self.run, self.coords if callable(self.coords) else None, type(self.spec)):
            own = self._own(obj)
            if own is not None:
                names += own[0]
                texts += own[1]
            elif obj is not None and obj is not type(self.spec):
                objs.append(obj)
        if names or texts:
            objs.append(Slice(self.source_file, tuple(names), tuple(texts)))
        # `sweep` stands for the engine's module: it derives the keys and stores the chunks
        return code_provenance(*objs, sweep)

    def judgement_provenance(self) -> dict:
        """The *judgement* fingerprint: the code that turns stored results into verdicts and figures.

        :func:`~jaxtheory.sweep.code_provenance` of the experiment's module (whole: its
        claims, measures, figures and captions) and of the judgement layer
        (:mod:`jaxtheory.experiment`, :mod:`jaxtheory.claims`, :mod:`jaxtheory.analysis`,
        :mod:`jaxtheory.plots`). When only this changes, a rerun computes no lane and
        re-judges (:meth:`judge`).
        """
        from jaxtheory import analysis, claims, plots

        here = sys.modules[__name__]
        return code_provenance(
            *([self.source_file] if self.source_file else [self.run]), here, claims, analysis, plots
        )

    def run_id(
        self,
        preset: str | None,
        spec: Any,
        params: Mapping[str, Any],
        space: Space,
        fingerprint: str | None = None,
    ) -> str:
        """Deterministic run id: the preset name and a hash of what decides the results.

        The hash covers the experiment's name, the spec, params and space, and the code
        fingerprint (``fingerprint``, by default ``self.provenance()["fingerprint"]``),
        so other code never shares a run directory.
        """
        if fingerprint is None:
            fingerprint = self.provenance()["fingerprint"]
        key = {
            "experiment": self.name,
            "run": f"{self.run.__module__}.{self.run.__qualname__}",
            "spec": spec,
            "params": dict(params),
            "space": space.describe(),
            "metric_dims": {k: list(v) for k, v in dict(self.metric_dims).items()},
            "code": fingerprint,
        }
        return f"{preset or self.default_preset}-{_stable_hash(key)}"

    def sweep(
        self,
        preset: str | None = None,
        *,
        out: str | os.PathLike | None = "runs",
        overrides: Mapping[str, Any] | None = None,
        chunk: int | None = None,
        devices: Any = "all",
        quiet: bool = False,
    ) -> ExperimentRun:
        """Run a preset through the sweep engine and evaluate the claims.

        Args:
            preset: preset name (default: ``default_preset``).
            out: root directory; the run goes to ``out/<name>/<run-id>/``. ``None`` runs
                in memory and writes nothing.
            overrides: axes to replace or add (``{"lr": log(...), "seeds": 8}``).
            chunk: lanes per chunk (default: the preset's ``chunk``, else as many as fit
                memory).
            devices: ``"all"``, a count, or a device list.
            quiet: no progress bar or summary.

        Returns:
            An :class:`ExperimentRun`; ``claims.json`` is written beside ``results.nc``.
        """
        if self.x64:
            import jax

            with jax.enable_x64(True):
                return self._sweep(
                    preset, out=out, overrides=overrides, chunk=chunk, devices=devices, quiet=quiet
                )
        return self._sweep(preset, out=out, overrides=overrides, chunk=chunk, devices=devices, quiet=quiet)

    def _sweep(self, preset, *, out, overrides, chunk, devices, quiet) -> ExperimentRun:
        preset = preset or self.default_preset
        chunk = chunk if chunk is not None else self.preset(preset).chunk
        spec, params, space = self.resolve(preset, overrides)
        code = self.provenance()
        judgement = self.judgement_provenance()["fingerprint"]
        run_dir = None
        before = None  # the judgement fingerprint of the stored verdicts, if any
        if out is not None:
            run_dir = Path(out) / self.name / self.run_id(preset, spec, params, space, code["fingerprint"])
            if (run_dir / "manifest.json").exists() and (run_dir / "claims.json").exists():
                before = store.read_json(run_dir / "manifest.json").get("judgement")
        res: SweepResult = sweep(
            self.run,
            spec,
            space,
            params,
            run_dir=run_dir,
            metric_dims=self.metric_dims,
            coords=self.coords,
            chunk=chunk,
            devices=devices,
            quiet=quiet,
            label=f"{self.name}/{preset}",
            meta={
                "experiment": self.name,
                "preset": preset,
                "origin": self.origin,
                "judgement": judgement,
                "paper": dataclasses.asdict(self.paper),
            },
            fingerprint=code,
            jit=self.jit,
        )
        claims = evaluate_claims(self.claims, res.dataset, spec, experiment=self.name)
        import jax

        if run_dir is not None and jax.process_index() == 0:
            store.atomic_write_json(run_dir / "claims.json", [c.to_json() for c in claims])
        rejudged = res.manifest.get("chunks_run", 1) == 0 and before is not None and before != judgement
        if not quiet and claims:
            how = " (re-judged, 0 lanes computed)" if rejudged else ""
            print(f"{self.name}/{preset}: {verdict_summary(claims)}{how}", file=sys.stderr)
        run = ExperimentRun(self, preset, run_dir, res.dataset, claims, res.manifest, spec)
        run.rejudged = rejudged
        return run

    def judge(self, run_dir: str | os.PathLike, *, quiet: bool = False) -> ExperimentRun:
        """Evaluate the claims again on a stored run, computing nothing.

        Reads ``results.nc`` and ``manifest.json`` of ``run_dir``, evaluates the claims as
        the code stands now, rewrites ``claims.json`` and records the judgement
        fingerprint in the manifest. What ``jaxtheory judge RUN_DIR`` does.

        Raises:
            FileNotFoundError: when ``run_dir`` holds no finished run.
            ValueError: when the run is of another experiment.
        """
        run_dir = Path(run_dir)
        manifest = store.read_json(run_dir / "manifest.json")
        if manifest.get("experiment") != self.name:
            raise ValueError(f"{run_dir} is a run of {manifest.get('experiment')!r}, not of {self.name!r}")
        from jaxtheory.report.runs import spec_from_json

        ds = store.open_results(run_dir)
        spec = spec_from_json(self.spec, manifest.get("spec", {}))
        claims = evaluate_claims(self.claims, ds, spec, experiment=self.name)
        store.atomic_write_json(run_dir / "claims.json", [c.to_json() for c in claims])
        manifest["judgement"] = self.judgement_provenance()["fingerprint"]
        store.atomic_write_json(run_dir / "manifest.json", manifest)
        if not quiet and claims:
            print(
                f"{self.name}/{manifest.get('preset')}: {verdict_summary(claims)} (re-judged, 0 lanes computed)",
                file=sys.stderr,
            )
        run = ExperimentRun(self, manifest.get("preset", ""), run_dir, ds, claims, manifest, spec)
        run.rejudged = True
        return run
