"""jaxtheory.plots: each figure kind draws what it should, and an empty figure is an error.

Drawn artists are compared with statistics computed here by numpy on the same data
(same float64 arithmetic, so equal to rounding: ``np.allclose`` at its default
tolerance); cell edges against their closed forms.
"""

from __future__ import annotations

import dataclasses

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import xarray as xr
from matplotlib.figure import Figure

from jaxtheory import Figure as FigureDef
from jaxtheory import plots as P


def _ax():
    fig = Figure()
    return fig, fig.add_subplot()


@pytest.fixture
def samples():
    """(width, step, seed) log-normal samples with a NaN seed in one cell."""
    rng = np.random.default_rng(1)
    v = rng.lognormal(size=(3, 7, 9))
    v[1, 4, 2] = np.nan
    return xr.DataArray(
        v, dims=("width", "step", "seed"), coords={"width": [64, 128, 256], "step": np.arange(1, 8) * 10}
    )


# -- summarize_over ------------------------------------------------------------------------


def test_summarize_over_matches_numpy(samples):
    v = samples.values
    c, lo, hi = P.summarize_over(samples, "seed", "iqr")
    assert c.dims == ("width", "step")
    ok = ~np.isnan(v).any(-1)
    for got, q in ((c, 0.5), (lo, 0.25), (hi, 0.75)):
        want = np.quantile(v, q, axis=-1)
        assert np.allclose(got.values[ok], want[ok])
        assert np.isnan(got.values[~ok]).all()  # a diverged seed leaves a gap
    c, lo, hi = P.summarize_over(samples, "seed", "iqr", skipna=True)
    assert np.allclose(c.values, np.nanquantile(v, 0.5, axis=-1))
    m, lo, hi = P.summarize_over(samples, "seed", "se")
    se = v.std(-1, ddof=1) / np.sqrt(v.shape[-1])
    assert np.allclose(m.values[ok], v.mean(-1)[ok])
    assert np.allclose((hi - m).values[ok], se[ok]) and np.allclose((m - lo).values[ok], se[ok])
    m, lo, hi = P.summarize_over(samples, "seed", "se", skipna=True)
    n = np.isfinite(v).sum(-1)
    assert n[1, 4] == 8
    assert np.allclose((hi - m).values, np.nanstd(v, -1, ddof=1) / np.sqrt(n))


def test_summarize_over_rejects_bad_input(samples):
    with pytest.raises(ValueError, match="'trial' is not a dimension"):
        P.summarize_over(samples, "trial")
    with pytest.raises(ValueError, match="band must be one of"):
        P.summarize_over(samples, band="minmax")
    with pytest.raises(TypeError, match="DataArray"):
        P.summarize_over(samples.values)


# -- curves --------------------------------------------------------------------------------


def _band_vertices(coll):
    return np.concatenate([p.vertices for p in coll.get_paths()])


def test_curves_one_line_and_band_per_hue(samples):
    fig, ax = _ax()
    lines = P.curves(ax, samples, "step", hue="width", band="iqr", skipna=True)
    assert len(lines) == samples.sizes["width"] == len(ax.collections)
    x = samples["step"].values
    for i, (line, band) in enumerate(zip(lines, ax.collections)):
        v = samples.values[i]
        assert np.array_equal(line.get_xdata(), x)
        assert np.allclose(line.get_ydata(), np.nanmedian(v, -1))
        lo, hi = np.nanquantile(v, [0.25, 0.75], axis=-1)
        verts = _band_vertices(band)
        for k in range(len(x)):  # both band edges at every x ...
            at = verts[np.isclose(verts[:, 0], x[k])]
            assert np.isclose(at[:, 1], lo[k]).any() and np.isclose(at[:, 1], hi[k]).any()
        # ... and nothing else: every vertex is on one of the two edges
        for vx, vy in verts:
            k = int(np.flatnonzero(np.isclose(x, vx))[0])
            assert np.isclose(vy, lo[k]) or np.isclose(vy, hi[k])
        assert band.get_facecolor()[0][:3] == pytest.approx(matplotlib.colors.to_rgb(line.get_color()))
    assert [ln.get_label() for ln in lines] == ["width=64", "width=128", "width=256"]
    P.check_drawn(fig, "curves")


def test_curves_se_band_log_axes_labels_and_colors(samples):
    fig, ax = _ax()
    sub = samples.isel(width=0)
    (line,) = P.curves(ax, sub, "step", band="se", log=(2, True), label="mean", marker="o")
    v = sub.values
    se = v.std(-1, ddof=1) / np.sqrt(v.shape[-1])
    verts = _band_vertices(ax.collections[0])
    assert np.allclose(line.get_ydata(), v.mean(-1))
    assert np.allclose(
        sorted(set(np.round(verts[:, 1], 12))),
        sorted(set(np.round(np.r_[v.mean(-1) - se, v.mean(-1) + se], 12))),
    )
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.xaxis.get_transform().base == 2 and ax.yaxis.get_transform().base == 10
    assert line.get_label() == "mean" and line.get_marker() == "o" and ax.get_xlabel() == "step"
    fig, ax = _ax()
    lines = P.curves(
        ax, samples, "step", hue="width", band=None, cmap="viridis", label_fmt=lambda w: f"N = {w}"
    )
    assert not ax.collections  # no band
    assert [ln.get_label() for ln in lines] == ["N = 64", "N = 128", "N = 256"]
    assert len({ln.get_color() for ln in lines}) == 3
    fig, ax = _ax()
    lines = P.curves(ax, samples, "step", hue="width", label_fmt="N={}")
    assert lines[2].get_label() == "N=256"


