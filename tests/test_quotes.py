"""Every claim that speaks for a paper carries the paper's words, verbatim.

A claim with ``source`` ``paper``, ``paper-number`` or ``reconstruction`` quotes the
paper: its ``quote`` must appear, word for word (whitespace aside), in the paper's
abstract as the authors wrote it, unless ``where`` says where in the paper itself it was
read. The abstracts are kept beside the repository (``../shared/papers/abstracts/``,
one file per paper) for this check only; the package never reads them, and where the
folder is absent the check is skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jaxtheory.claims import PAPER_SOURCES
from jaxtheory.registry import experiments, import_errors

ABSTRACTS = Path(__file__).resolve().parents[1].parent / "shared" / "papers" / "abstracts"

#: Each experiment's paper, by the name of its abstract's file (``None``: the experiment
#: checks no paper, so none of its claims may speak for one).
PAPER_OF = {
    "adaptive-fgd": "002_18",
    "adaptive-fgd-kernel": "002_18",
    "adversary-directed-online": "000_12",
    "bg0-normalized": "000_01",
    "cv-zod-hints": "000_05",
    "dc-exploration": "000_06",
    "decentralized-minimax": "000_17",
    "ef-generalization": "002_17",
    "efkx-allocations": "000_04",
    "feedback-informed-bo": "002_04",
    "flow-matching-ntk": "000_09",
    "gated-moe-rates": "000_13",
    "gdro-flexible-queries": "002_12",
    "generation-in-the-limit": "002_16",
    "gp-batch-bandits": "002_06",
    "grn-boosting": "002_14",
    "heavy-tail-sgd": "002_03",
    "high-arity-compression": "002_09",
    "imuon-completion": "002_01",
    "imuon-manifolds": "002_01",
    "irl-occupancy-interp": "000_16",
    "koopman-acceleration": "000_07",
    "langevin-ntk-stability": "002_15",
    "linreg-compute-frontier": "002_10",
    "linreg-two-phase": "002_10",
    "moe-dmft": "002_08",
    "moe-scaling": "002_08",
    "noisy-quadratic": None,
    "nullspace-completion": "002_05",
    "profit-optimal-llm": "000_10",
    "program-bottleneck-tsp": "002_02",
    "prover-estimator-debate": "000_03",
    "recipe-search-power-law": "000_18",
    "seal-ring-attractor": "000_11",
    "segre-cp-recovery": "002_11",
    "shifting-means-bai": "000_02",
    "slingshot-low-precision": "002_13",
    "smoothed-halfspaces-sq": "000_14",
    "smuon-deep-linear": "002_19",
    "smuon-digits": "002_19",
    "tom-heads-toy": "000_15",
    "trak-ranking": "002_07",
    "vlm-objectives-spectral": "000_08",
}


def _words(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _speaking_for_the_paper():
    for name, exp in sorted(experiments().items()):
        for c in exp.claims:
            if c.source in PAPER_SOURCES:
                yield name, c


def test_every_experiment_names_its_paper_here():
    # a module that fails to import (a paper claim without a quote raises) is not checked here
    assert not import_errors(), import_errors()
    assert set(experiments()) <= set(PAPER_OF), sorted(set(experiments()) - set(PAPER_OF))


def test_every_paper_claim_carries_a_quote_or_a_location():
    for name, c in _speaking_for_the_paper():
        if c.source in ("paper", "reconstruction"):
            assert c.quote, f"{name}/{c.name}: a {c.source} claim without the paper's words"
        else:
            assert c.quote or c.where, f"{name}/{c.name}: a paper-number without a quote or a location"
        assert PAPER_OF.get(name), f"{name}/{c.name}: speaks for a paper, but the experiment checks none"


@pytest.mark.skipif(not ABSTRACTS.is_dir(), reason="the papers' abstracts are not beside this checkout")
def test_every_quote_is_verbatim_in_its_abstract():
    missing = []
    for name, c in _speaking_for_the_paper():
        if not c.quote or c.where:
            continue  # read in the paper itself, where the claim says
        abstract = _words((ABSTRACTS / f"{PAPER_OF[name]}.txt").read_text())
        if _words(c.quote) not in abstract:
            missing.append(f"{name}/{c.name}: {c.quote!r}")
    assert not missing, "quotes not found verbatim in the abstract:\n" + "\n".join(missing)


@pytest.mark.skipif(not ABSTRACTS.is_dir(), reason="the papers' abstracts are not beside this checkout")
def test_the_check_can_fail():
    text = _words((ABSTRACTS / "002_10.txt").read_text())
    assert _words("can be ameliorated by\n appropriate choice of hyperparameters") in text
    assert _words("can be largely removed by tuning") not in text  # a paraphrase is not the abstract
