"""``imuon-manifolds``: iMuon, RGD and iMuon-Nu on Stiefel, Grassmann and SPD problems.

Subspace learning (the PCA objective on Stiefel, the Rayleigh quotient on Grassmann)
and Gaussian covariance estimation on SPD matrices, with the closed-form LMO steps of
arXiv 2605.09238. The claims checked are feasibility of every iterate; the
convergence of the three norms is drawn, not asserted.
"""

from __future__ import annotations

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset
from jaxtheory.sims.matrix import manifolds as mf
from jaxtheory.sweep import Space, static, values

# float32: the polar retraction is exact up to round-off, ~1e-7 per entry; the float64
# bound 1e-10 of the paper's check is tested in tests/optim/test_imuon.py.
STIEFEL_TOL = 1e-5


def _feas(ds, manifold):
    return ds["feasibility"].sel(manifold=manifold)


def _stiefel(ds, spec):
    m = float(_feas(ds, "stiefel").max())
    return {"max_orthonormality_error": m}, bool(m <= STIEFEL_TOL)


def _spd(ds, spec):
    m = float(_feas(ds, "spd").min())
    return {"min_eigenvalue": m}, bool(m > 0)


def _grassmann(ds, spec):
    m = float(_feas(ds, "grassmann").min())
    return {"min_sigma_min": m}, bool(m > 0)


def _draw(ds, spec, fig):
    mans = list(ds["manifold"].values)
    axes = fig.subplots(1, len(mans), squeeze=False)[0]
    for ax, man in zip(axes, mans):
        sub = ds["gap"].sel(manifold=man)
        if "kappa" in sub.dims:
            sub = sub.isel(kappa=-1)
        for i, meth in enumerate(ds["method"].values):
            g = sub.isel(method=i).median("seed")
            best = g.isel(step=-1).argmin("lr")
            ax.semilogy(ds["step"], g.isel(lr=int(best)), label=f"{meth} (η={float(ds['lr'][int(best)]):g})")
        ax.set_title(str(man))
        ax.set_xlabel("step")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("optimality gap / distance (best η, median)")


DESCRIPTION = r"""
*Stiefel*: $\min_{X^\top X = I} -\tfrac12\operatorname{tr}(X^\top C X)$ with
$C = Q\operatorname{diag}(\lambda)Q^\top$, $\lambda_i = \kappa^{-(i-1)/(n-1)}$, polar
retraction. *Grassmann*: the Rayleigh quotient
$-\tfrac12\operatorname{tr}((Y^\top Y)^{-1}Y^\top C Y)$ on full-rank $Y$ with the additive
retraction from a non-orthonormal start. *SPD*: $\operatorname{tr}(X^{-1}S) + \log\det X$
(minimised at $X = S$, $\operatorname{cond}(S) = \kappa$) from $X_0 = I$ with the
exponential retraction of the affine-invariant metric; the error is the Riemannian
distance to $S$. Step sizes $\eta/\sqrt t$; methods RGD (Frobenius LMO), iMuon
(spectral), iMuon-Nu (nuclear). float32.
"""

EXPERIMENT = Experiment(
    name="imuon-manifolds",
    paper=Paper(title="Intrinsic Muon: Spectral Optimization on Riemannian Matrix Manifolds",
                arxiv="2605.09238",
                authors="Li, Pandey, Sah, Han, Mostajeran, Jawanpuria, Mishra"),
    run=mf.run,
    spec=mf.ManifoldSpec(),
    params=mf.DEFAULT_PARAMS,
    metric_dims={"gap": ("method", "step"), "final_gap": ("method",),
                 "feasibility": ("method",)},
    coords=lambda spec: {"method": list(spec.methods), "step": np.arange(1, spec.steps + 1)},
    presets={
        "smoke": Preset(
            Space(manifold=static("stiefel", "grassmann", "spd"), lr=values(0.1, 0.3, 1.0),
                  kappa=values(10.0), seeds=2),
            spec={"n": 10, "p": 3, "steps": 60, "methods": ("rgd", "imuon")},
            description="CPU: n = 10, p = 3, three manifolds × RGD and iMuon, 60 steps.",
        ),
        "full": Preset(
            Space(manifold=static("stiefel", "grassmann", "spd"),
                  lr=values(0.01, 0.03, 0.1, 0.3, 1.0, 3.0), kappa=values(10.0, 100.0, 1000.0),
                  seeds=8),
            spec={"n": 256, "p": 16, "steps": 1000},
            description="One accelerator: n = 256, p = 16, 1000 steps.",
        ),
    },
    claims=[
        Claim("stiefel-feasible",
              "Stiefel iterates stay orthonormal after every polar retraction.",
              expected="‖XᵀX − I‖_F ≈ 0", tolerance=f"≤ {STIEFEL_TOL} (float32)", check=_stiefel),
        Claim("spd-positive-definite",
              "SPD iterates stay positive definite for every step size (exp retraction).",
              expected="λ_min > 0 on every lane and step", tolerance="none", check=_spd),
        Claim("grassmann-full-rank",
              "Grassmann representatives keep full rank (horizontal steps).",
              expected="σ_min(Y) > 0 on every lane and step", tolerance="none", check=_grassmann),
    ],
    figures=[Figure("convergence", _draw,
                    "Optimality gap (Stiefel, Grassmann) and Riemannian distance (SPD) at the "
                    "best step size, median over seeds.", size=(10.0, 3.5))],
    description=DESCRIPTION,
)