def test_curves_categorical_x_and_string_hue():
    da = xr.DataArray(
        np.arange(12.0).reshape(2, 3, 2),
        dims=("method", "task", "seed"),
        coords={"method": ["sgd", "adam"], "task": ["a", "b", "c"]},
    )
    fig, ax = _ax()
    lines = P.curves(ax, da, "task", hue="method")
    assert [ln.get_label() for ln in lines] == ["sgd", "adam"]
    assert list(lines[0].get_xdata()) == [0, 1, 2]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]


def test_curves_refuses_unselected_dims(samples):
    _, ax = _ax()
    with pytest.raises(ValueError, match=r"dimension\(s\) \{'width': 3\}"):
        P.curves(ax, samples, "step")
    with pytest.raises(ValueError, match="'lr' is not a dimension"):
        P.curves(ax, samples, "lr", hue="width")
    with pytest.raises(ValueError, match="different dimensions"):
        P.curves(ax, samples, "step", hue="step")
    # a size-one dimension is dropped, not refused
    (line,) = P.curves(ax, samples.isel(width=[0]), "step")
    assert len(line.get_xdata()) == samples.sizes["step"]


# -- lr_sweep ------------------------------------------------------------------------------


def test_lr_sweep_log2_axis_and_best_per_width():
    rng = np.random.default_rng(2)
    lrs = 2.0 ** np.arange(-8, 1)
    widths = [64, 256, 1024]
    opt = np.array([-5, -3, -1])  # log2 of each width's best lr
    loss = (np.log2(lrs)[None, :, None] - opt[:, None, None]) ** 2 + 1
    loss = loss * np.exp(0.01 * rng.normal(size=(3, len(lrs), 5)))
    da = xr.DataArray(loss, dims=("width", "lr", "seed"), coords={"width": widths, "lr": lrs})
    fig, ax = _ax()
    out = P.lr_sweep(ax, da)
    assert list(out) == widths
    med = np.median(loss, -1)
    for i, w in enumerate(widths):
        line, star = out[w]
        assert np.array_equal(line.get_xdata(), np.log2(lrs))
        assert np.allclose(line.get_ydata(), med[i])
        b = int(np.argmin(med[i]))
        assert star.get_xdata()[0] == np.log2(lrs)[b] == opt[i]
        assert star.get_ydata()[0] == pytest.approx(med[i, b])
        assert line.get_label() == f"N={w}"
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "log₂ lr"
    assert len(ax.collections) == 3  # a seed band per width
    P.check_drawn(fig, "lr_sweep")
    # accuracy: the largest is best; a width with no finite point has no marker
    acc = da.copy(data=-loss)
    acc[2] = np.nan
    out = P.lr_sweep(_ax()[1], acc, minimize=False, logy=False)
    assert out[64][1].get_xdata()[0] == -5 and out[1024][1] is None


def test_lr_sweep_other_names_and_bad_lrs():
    da = xr.DataArray(
        np.ones((2, 3, 2)), dims=("n", "lr_scale", "seed"), coords={"n": [1, 2], "lr_scale": [0.5, 1.0, 2.0]}
    )
    out = P.lr_sweep(_ax()[1], da, lr="lr_scale", width="n", label_fmt="n={}")
    assert list(out[1][0].get_xdata()) == [-1.0, 0.0, 1.0] and out[2][0].get_label() == "n=2"
    with pytest.raises(ValueError, match="must be positive"):
        P.lr_sweep(_ax()[1], da.assign_coords(lr_scale=[0.0, 1.0, 2.0]), lr="lr_scale", width="n")


# -- heatmap -------------------------------------------------------------------------------


def test_cell_edges_closed_forms():
    assert np.allclose(P.cell_edges([0.0, 1.0, 3.0]), [-0.5, 0.5, 2.0, 4.0])
    assert np.allclose(P.cell_edges([1e-3, 1e-2, 1e-1], log=True), [10**-3.5, 10**-2.5, 10**-1.5, 10**-0.5])
    assert np.allclose(P.cell_edges([2.0]), [1.5, 2.5])
    assert np.allclose(P.cell_edges([2.0], log=True), [2 / np.sqrt(2), 2 * np.sqrt(2)])
    with pytest.raises(ValueError, match="strictly increasing"):
        P.cell_edges([1.0, 1.0])
    with pytest.raises(ValueError, match="positive"):
        P.cell_edges([0.0, 1.0], log=True)


def test_heatmap_cells_on_real_coordinates():
    lr = np.array([1e-3, 1e-2, 1e-1, 1.0])
    mom = np.array([0.9, 0.0, 0.5])  # unsorted on purpose
    v = np.arange(12.0).reshape(3, 4)
    v[0, 0] = np.nan
    da = xr.DataArray(v, dims=("momentum", "lr"), coords={"momentum": mom, "lr": lr}, name="diverged")
    fig, ax = _ax()
    mesh = P.heatmap(ax, da, "lr", "momentum")
    xy = mesh.get_coordinates()
    assert xy.shape == (4, 5, 2)
    assert np.allclose(xy[0, :, 0], P.cell_edges(lr, log=True))  # log-spaced: geometric edges
    assert np.allclose(xy[:, 0, 1], P.cell_edges([0.0, 0.5, 0.9]))  # sorted, linear edges
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    arr = mesh.get_array().reshape(3, 4)
    order = np.argsort(mom)
    assert np.array_equal(arr.filled(-1), np.where(np.isnan(v[order]), -1, v[order]))
    assert arr.mask[order.tolist().index(0), 0]  # NaN cell blank
    assert mesh.colorbar is not None and mesh.colorbar.ax.get_ylabel() == "diverged"
    assert ax.get_xlabel() == "lr" and ax.get_ylabel() == "momentum"
    P.check_drawn(fig, "heatmap")  # the colorbar axes is not "empty"
    # explicit log choice and a categorical axis
    cat = xr.DataArray(np.ones((2, 4)), dims=("method", "lr"), coords={"method": ["sgd", "adam"], "lr": lr})
    fig, ax = _ax()
    mesh = P.heatmap(ax, cat, "lr", "method", log=(False, False), colorbar=False)
    assert ax.get_xscale() == "linear" and mesh.colorbar is None
    assert np.allclose(mesh.get_coordinates()[:, 0, 1], [-0.5, 0.5, 1.5])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["sgd", "adam"]


