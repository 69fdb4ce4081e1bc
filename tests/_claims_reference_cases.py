"""Synthetic claims whose records were written by the first implementation of ``Claim``.

``claims_reference.json`` holds, for every case below, ``ClaimResult.to_json()`` as the
earlier single-class implementation computed it (a rule string dispatched in one
class); ``test_claims.py`` checks that the constructors, now built from a statistic and
a region, give the same records. The cases use only the constructors' public
signatures, so the file can be evaluated by either implementation.
"""

import numpy as np
import xarray as xr

from jaxtheory import NotApplicable, analysis
from jaxtheory.claims import Claim


def _seeds(center, spread, n=64, seed=0):
    z = np.random.default_rng(seed).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    return xr.Dataset({"x": ("seed", center + spread * z)})


def _grid(n=32, seed=1):
    rng = np.random.default_rng(seed)
    x = 1.0 + 0.3 * rng.standard_normal((n, 3, 2)) + np.array([0.0, 0.5, 1.0])[None, :, None]
    return xr.Dataset(
        {"x": (("seed", "p", "alg"), x)}, coords={"p": [1.25, 1.5, 2.0], "alg": ["sgd", "adam"]}
    )


def _curves(n=64, sigma=0.1, seed=2):
    T = np.array([16.0, 64.0, 256.0, 1024.0])
    rng = np.random.default_rng(seed)
    slopes = [-0.2, -1 / 3, -0.5]
    y = np.stack([T[None] ** s * np.exp(sigma * rng.standard_normal((n, T.size))) for s in slopes], -1)
    return xr.Dataset({"err": (("seed", "T", "p"), y)}, coords={"T": T, "p": [1.25, 1.5, 2.0]})


def _methods(n=24, seed=3):
    rng = np.random.default_rng(seed)
    common = rng.standard_normal((n, 1, 1))
    loss = np.array([1.0, 1.1, 1.5])[None, :, None] + np.array([0.0, 0.3])[None, None, :]
    loss = loss + common + 0.05 * rng.standard_normal((n, 3, 2))
    return xr.Dataset(
        {"loss": (("seed", "method", "d"), loss)}, coords={"method": ["a", "b", "c"], "d": [4, 8]}
    )


def _x(ds, spec):
    return ds["x"]


def _err(ds, spec):
    return ds["err"]


def _loss(ds, spec):
    return ds["loss"]


def _raises_na(ds, spec):
    raise NotApplicable("the preset has no such cell")


def _labelled_estimates(ds, spec):
    return {
        "k=1": analysis.Estimate(0.5, 0.4, 0.6, 32, "bootstrap"),
        "k=2": analysis.Estimate(0.9, 0.7, 1.1, 32, "bootstrap"),
    }


