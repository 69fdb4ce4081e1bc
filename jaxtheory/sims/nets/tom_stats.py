"""Per-seed host statistics of the theory-of-mind toy (not the sweep's simulator).

The experiment ``tom-heads-toy`` runs :mod:`jaxtheory.sims.nets.tom` (patching and RSA
activations of a planted and a trained model); :func:`seed_statistics` turns one seed's
arrays into the statistics its claims judge, with the numpy half of
:mod:`jaxtheory.sims.nets.interp`: each head's normalised indirect effect, each head's
RSA correlation (Pearson) with the divergence model RDM, the planted head's RSA under
shuffled condition labels (the null), and the trained model's held-out mediator test.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory.sims.nets import interp, tom

__all__ = ["DIVERGENCE_RDM", "N_FLIPS", "N_SHUFFLES", "seed_statistics"]

#: Shuffles of the vignette labels per seed for the null RSA.
N_SHUFFLES = 50
#: Monte-Carlo sign patterns of the mediator test (p ≥ 1 / (1 + N_FLIPS)).
N_FLIPS = 9999
#: The divergence model RDM ``|d_i - d_j|`` over the conditions.
DIVERGENCE_RDM = interp.model_rdm(tom.CONDITIONS["divergence"])


def seed_statistics(one: xr.Dataset, n_heads: int, seed: int) -> xr.Dataset:
    """The statistics of one seed's results ``one`` (the run's variables without ``seed``).

    Args:
        one: ``pair_kind``, ``condition`` and, per model ``m`` of :data:`~jaxtheory.sims.nets.tom.MODELS`,
            ``{m}_patched`` (pair × head), ``{m}_clean``, ``{m}_corrupt`` (pair),
            ``{m}_reps`` (vignette × head × feature) and ``{m}_accuracy``.
        n_heads: heads per layer (locates the planted head :data:`~jaxtheory.sims.nets.tom.PLANTED_HEAD` among
            the flattened heads).
        seed: the seed of the shuffles and sign flips.

    Returns:
        Per model ``m``: ``{m}_effect`` and ``{m}_rsa`` (per head), ``{m}_accuracy``; and
        ``planted_not_first`` (1 if another head has a larger mean effect than the planted
        one), ``planted_head_rsa``, ``planted_shuffled`` (the mean RSA of the planted head
        over :data:`N_SHUFFLES` label shuffles) and ``trained_p`` (per kind): the sign-flip
        p-value, on the odd pairs of that kind, of the trained head with the largest mean
        effect on the even pairs.
    """
    planted = tom.PLANTED_HEAD[0] * n_heads + tom.PLANTED_HEAD[1]
    kind = np.asarray(one["pair_kind"].values).astype(int)
    cond = np.asarray(one["condition"].values).astype(int)
    row, effects = {}, {}
    for m in tom.MODELS:
        eff = effects[m] = interp.normalized_effects(
            *(one[f"{m}_{v}"].values for v in ("patched", "clean", "corrupt"))
        )
        reps = np.asarray(one[f"{m}_reps"].values, float)
        row[f"{m}_effect"] = ("head", eff.mean(0))
        rsa = [interp.rsa(reps[:, h], cond, DIVERGENCE_RDM, method="pearson") for h in range(reps.shape[1])]
        row[f"{m}_rsa"] = ("head", np.array(rsa))
        row[f"{m}_accuracy"] = float(one[f"{m}_accuracy"])
    row["planted_not_first"] = int(np.argmax(row["planted_effect"][1]) != planted)
    row["planted_head_rsa"] = row["planted_rsa"][1][planted]
    shuffled = interp.shuffled_rsa(
        np.asarray(one["planted_reps"].values, float)[:, planted],
        cond,
        DIVERGENCE_RDM,
        n_shuffles=N_SHUFFLES,
        seed=seed,
        method="pearson",
    )
    row["planted_shuffled"] = float(shuffled.mean())
    # the trained model's top mediator, selected on the even pairs and tested on the odd ones
    eff = effects["trained"]
    select = np.arange(eff.shape[0]) % 2 == 0
    top = int(np.argmax(eff[select].mean(0)))
    held = [eff[~select & (kind == k), top] for k in range(len(tom.KINDS))]
    row["trained_p"] = ("kind", [interp.sign_flip_test(x, n_perm=N_FLIPS, seed=seed) for x in held])
    return xr.Dataset(row, coords={"kind": list(tom.KINDS)})