def test_heatmap_auto_log_and_errors():
    _, ax = _ax()
    lin = xr.DataArray(np.ones((3, 3)), dims=("a", "b"), coords={"a": [1, 2, 3], "b": [1, 2, 4]})
    P.heatmap(ax, lin, "a", "b", colorbar=False)
    assert ax.get_xscale() == "linear" and ax.get_yscale() == "log"
    with pytest.raises(ValueError, match="repeats a value"):
        P.heatmap(_ax()[1], lin.assign_coords(a=[1, 1, 3]), "a", "b")
    with pytest.raises(ValueError, match="besides"):
        P.heatmap(_ax()[1], lin.expand_dims(seed=2), "a", "b")


# -- slope_fit -----------------------------------------------------------------------------


@dataclasses.dataclass
class _Estimate:  # duck-typed stand-in for jaxtheory.analysis.Estimate
    value: float
    low: float
    high: float
    n: int


def test_slope_fit_draws_points_line_and_interval():
    rng = np.random.default_rng(3)
    x = 2.0 ** np.arange(4, 10)
    y = 5 * x**-0.5 * np.exp(0.05 * rng.normal(size=x.size))
    fig, ax = _ax()
    out = P.slope_fit(
        ax, x, y, _Estimate(-0.48, -0.53, -0.43, 16), label="gap", theory=-0.5, theory_label="N^-1/2"
    )
    assert np.array_equal(out["points"].get_xdata(), x) and np.array_equal(out["points"].get_ydata(), y)
    fx, fy = out["fit"].get_xdata(), out["fit"].get_ydata()
    b = np.mean(np.log(y) - (-0.48) * np.log(x))  # least-squares intercept at that slope
    assert fx[0] == x.min() and fx[-1] == pytest.approx(x.max())
    assert np.allclose(fy, np.exp(b) * fx**-0.48)
    assert out["fit"].get_label() == "gap: slope -0.48 (95% CI [-0.53, -0.43])"
    tx, ty = out["theory"].get_xdata(), out["theory"].get_ydata()
    assert np.allclose(np.diff(np.log(ty)) / np.diff(np.log(tx)), -0.5)
    assert ty[0] == pytest.approx(fy[0]) and out["theory"].get_label() == "N^-1/2"
    assert ax.get_xscale() == ax.get_yscale() == "log"
    P.check_drawn(fig, "slope")


def test_slope_fit_number_interval_intercept_and_errors():
    x = np.array([1.0, 10.0, 100.0])
    fig, ax = _ax()
    out = P.slope_fit(ax, x, 2 * x, 1.0, intercept=np.log(3.0), yerr=0.1 * x)
    assert np.allclose(out["fit"].get_ydata(), 3 * out["fit"].get_xdata())
    assert out["fit"].get_label() == "slope 1" and out["theory"] is None
    assert len(ax.collections) == 1  # the error bars
    with pytest.raises(ValueError, match="either an estimate"):
        P.slope_fit(ax, x, x, _Estimate(1, 0.9, 1.1, 3), (0.9, 1.1))
    with pytest.raises(ValueError, match="does not contain"):
        P.slope_fit(ax, x, x, 1.0, (1.1, 1.2))
    with pytest.raises(ValueError, match="no point"):
        P.slope_fit(ax, x, -x, 1.0)
    with pytest.raises(ValueError, match="differ in length"):
        P.slope_fit(ax, x, x[:2], 1.0)


# -- check_drawn -------------------------------------------------------------------------


def _raises_empty(fig, match="axes 1 of 1"):
    with pytest.raises(P.EmptyFigureError, match=match) as e:
        P.check_drawn(fig, "exp/fig")
    assert isinstance(e.value, ValueError) and "'exp/fig' draws no data" in str(e.value)


def test_check_drawn_rejects_axes_without_data():
    fig, ax = _ax()
    _raises_empty(fig)  # nothing at all
    ax.set_title("K = 4")
    ax.plot([], [], "o-", label="legend only")
    ax.errorbar([], [], yerr=[], fmt="o")  # what shifting-means-bai draws on smoke
    ax.axhline(0.05, ls="--")  # a reference line is not data
    ax.axvspan(1, 2)
    ax.text(0.5, 0.5, "hello")
    ax.legend()
    _raises_empty(fig, match=r"axes 1 of 1 \('K = 4'\) is empty")
    ax.plot([1.0, 2.0], [np.nan, np.nan])  # diverged: no finite point
    ax.set_yscale("log")
    ax.plot([1.0, 2.0], [0.0, -1.0])  # nothing positive on a log axis
    _raises_empty(fig)
    mesh_fig, mesh_ax = _ax()
    mesh_ax.pcolormesh(np.full((2, 2), np.nan))
    _raises_empty(mesh_fig)
    _raises_empty(Figure(), match="no axes")