def cases():
    """``[(name, claim, ds)]``: every claim is evaluated with ``experiment="reference"``."""
    grid, curves, methods = _grid(), _curves(), _methods()
    few = xr.Dataset({"x": ("seed", np.full(4, 0.1))})
    censored = xr.Dataset({"x": ("seed", np.r_[np.linspace(0.09, 0.11, 14), np.inf, np.inf])})
    horizon = xr.DataArray(np.r_[np.linspace(0.09, 0.11, 14), np.full(6, np.inf)], dims="seed")
    horizon.attrs["censored_at"] = 100.0
    exact_T = np.array([10.0, 100.0, 1000.0, 10000.0])
    exact = xr.Dataset({"e": ("T", exact_T**-1.0 + 0.1 * exact_T**-0.5)}, coords={"T": exact_T})
    rate = xr.Dataset(
        {
            "e": (
                ("seed", "t"),
                0.5 ** np.arange(8.0)[None]
                * np.exp(0.05 * np.random.default_rng(4).standard_normal((16, 8))),
            )
        },
        coords={"t": np.arange(8.0)},
    )
    out = [
        ("at-most-pass", Claim.at_most("a", "x ≤ 1.", _x, 1.0, source="proposed"), _seeds(0.5, 0.8)),
        ("at-most-fail", Claim.at_most("a", "x ≤ 1.", _x, 1.0, source="proposed"), _seeds(1.5, 0.8)),
        ("at-most-straddle", Claim.at_most("a", "x ≤ 1.", _x, 1.0, source="proposed"), _seeds(1.0, 0.8)),
        (
            "at-least-median",
            Claim.at_least("b", "", _x, 0.9, stat="median", source="proposed"),
            _seeds(1.5, 0.8),
        ),
        ("at-most-cells", Claim.at_most("c", "", _x, 2.2, source="proposed"), grid),
        ("at-most-cells-nofamily", Claim.at_most("c", "", _x, 2.2, source="proposed", family=False), grid),
        (
            "within-per-cell",
            Claim.within("w", "", _x, lambda c: c["p"] - 0.75, lambda c: c["p"] + 0.5, source="proposed"),
            grid,
        ),
        ("within-constant", Claim.within("w", "", _x, 0.0, 3.0, source="toy"), grid),
        ("close-rtol", Claim.close("r", "", _x, 1.0, rtol=0.1, source="derived"), _seeds(1.0, 0.01)),
        (
            "close-atol-rtol",
            Claim.close("r", "", _x, 1.0, atol=0.01, rtol=0.05, source="derived"),
            _seeds(1.02, 0.05),
        ),
        (
            "close-expected-by-label",
            Claim.close(
                "d",
                "",
                _x,
                {
                    f"p={p:g},alg={a}": 1.0 + {1.25: 0.0, 1.5: 0.5, 2.0: 1.0}[p]
                    for p in (1.25, 1.5, 2.0)
                    for a in ("sgd", "adam")
                },
                atol=0.3,
                source="proposed",
            ),
            grid,
        ),
        (
            "close-callable-atol",
            Claim.close("d", "", _x, lambda c: c["p"] - 0.25, atol=lambda c: 0.2 * c["p"], source="proposed"),
            grid,
        ),
        (
            "slope-expected-callable",
            Claim.slope(
                "s",
                "",
                _err,
                "T",
                expected=lambda c: {1.25: -0.2, 1.5: -1 / 3, 2.0: -0.5}[c["p"]],
                atol=0.05,
                source="derived",
            ),
            curves,
        ),
        ("slope-at-most", Claim.slope("s", "", _err, "T", at_most=-0.1, source="derived"), curves),
        (
            "slope-at-least-xmin",
            Claim.slope("s", "", _err, "T", at_least=-0.6, xmin=64, source="derived"),
            curves,
        ),
        (
            "slope-xvalues-median",
            Claim.slope(
                "s",
                "",
                _err,
                "T",
                at_most=0.0,
                stat="median",
                xvalues=lambda ds, s: ds["T"].values * 2,
                source="derived",
            ),
            curves,
        ),
        (
            "slope-exact-xmin",
            Claim.slope(
                "s",
                "",
                lambda ds, s: ds["e"],
                "T",
                over=None,
                expected=-0.55,
                atol=0.05,
                xmin=1000,
                source="derived",
            ),
            exact,
        ),
        (
            "slope-exact-full",
            Claim.slope(
                "s",
                "",
                lambda ds, s: ds["e"],
                "T",
                over=None,
                expected=-0.55,
                atol=0.05,
                source="derived",
                deterministic=True,
            ),
            exact,
        ),
        (
            "slope-semilog",
            Claim.slope(
                "s",
                "",
                lambda ds, s: ds["e"],
                "t",
                semilog=True,
                expected=float(np.log(0.5)),
                atol=0.05,
                xmax=6,
                source="derived",
            ),
            rate,
        ),
        (
            "ordering-cells",
            Claim.ordering("o", "", _loss, "method", ["a", "b", "c"], source="proposed"),
            methods,
        ),
        (
            "ordering-decreasing-margin",
            Claim.ordering(
                "o", "", _loss, "method", ["c", "a"], increasing=False, margin=0.2, source="proposed"
            ),
            methods,
        ),
        (
            "ordering-exact",
            Claim.ordering(
                "o",
                "",
                lambda ds, s: ds["loss"].mean("seed"),
                "method",
                ["a", "c"],
                over=None,
                source="proposed",
                deterministic=True,
            ),
            methods,
        ),
        ("identity-array", Claim.identity("i", "", lambda ds, s: np.array([1e-12, -3e-11]), 1e-10), None),
        ("identity-dict", Claim.identity("i", "", lambda ds, s: {"a": 1e-3, "b": [0.0, 2e-3]}, 1e-10), None),
        ("identity-nan", Claim.identity("i", "", lambda ds, s: np.array([0.0, np.nan]), 1e-9), None),
        (
            "identity-dataarray",
            Claim.identity("i", "", lambda ds, s: ds["x"].isel(seed=0) * 0.0, 1e-9, source="sanity"),
            grid,
        ),
        (
            "fraction-at-least",
            Claim.fraction(
                "f",
                "",
                lambda ds, s: np.r_[np.ones(190, bool), np.zeros(10, bool)],
                at_least=0.8,
                source="proposed",
            ),
            None,
        ),
        (
            "fraction-pair-at-most",
            Claim.fraction("f", "", lambda ds, s: (10, 200), at_most=0.01, source="proposed"),
            None,
        ),
        (
            "fraction-dataarray",
            Claim.fraction("f", "", lambda ds, s: ds["x"] > 1.0, at_least=0.5, source="proposed"),
            grid,
        ),
        ("equals-list", Claim.equals("e", "", lambda ds, s: [1, 2], [1, 2], source="sanity"), None),
        (
            "equals-array",
            Claim.equals("e", "", lambda ds, s: np.array([1, 3]), [1, 2], source="sanity"),
            None,
        ),
        ("censored", Claim.at_most("c", "", _x, 1.0, source="proposed"), censored),
        ("censored-at-least", Claim.at_least("c", "", _x, 0.05, source="proposed"), censored),
        ("censored-horizon", Claim.at_most("c", "", lambda d, s: horizon, 1.0, source="proposed"), censored),
        ("exact-inf", Claim.at_most("c", "", lambda d, s: float("inf"), 1.0, source="derived"), None),
        (
            "estimate-open-above",
            Claim.at_least(
                "c",
                "",
                lambda ds, s: analysis.Estimate(5.0, 4.0, float("inf"), 32, "bootstrap"),
                3.0,
                source="derived",
            ),
            None,
        ),
        ("estimates-by-label", Claim.at_most("c", "", _labelled_estimates, 0.8, source="proposed"), None),
        (
            "numbers-by-label",
            Claim.at_most(
                "c", "", lambda ds, s: {"u": 0.1, "v": 2.0}, 1.0, source="proposed", deterministic=True
            ),
            None,
        ),
        (
            "requires-reason",
            Claim.at_most(
                "c", "", _x, 2.0, source="proposed", requires=lambda ds, s: "the preset has no K = 4"
            ),
            grid,
        ),
        (
            "requires-reason-close",
            Claim.close("c", "", _x, 2.0, atol=0.5, source="proposed", requires=lambda ds, s: "no"),
            grid,
        ),
        (
            "requires-ordering",
            Claim.ordering(
                "o", "", _loss, "method", ["a", "b"], source="proposed", requires=lambda ds, s: "no"
            ),
            methods,
        ),
        ("raises-not-applicable", Claim.at_most("c", "", _raises_na, 1.0, source="proposed"), grid),
        ("measure-error", Claim.at_most("c", "", lambda ds, s: ds["missing"], 1.0, source="proposed"), grid),
        (
            "requires-error",
            Claim.at_most("c", "", _x, 1.0, source="proposed", requires=lambda ds, s: 1 / 0),
            grid,
        ),
        ("slope-error", Claim.slope("s", "", _err, "T", expected=-0.5, atol=0.1, source="derived"), grid),
        ("ordering-error", Claim.ordering("o", "", _loss, "method", ["a", "z"], source="derived"), methods),
        (
            "nan-cell",
            Claim.at_most("c", "", _x, 1.0, source="proposed"),
            xr.Dataset(
                {"x": (("seed", "k"), np.c_[np.full(16, 0.1), np.r_[np.full(15, 0.1), np.nan]])},
                coords={"k": [1, 2]},
            ),
        ),
        (
            "seed-minimum",
            Claim.at_most("c", "", lambda ds, s: ds["x"].mean("seed"), 1.0, over=None, source="proposed"),
            few,
        ),
        (
            "seed-minimum-deterministic",
            Claim.at_most(
                "c",
                "",
                lambda ds, s: ds["x"].mean("seed"),
                1.0,
                over=None,
                source="proposed",
                deterministic=True,
            ),
            few,
        ),
        ("too-few-seeds", Claim.at_most("c", "", _x, 1.0, source="proposed"), few),
        (
            "exact-cells",
            Claim.at_most("c", "", lambda ds, s: ds["x"].mean("seed"), 1.6, over=None, source="proposed"),
            grid,
        ),
        (
            "quoted",
            Claim.at_most(
                "q",
                "",
                _x,
                1.0,
                source="reconstruction",
                quote="converges",
                where="Thm 1",
                stand_in="synthetic",
            ),
            _seeds(0.0, 0.1),
        ),
    ]
    return out