@pytest.mark.parametrize(
    "draw",
    [
        lambda ax: ax.plot([1, 2], [np.nan, 3.0]),
        lambda ax: ax.scatter([1.0], [2.0]),
        lambda ax: ax.bar(["a", "b"], [1.0, 2.0]),
        lambda ax: ax.fill_between([0, 1], [0, 1], [1, 2]),
        lambda ax: ax.errorbar([1.0], [1.0], yerr=[0.1]),
        lambda ax: ax.pcolormesh(np.eye(2)),
        lambda ax: ax.imshow(np.eye(2)),
        lambda ax: ax.step([1, 2, 3], [0.1, 0.5, 1.0]),
        lambda ax: ax.hist([1.0, 2.0, 2.5]),
    ],
    ids=["line", "scatter", "bar", "band", "errorbar", "mesh", "image", "step", "hist"],
)
def test_check_drawn_accepts_each_kind_of_data(draw):
    fig, ax = _ax()
    draw(ax)
    P.check_drawn(fig, "exp/fig")


def test_check_drawn_names_the_empty_panel_and_skips_layout_axes():
    fig = Figure()
    a, b = fig.subplots(1, 2)
    a.plot([1, 2], [1, 2])
    b.set_title("σ = 2")
    _raises_empty(fig, match=r"axes 2 of 2 \('σ = 2'\)")
    b.set_visible(False)  # an unused panel hidden is fine
    P.check_drawn(fig, "exp/fig")
    fig = Figure()
    a, leg = fig.subplots(1, 2)
    (ln,) = a.plot([1, 2], [1, 2], label="x")
    leg.axis("off")
    leg.legend(handles=[ln])  # a legend panel is layout
    P.check_drawn(fig, "exp/fig")
    only_legend = Figure()
    ax = only_legend.add_subplot()
    ax.axis("off")
    ax.text(0.5, 0.5, "a note is not data")
    _raises_empty(only_legend, match="every axes is a legend or text panel")


def test_not_applicable_passes_with_its_note():
    fig = Figure()
    P.not_applicable(fig, "GP prior draws only")
    P.check_drawn(fig, "exp/fig")
    assert fig.axes[0].texts[0].get_text() == "GP prior draws only"
    with pytest.raises(ValueError, match="reason"):
        P.not_applicable(Figure(), " ")


def test_check_drawn_searches_subfigures():
    fig = Figure()
    left, right = fig.subfigures(1, 2)
    left.add_subplot().plot([1, 2], [1, 2])
    right.add_subplot()
    _raises_empty(fig, match="axes 2 of 2")


# -- the report and the docs build refuse empty figures ------------------------------


@dataclasses.dataclass(frozen=True)
class _Spec:
    n: int = 3


def _run(spec, params, key):
    import jax.numpy as jnp

    return {"x": params["a"] * jnp.ones(spec.n)}


def _good_fig(ds, spec, fig):
    P.curves(fig.add_subplot(), ds["x"].isel(i=0), "a")


def _empty(ds, spec, fig):
    ax = fig.add_subplot()
    sel = ds["x"].where(ds["a"] > 10, drop=True)  # no cell matches
    ax.plot(sel["a"].values, np.zeros(sel.sizes["a"]))
    ax.set_title("a > 10")


@pytest.fixture
def fake_experiments(monkeypatch):
    import jaxtheory.registry as reg
    from jaxtheory import Experiment, Figure as FigureDef, Paper, Preset
    from jaxtheory.sweep import Space, values

    exp = Experiment(
        name="fake-empty",
        paper=Paper(title="A paper", arxiv="2601.00001"),
        run=_run,
        spec=_Spec(),
        params={"a": 1.0},
        presets={"smoke": Preset(Space(a=values(1.0, 2.0), seeds=2))},
        figures=[FigureDef("good", _good_fig, "Drawn."), FigureDef("nothing", _empty, "Empty.")],
        metric_dims={"x": ("i",)},
    )
    monkeypatch.setattr(reg, "experiments", lambda: {exp.name: exp})
    monkeypatch.setattr(reg, "import_errors", lambda: {})
    return exp


def test_report_fails_on_an_empty_figure(fake_experiments, tmp_path, capsys):
    from jaxtheory.cli import main
    from jaxtheory.report import write_figures

    run = fake_experiments.sweep("smoke", out=tmp_path, quiet=True)
    figs = run.run_dir / "figures"
    figs.mkdir()
    (figs / "nothing.png").write_bytes(b"stale")
    with pytest.raises(P.EmptyFigureError, match="'fake-empty/nothing' draws no data"):
        write_figures(run.run_dir, formats=("png",))
    assert (figs / "good.png").stat().st_size > 1000  # the drawn one is still written
    assert not (figs / "nothing.png").exists()  # and no stale file stays for the empty one
    assert main(["report", str(run.run_dir)]) != 0
    assert "'fake-empty/nothing' draws no data" in capsys.readouterr().err


def test_docs_build_fails_on_an_empty_figure(fake_experiments, tmp_path):
    from jaxtheory import docs_build as D

    src = tmp_path / "docs"
    (page,) = D.write_experiment_pages(src, runs=tmp_path / "runs", log=lambda s: None)
    assert not page.ok and page.empty_figures == ["nothing"]
    text = page.path.read_text()
    assert "Figure `nothing` failed" in text and "draws no data" in text
    assert ":::{figure} fake-empty/good.png" in text
    assert D.build_docs(runs=tmp_path / "runs", source=src, sphinx=False) == 1
    # without the empty figure the same build succeeds
    fake_experiments.figures.pop()
    assert D.build_docs(runs=tmp_path / "runs", source=src, sphinx=False) == 0


def test_run_check_names_the_empty_figure_and_the_raising_claim(fake_experiments, tmp_path):
    import dataclasses

    from jaxtheory import Claim

    run = fake_experiments.sweep("smoke", out=tmp_path, quiet=True)
    with pytest.raises(P.EmptyFigureError, match="'fake-empty/nothing' draws no data"):
        run.check()
    whole = dataclasses.replace(fake_experiments, figures=fake_experiments.figures[:1])
    run = whole.sweep("smoke", out=tmp_path / "whole", quiet=True)
    assert run.check() is run

    def boom(ds, spec):
        raise RuntimeError("no such metric")

    broken = dataclasses.replace(
        whole, claims=[Claim.at_most("broken", "Raises.", boom, 1.0, source="sanity")]
    )
    run = broken.sweep("smoke", out=tmp_path / "broken", quiet=True)
    with pytest.raises(AssertionError, match="claim 'broken' is an error: .*no such metric"):
        run.check()
    run.claims = run.claims[::-1] + run.claims  # evaluated claims that do not match the declared ones
    with pytest.raises(AssertionError, match="the run evaluated"):
        run.check()


# -- declarative figures: curves, heatmap, slope, intervals --------------------------------


def _results(extra=None, seeds=9):
    """(lr, step, seed) log-normal losses, with ``extra = {name: values}`` as a further dim."""
    rng = np.random.default_rng(4)
    dims, coords = ["lr", "step", "seed"], {"lr": [0.1, 0.2, 0.4], "step": np.arange(1, 7) * 10}
    if extra:
        ((name, vals),) = extra.items()
        dims.insert(0, name)
        coords[name] = vals
    shape = [len(coords[d]) if d in coords else seeds for d in dims]
    return xr.Dataset({"loss": (dims, rng.lognormal(size=shape))}, coords=coords)


def _draw(draw, ds, spec=None):
    fig = Figure()
    draw(ds, spec, fig)
    P.check_drawn(fig, "exp/fig")
    return fig, [a for a in fig.axes if a.get_visible() and a.get_label() != "<colorbar>"]


def test_curves_factory_draws_mean_and_se_band_per_hue_and_the_theory():
    ds = _results()
    theory = lambda c, spec: spec * c["lr"] / c["step"]  # noqa: E731
    draw = P.curves(
        "loss", x="step", hue="lr", band="se", theory=theory, theory_points=None, logy=True, ylabel="L"
    )
    assert isinstance(draw, P.Draw) and draw.kind == "curves"
    fig, (ax,) = _draw(draw, ds, spec=2.0)
    data, ref = ax.lines[:3], ax.lines[3:]
    v = ds["loss"].values
    for i, line in enumerate(data):
        assert np.allclose(line.get_ydata(), v[i].mean(-1))
        assert np.array_equal(line.get_xdata(), ds["step"].values)
    steps = ds["step"].values
    for i, line in enumerate(ref):  # the theory of each line, in its color, at the data's x
        assert np.allclose(line.get_ydata(), 2.0 * ds["lr"].values[i] / steps)
        assert line.get_color() == data[i].get_color() and line.get_linestyle() == ":"
    assert len(ax.collections) == 3  # one band per hue
    se = v[0].std(-1, ddof=1) / np.sqrt(v.shape[-1])
    verts = _band_vertices(ax.collections[0])
    assert np.isclose(verts[:, 1].max(), (v[0].mean(-1) + se).max())
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["lr=0.1", "lr=0.2", "lr=0.4", "theory"]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "L" and ax.get_xlabel() == "step"


def test_curves_factory_theory_on_a_fine_grid_and_a_metric_function():
    ds = _results()
    seen = []

    def metric(ds, spec):
        seen.append(spec)
        return ds["loss"].sel(lr=0.2) * 2

    draw = P.curves(
        metric,
        x="step",
        band="iqr",
        theory=lambda c, s: 1.0,
        theory_points=50,
        logx=True,
        ylabel=lambda spec: f"loss ({spec})",
    )
    _, (ax,) = _draw(draw, ds, spec="spec")
    assert seen == ["spec"] and ax.get_ylabel() == "loss (spec)"
    (line, ref) = ax.lines
    assert np.allclose(line.get_ydata(), np.median(2 * ds["loss"].sel(lr=0.2).values, -1))
    xs = ref.get_xdata()  # 50 geometric points from the first to the last step; a scalar is a level
    assert len(xs) == 50 and np.allclose(xs, np.geomspace(10, 60, 50)) and np.all(ref.get_ydata() == 1.0)


def test_facets_appear_for_an_extra_dim_and_not_otherwise():
    _, axes = _draw(P.curves("loss", x="step", hue="lr"), _results())
    assert len(axes) == 1 and axes[0].get_title() == ""
    ds = _results({"dim": [4, 16]})
    fig, axes = _draw(P.curves("loss", x="step", hue="lr", title="T"), ds)
    assert [a.get_title() for a in axes] == ["dim=4", "dim=16"] and fig._suptitle.get_text() == "T"
    for a, d in zip(axes, (4, 16)):
        assert np.allclose(a.lines[1].get_ydata(), np.median(ds["loss"].sel(dim=d, lr=0.2).values, -1))
    # hue names an axis this preset does not sweep: one line per panel, still faceted
    _, axes = _draw(P.curves("loss", x="step", hue="width"), ds.sel(lr=0.1))
    assert len(axes) == 2 and all(len(a.lines) == 1 for a in axes)
    # a facet named explicitly first, then the extra ones; two facet dims: a grid
    ds2 = _results({"dim": [4, 16]}).expand_dims(noise=[0.1, 1.0, 2.0])
    _, axes = _draw(P.curves("loss", x="step", facet="noise"), ds2)
    assert len(axes) == 3 * 2 * 3  # noise × dim × lr (lr is not mapped: a facet too)
    _, axes = _draw(P.curves("loss", x="step", hue="lr", facet="noise"), ds2)
    assert axes[0].get_subplotspec().get_gridspec().get_geometry() == (3, 2)
    assert [a.get_title() for a in axes[:2]] == ["noise=0.1, dim=4", "noise=0.1, dim=16"]
    _, axes = _draw(P.curves("loss", x="step", hue="lr"), _results({"algorithm": ["sgd", "smd"]}))
    assert [a.get_title() for a in axes] == ["algorithm=sgd", "algorithm=smd"]


def test_scalar_coordinate_draws_like_a_length_one_dim():
    ds = _results({"dim": [16]}).sel(lr=0.2)
    scalar = ds.isel(dim=0)  # dim is now a scalar coordinate
    assert "dim" not in scalar.dims and "dim" in scalar.coords
    for kw in ({"facet": "dim"}, {}, {"hue": "dim"}):
        one, scal = (
            _draw(P.curves("loss", x="step", **kw), ds)[1],
            _draw(P.curves("loss", x="step", **kw), scalar)[1],
        )
        assert len(one) == len(scal) == 1 and one[0].get_title() == scal[0].get_title()
        assert [ln.get_label() for ln in one[0].lines] == [ln.get_label() for ln in scal[0].lines]
        for a, b in zip(one[0].lines, scal[0].lines):
            assert np.array_equal(a.get_ydata(), b.get_ydata())
    # x itself a scalar coordinate: one point per line
    _, (ax,) = _draw(P.curves("loss", x="step", hue="lr", marker="o"), _results().isel(step=2))
    assert [len(ln.get_xdata()) for ln in ax.lines] == [1, 1, 1]
    # the theory sees every coordinate of the line, the scalar ones included
    seen = []
    _draw(
        P.curves("loss", x="step", hue="lr", theory=lambda c, s: seen.append(dict(c)) or 1.0),
        _results({"dim": [16]}).isel(dim=0),
    )
    assert {c["dim"] for c in seen} == {16} and [c["lr"] for c in seen] == [0.1, 0.2, 0.4]


def test_sel_values_lists_functions_and_absent_names():
    ds = _results({"noise": [0.1, 1.0]})
    _, axes = _draw(P.curves("loss", x="step", hue="lr", sel={"noise": max, "width": 64}), ds)
    assert len(axes) == 1
    assert np.allclose(axes[0].lines[0].get_ydata(), np.median(ds["loss"].sel(noise=1.0, lr=0.1).values, -1))
    _, (ax,) = _draw(P.curves("loss", x="step", hue="lr", sel={"noise": 0.1, "lr": lambda v: v < 0.3}), ds)
    assert [ln.get_label() for ln in ax.lines] == ["lr=0.1", "lr=0.2"]
    _, (ax,) = _draw(P.curves("loss", x="step", hue="lr", sel={"noise": [1.0], "lr": [0.4, 0.1]}), ds)
    assert [ln.get_label() for ln in ax.lines] == ["lr=0.4", "lr=0.1"]
    with pytest.raises(ValueError, match="no coordinate value 0.5"):
        _draw(P.curves("loss", x="step", sel={"noise": 0.5}), ds)
    with pytest.raises(ValueError, match="does not match this preset's noise"):
        _draw(P.curves("loss", x="step", hue="lr", sel={"noise": 0.5}), ds.isel(noise=0))
    with pytest.raises(ValueError, match="'width' is not a dimension or coordinate"):
        _draw(P.curves("loss", x="width"), ds)
    with pytest.raises(KeyError, match="no variable 'acc'"):
        _draw(P.curves("acc", x="step"), ds)
    with pytest.raises(TypeError, match="by keyword"):
        P.curves("loss", "step")


def test_deterministic_results_draw_lines_without_a_band():
    ds = _results(seeds=1)
    _, (ax,) = _draw(P.curves("loss", x="step", hue="lr"), ds)
    assert not ax.collections and np.array_equal(ax.lines[0].get_ydata(), ds["loss"].values[0, :, 0])
    _, (ax,) = _draw(P.curves("loss", x="step", hue="lr"), ds.isel(seed=0, drop=True))
    assert not ax.collections and len(ax.lines) == 3


def test_heatmap_factory_on_real_coordinates_with_ticks_pooled_samples_and_theory():
    rng = np.random.default_rng(5)
    lr, mom = np.array([0.01, 0.1, 1.0, 10.0]), np.array([0.0, 0.5, 0.9])
    v = rng.random((4, 3, 8, 2)) < 0.5
    ds = xr.Dataset(
        {"diverged": (("lr", "momentum", "seed", "noise"), v)},
        coords={"lr": lr, "momentum": mom, "noise": [0.1, 1.0]},
    )
    seen = []

    def boundary(c, spec):
        seen.append(c)
        return c["lr"] - 2 * (1 + c["momentum"])

    draw = P.heatmap(
        "diverged", x="lr", y="momentum", over=("seed", "noise"), theory=boundary, vmin=0, vmax=1
    )
    fig, (ax,) = _draw(draw, ds)
    mesh = ax.collections[0]
    xy = mesh.get_coordinates()
    assert np.allclose(xy[0, :, 0], P.cell_edges(lr, log=True)) and np.allclose(
        xy[:, 0, 1], P.cell_edges(mom)
    )
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert np.allclose(ax.get_xticks(), lr) and np.allclose(ax.get_yticks(), mom)  # real values, not indices
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.01", "0.1", "1", "10"]
    assert np.allclose(mesh.get_array().reshape(3, 4), v.mean((2, 3)).T)  # pooled over seed and noise
    assert mesh.get_clim() == (0, 1)
    (cs,) = [c for c in ax.collections[1:] if isinstance(c, matplotlib.contour.ContourSet)]
    assert list(cs.levels) == [0.0]
    assert seen[0]["lr"].shape == seen[0]["momentum"].shape == (200, 200)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["theory"]
    assert [a.get_label() for a in fig.axes if a.get_label() == "<colorbar>"] == ["<colorbar>"]


def test_heatmap_factory_facets_share_one_color_scale_and_thin_long_ticks():
    rng = np.random.default_rng(6)
    lr = 2.0 ** np.arange(-6, 7)  # 13 values: thinned to at most 8 ticks, still real values
    ds = xr.Dataset(
        {"r": (("k", "lr", "alpha"), rng.normal(size=(3, 13, 2)))},
        coords={"k": [1, 2, 4], "lr": lr, "alpha": [0.5, 1.0]},
    )
    fig, axes = _draw(P.heatmap("r", x="lr", y="alpha", clabel="ratio"), ds)
    assert [a.get_title() for a in axes] == ["k=1", "k=2", "k=4"]
    clims = {a.collections[0].get_clim() for a in axes}
    assert clims == {(ds["r"].values.min(), ds["r"].values.max())}
    ticks = axes[0].get_xticks()
    assert len(ticks) <= 8 and np.all(np.isin(ticks, lr))
    (cbar,) = [a for a in fig.axes if a.get_label() == "<colorbar>"]
    assert cbar.get_ylabel() == "ratio"
    with pytest.raises(ValueError, match="'width' is not a dimension"):
        _draw(P.heatmap("r", x="lr", y="width"), ds)


def test_slope_factory_draws_analysis_loglog_slope():
    from jaxtheory import analysis

    T = np.array([10.0, 30.0, 100.0, 300.0, 1000.0])
    # a closed form: an exact power law per p (no sample dimension), slope -(p-1)/p
    ps = np.array([1.25, 2.0])
    exact = xr.Dataset(
        {"err": (("p", "T"), 3 * T[None] ** (-(ps[:, None] - 1) / ps[:, None]))}, {"p": ps, "T": T}
    )
    _, (ax,) = _draw(P.slope("err", x="T", hue="p", theory=lambda c, s: -(c["p"] - 1) / c["p"]), exact)
    fits = [ln for ln in ax.lines if ln.get_linestyle() == "-"]
    for fit, p in zip(fits, ps):
        lx, ly = np.log(fit.get_xdata()), np.log(fit.get_ydata())
        assert np.allclose(np.diff(ly) / np.diff(lx), -(p - 1) / p)
        assert fit.get_label() == f"p={p:g}: slope {-(p - 1) / p:.3g}"
    assert {ln.get_label() for ln in ax.lines if ln.get_linestyle() == "--"} == {
        "theory: slope -0.2",
        "theory: slope -0.5",
    }
    # with seeds: the drawn slope and interval are analysis.loglog_slope's, on the fitted window
    rng = np.random.default_rng(7)
    noisy = xr.Dataset(
        {"err": (("seed", "T"), T**-0.5 * np.exp(0.1 * rng.normal(size=(32, 5))))}, coords={"T": T}
    )
    _, (ax,) = _draw(P.slope("err", x="T", xmin=30.0), noisy)
    est = analysis.loglog_slope(noisy["err"], "T", xmin=30.0)
    points = ax.lines[0]
    (fit,) = [ln for ln in ax.lines if ln.get_label().startswith("slope")]
    lx, ly = np.log(fit.get_xdata()), np.log(fit.get_ydata())
    assert np.allclose(np.diff(ly) / np.diff(lx), est.value)
    assert fit.get_label() == f"slope {est.value:.3g} (95% CI [{est.low:.3g}, {est.high:.3g}])"
    assert np.allclose(points.get_ydata(), noisy["err"].values.mean(0))
    assert len(ax.collections) == 1  # the points' standard errors
    assert ax.get_xscale() == ax.get_yscale() == "log"


def _claim_ds():
    rng = np.random.default_rng(8)
    r = 1 + 0.01 * rng.normal(size=(16, 3))
    r[:, 2] += 0.3  # the third cell is off
    return xr.Dataset({"r": (("seed", "lr"), r)}, coords={"lr": [0.1, 0.2, 0.4]})


def test_intervals_of_a_claim_show_its_cells_intervals_verdicts_and_region():
    from jaxtheory import Claim

    claim = Claim.close("ratio", "r = 1.", lambda ds, s: ds["r"], 1.0, atol=0.05, source="derived")
    ds = _claim_ds()
    res = claim.evaluate(ds, None)
    assert res.verdict == "fail"
    _, (ax,) = _draw(P.intervals(claim), ds)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == list(res.measured) == ["lr=0.1", "lr=0.2", "lr=0.4"]
    bars = [c for c in ax.containers if isinstance(c, matplotlib.container.ErrorbarContainer)]
    assert len(bars) == 3
    for bar, k, pos in zip(bars, labels, (2, 1, 0)):  # first cell on top
        (pt,) = [bar.lines[0]]
        assert pt.get_xdata()[0] == res.measured[k] and pt.get_ydata()[0] == pos
        seg = bar.lines[2][0].get_segments()[0]
        assert np.allclose(sorted(seg[:, 0]), res.interval[k])
        want = {"pass": "C2", "fail": "C3", "inconclusive": "C1"}[res.cells[k]]
        assert matplotlib.colors.same_color(pt.get_color(), want)
    band = ax.collections[0]  # the region 1 ± 0.05 of the first cell
    assert np.allclose(sorted(set(np.round(_band_vertices(band)[:, 0], 12))), [0.95, 1.05])
    assert ax.get_title() == "ratio: fail"


def test_intervals_of_a_measure_are_analysis_mean_per_cell_with_a_theory():
    from jaxtheory import analysis

    ds = _claim_ds()
    _, (ax,) = _draw(P.intervals("r", theory=lambda c, s: 1.0 + (c["lr"] > 0.3) * 0.3), ds)
    est = analysis.mean(ds["r"], "seed")
    bars = [c for c in ax.containers if isinstance(c, matplotlib.container.ErrorbarContainer)]
    for bar, e in zip(bars, est.values()):
        assert bar.lines[0].get_xdata()[0] == pytest.approx(e.value)
        assert np.allclose(sorted(bar.lines[2][0].get_segments()[0][:, 0]), [e.low, e.high])
    crosses = [ln for ln in ax.lines if ln.get_marker() == "x"]
    assert [c.get_xdata()[0] for c in crosses] == [1.0, 1.0, 1.3]


def test_not_applicable_figures_say_so_and_pass_check_drawn():
    from jaxtheory import Claim, NotApplicable

    ds = _claim_ds()
    needs = Claim.at_most(
        "needs-k", "x.", lambda ds, s: ds["r"], 2.0, source="derived", requires=lambda ds, s: "needs K = 4"
    )
    for draw in (
        P.intervals(needs),  # the claim itself is not applicable
        P.curves("r", x="lr", requires=needs),  # a figure of that claim
        P.heatmap("r", x="lr", y="seed", requires=lambda ds, s: "needs K = 4"),
    ):
        fig, _ = _draw(draw, ds)
        (text,) = fig.axes[0].texts
        assert text.get_text() == "not applicable on this preset: needs K = 4"
        assert text.get_gid() == P.NOT_APPLICABLE_GID

    def raises(ds, spec):
        raise NotApplicable("the preset has no k > 1")

    fig, _ = _draw(P.slope(raises, x="T"), ds)
    assert fig.axes[0].texts[0].get_text() == "not applicable on this preset: the preset has no k > 1"
    # applicable: requires is asked and the figure draws
    fig, (ax,) = _draw(P.curves("r", x="lr", requires=lambda ds, s: None), ds)
    assert not ax.texts and len(ax.lines) == 1
    # a claim whose measurement raises is an error here too, never a silent note
    broken = Claim.at_most("broken", "x.", lambda ds, s: ds["missing"], 1.0, source="derived")
    with pytest.raises(RuntimeError, match="claim 'broken' is an error"):
        P.intervals(broken)(ds, None, Figure())


def test_run_check_accepts_a_declared_not_applicable_figure(fake_experiments, tmp_path):
    whole = dataclasses.replace(
        fake_experiments,
        figures=[
            FigureDef("declared", P.curves("x", x="a", hue="i")),
            FigureDef("na", P.curves("x", x="a", requires=lambda ds, s: "this preset runs no b")),
        ],
    )
    run = whole.sweep("smoke", out=tmp_path, quiet=True)
    assert run.check() is run


def test_hlines_on_every_panel_of_every_declared_kind_in_the_legend():
    ds = _results({"noise": [0.0, 1.0]})
    ds["cost"] = ds["loss"] * 0 + ds["step"]
    spec = 3.0
    hl = {"floor": 0.5, "spec level": lambda ds, spec: spec * float(ds["lr"].max())}
    for draw in (
        P.curves("loss", x="step", hue="lr", hlines=hl),
        P.slope("loss", x="step", hue="lr", hlines=hl),
        P.heatmap("loss", x="step", y="lr", hlines=hl),
    ):
        fig, axes = _draw(draw, ds, spec)
        assert len(axes) == 2  # a facet per noise
        for ax in axes:
            ys = [ln.get_ydata()[0] for ln in ax.lines if ln.get_linestyle() in ("--", ":")]
            assert 0.5 in ys and np.isclose(ys[-1], 3.0 * 0.4), draw.kind
        labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
        assert labels[-2:] == ["floor", "spec level"], draw.kind
    with pytest.raises(TypeError, match="hlines"):
        P.curves("loss", x="step", hlines={"bad": "0.5"})


def test_curves_xvar_places_each_point_at_its_mean_abscissa_per_line():
    ds = _results()
    # the cost of a step differs per lr and per seed: point (lr, step) sits at its seed mean
    rng = np.random.default_rng(0)
    cost = ds["step"] * (1 + 10 * ds["lr"]) + xr.DataArray(rng.uniform(size=9), dims="seed")
    ds["cost"] = cost.transpose("lr", "step", "seed")
    fig, (ax,) = _draw(P.curves("loss", x="step", hue="lr", xvar="cost", band="se", logx=True), ds)
    for i, line in enumerate(ax.lines):
        assert np.allclose(line.get_xdata(), ds["cost"].isel(lr=i).mean("seed").values)
        assert np.allclose(line.get_ydata(), ds["loss"].isel(lr=i).mean("seed").values)
    assert ax.get_xscale() == "log"
    # a function of (ds, spec) and a theory evaluated over the abscissae's range
    draw = P.curves(
        "loss",
        x="step",
        hue="lr",
        xvar=lambda ds, spec: ds["cost"] * spec,
        theory=lambda c, spec: 1.0 / c["step"],
        theory_points=5,
    )
    fig, (ax,) = _draw(draw, ds, 2.0)
    ref = [ln for ln in ax.lines if ln.get_linestyle() == ":"][0]
    xs = 2.0 * ds["cost"].mean("seed").values
    assert np.isclose(ref.get_xdata().min(), xs.min()) and np.isclose(ref.get_xdata().max(), xs.max())
