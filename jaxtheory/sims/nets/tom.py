r"""False-belief and false-photograph vignettes as token sequences, and a planted solver.

A toy of the theory-of-mind probe sets of arXiv:2505.14685 (belief vs photograph ×
changed vs unchanged world, in minimal pairs). Every vignette is a sequence of
:data:`SEQ_LEN` tokens

.. code-block:: text

    BOS  who  KIND  stored  filler  filler  world      ->  answer at the last position

``who`` is an agent's name (belief vignettes) or a camera (photo vignettes), ``KIND``
the token ``BELIEF`` ("thinks the object is in") or ``PHOTO`` ("shows the object in"),
``stored`` the location the belief / photograph holds, ``world`` the object's current
location, and the answer is ``FALSE`` when the representation is outdated
(``stored != world``, the world *changed*) and ``TRUE`` otherwise. The answer therefore
needs exactly the divergence between a stored representation and the current world
token, in both kinds: the domain-general "divergence detector" of that paper. A
minimal pair (:func:`minimal_pairs`) is a changed vignette and the same vignette with
the world token set back to the stored one.

:func:`planted_model` builds a :mod:`~jaxtheory.sims.nets.transformer` whose head
:data:`PLANTED_HEAD` solves the task by hand (a duplicate-token head at the last
position: it attends to an earlier copy of the world token when there is one and to
``BOS`` otherwise) while every other head is random: the ground truth that the patching
and RSA pipeline of :mod:`~jaxtheory.sims.nets.interp` must recover.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.nets import transformer
from jaxtheory.simulator import Simulator

__all__ = [
    "BOS",
    "LOCATIONS",
    "BELIEF",
    "PHOTO",
    "AGENTS",
    "CAMERAS",
    "FILLERS",
    "FALSE",
    "TRUE",
    "VOCAB",
    "SEQ_LEN",
    "KINDS",
    "N_CONDITIONS",
    "CONDITIONS",
    "PLANTED_HEAD",
    "make",
    "sample_training",
    "minimal_pairs",
    "rsa_set",
    "logit_diff",
    "accuracy",
    "planted_model",
    "MODELS",
    "DEFAULT_PARAMS",
    "TomSpec",
    "run",
    "SIMULATOR",
]

#: The beginning-of-sequence token.
BOS = 0
#: The location tokens (stored and world locations).
LOCATIONS = (1, 2, 3, 4)
#: The kind marker of a belief vignette ("... thinks the object is in").
BELIEF = 5
#: The kind marker of a photograph vignette ("... shows the object in").
PHOTO = 6
#: Agent-name tokens, the ``who`` of belief vignettes.
AGENTS = (7, 8, 9)
#: Camera tokens, the ``who`` of photo vignettes.
CAMERAS = (10, 11, 12)
#: Neutral filler tokens ("then", "later", "meanwhile").
FILLERS = (13, 14, 15)
#: The answer "the representation is outdated" (the world changed).
FALSE = 16
#: The answer "the representation is still true".
TRUE = 17
#: Vocabulary size.
VOCAB = 18
#: Tokens per vignette; the answer is read at the last position (the world token).
SEQ_LEN = 7
#: The representation kinds, in code order (``kind`` 0 is a belief, 1 a photograph).
KINDS = ("belief", "photo")
#: RSA conditions: kind × stored ∈ {L0, L1} × world ∈ {L0, L1}.
N_CONDITIONS = 8
#: Per RSA condition (index ``4 kind + 2 stored + world``): its kind, stored and world
#: location index and divergence (``stored != world``), as int arrays.
CONDITIONS = {
    "kind": np.arange(N_CONDITIONS) // 4,
    "stored": (np.arange(N_CONDITIONS) // 2) % 2,
    "world": np.arange(N_CONDITIONS) % 2,
}
CONDITIONS["divergence"] = (CONDITIONS["stored"] != CONDITIONS["world"]).astype(int)
#: ``(layer, head)`` of the head :func:`planted_model` plants.
PLANTED_HEAD = (0, 0)

_LOC = jnp.asarray(LOCATIONS)
_WHO = jnp.asarray([AGENTS, CAMERAS])


def make(key, kind, stored, world):
    """Vignettes of given kinds and stored / world location indices, random fillers.

    Args:
        key: PRNG key of the filler tokens (the same key gives the same fillers, so two
            calls differing only in ``world`` form minimal pairs).
        kind: ``(n,)`` 0 (belief) or 1 (photo).
        stored: ``(n,)`` stored location index in ``0..3``.
        world: ``(n,)`` current location index in ``0..3``.

    Returns:
        ``(tokens (n, SEQ_LEN), targets (n,))``, the target ``FALSE`` where
        ``stored != world`` and ``TRUE`` elsewhere.

    Example:
        >>> t, y = make(jax.random.key(0), jnp.array([0, 1]), jnp.array([0, 2]), jnp.array([1, 2]))
        >>> t[:, [0, 2, 3, 6]].tolist(), y.tolist()
        ([[0, 5, 1, 2], [0, 6, 3, 3]], [16, 17])
    """
    kind, stored, world = (jnp.asarray(a, jnp.int32) for a in (kind, stored, world))
    n = kind.shape[0]
    u = _uniform_ints(key, (n, 3), 3)  # who, filler, filler (one threefry call)
    who = _WHO[kind, u[:, 0]]
    fill = jnp.asarray(FILLERS)[u[:, 1:]]
    tokens = jnp.stack(
        [
            jnp.full(n, BOS),
            who,
            jnp.where(kind == 0, BELIEF, PHOTO),
            _LOC[stored],
            fill[:, 0],
            fill[:, 1],
            _LOC[world],
        ],
        axis=1,
    )
    return tokens, jnp.where(stored != world, FALSE, TRUE)


def _uniform_ints(key, shape, n):
    """Integers uniform on ``0..n-1`` from 32 random bits (modulo bias below 1e-9 for n ≤ 4)."""
    return (jax.random.bits(key, shape, jnp.uint32) % n).astype(jnp.int32)


def _changed_world(u, stored):
    """A world location different from ``stored``, uniform over the other three (``u`` in 0..2)."""
    return (stored + 1 + u) % len(LOCATIONS)


def sample_training(key, batch: int):
    """A training batch: kind, stored location and changed (each w.p. ½) independent."""
    k1, k2 = jax.random.split(key)
    u = jax.random.bits(k1, (batch, 4), jnp.uint32)
    kind = (u[:, 0] % 2).astype(jnp.int32)
    stored = (u[:, 1] % len(LOCATIONS)).astype(jnp.int32)
    changed = u[:, 2] % 2 == 1
    world = jnp.where(changed, _changed_world((u[:, 3] % 3).astype(jnp.int32), stored), stored)
    return make(k2, kind, stored, world)


def minimal_pairs(key, n_per_kind: int):
    """Changed (clean) / unchanged (corrupted) minimal pairs, ``n_per_kind`` of each kind.

    The two sequences of a pair differ only in the world token: the clean one's world
    differs from the stored location (answer ``FALSE``), the corrupted one's equals it
    (answer ``TRUE``).

    Returns:
        dict with ``clean`` and ``corrupt`` ``(2 n, SEQ_LEN)`` tokens and ``kind (2 n,)``
        (the first ``n`` beliefs, the last ``n`` photographs).
    """
    k1, k2 = jax.random.split(key)
    kind = jnp.repeat(jnp.arange(2, dtype=jnp.int32), n_per_kind)
    u = jax.random.bits(k1, (2 * n_per_kind, 2), jnp.uint32)
    stored = (u[:, 0] % len(LOCATIONS)).astype(jnp.int32)
    clean, _ = make(k2, kind, stored, _changed_world((u[:, 1] % 3).astype(jnp.int32), stored))
    corrupt, _ = make(k2, kind, stored, stored)
    return {"clean": clean, "corrupt": corrupt, "kind": kind}


def rsa_set(key, n_per_condition: int):
    """``n_per_condition`` vignettes of each of the :data:`N_CONDITIONS` RSA conditions.

    Returns:
        ``(tokens (8 n, SEQ_LEN), condition (8 n,))`` with condition index
        ``4 kind + 2 stored + world`` (locations L0 and L1 only; see :data:`CONDITIONS`).
    """
    cond = jnp.repeat(jnp.arange(N_CONDITIONS, dtype=jnp.int32), n_per_condition)
    tokens, _ = make(key, cond // 4, (cond // 2) % 2, cond % 2)
    return tokens, cond


def logit_diff(logits):
    """``logit(FALSE) − logit(TRUE)`` at the last position of one sequence's ``(T, V)`` logits.

    Example:
        >>> float(logit_diff(jnp.zeros((7, VOCAB)).at[-1, FALSE].set(2.0)))
        2.0
    """
    return logits[-1, FALSE] - logits[-1, TRUE]


def accuracy(params, tokens, targets):
    """Fraction of sequences whose ``FALSE``/``TRUE`` choice at the last position is right."""
    ld = jax.vmap(lambda s: logit_diff(transformer.forward(params, s)[0]))(tokens)
    return jnp.mean(jnp.where(ld > 0, FALSE, TRUE) == targets)


def planted_model(
    key,
    *,
    d_model: int = 32,
    n_layers: int = 2,
    n_heads: int = 4,
    noise: float = 0.3,
    embed_noise: float = 0.02,
    sharpness: float = 12.0,
    gain: float = 4.0,
) -> dict:
    """A transformer that solves the task with head :data:`PLANTED_HEAD`, the rest random.

    Embeddings are one-hot (token dims ``0..V-1``, position dims ``V..V+T-1``) and dim
    ``R = V + T`` carries the answer. The planted head's query at the last position
    scores an earlier key ``sharpness`` when it holds the same location token,
    ``sharpness/2`` on ``BOS`` and ``−sharpness`` on itself, so it attends to the stored
    location when it equals the world and to ``BOS`` otherwise; its value is +1 on a
    location and −1 on ``BOS``, written to dim ``R``, which the unembedding reads as
    ``logit(TRUE) − logit(FALSE) = 2 gain · x_R``. Every other head is a random head
    scaled by ``noise`` (relative to :func:`transformer.init`), the one-hot embeddings
    are blurred by ``embed_noise`` × N(0, 1) (so the planted head's output varies from
    vignette to vignette: without it its RDM would be exactly two-valued), and the
    unembedding gets ``noise/10`` random entries.

    Args:
        key: PRNG key of the random parts.
        d_model: residual width (at least ``VOCAB + SEQ_LEN + 1``).
        n_layers: layers.
        n_heads: heads per layer (``d_model // n_heads`` at least 6).
        noise: scale of the random heads.
        embed_noise: scale of the noise added to the one-hot embeddings (0.05 already
            breaks the planted head on 2-4% of the vignettes in 2 of 6 draws).
        sharpness: the planted attention scores' scale.
        gain: the unembedding's gain on dim ``R``.

    Returns:
        The parameter dict.
    """
    R = VOCAB + SEQ_LEN
    if d_model < R + 1:
        raise ValueError(f"planted_model needs d_model >= {R + 1}, got {d_model}")
    dh = d_model // n_heads
    if dh < 6:
        raise ValueError(f"planted_model needs d_model // n_heads >= 6 (rank of the planted QK), got {dh}")
    rnd = transformer.init(key, VOCAB, SEQ_LEN, d_model=d_model, n_layers=n_layers, n_heads=n_heads)
    p = {k: noise * v for k, v in rnd.items() if k in ("wq", "wk", "wv", "wo")}
    p["embed"] = jnp.eye(VOCAB, d_model) + embed_noise * rnd["embed"]
    p["pos"] = jnp.eye(SEQ_LEN, d_model, k=VOCAB) + embed_noise * rnd["pos"]
    last = VOCAB + SEQ_LEN - 1
    a = sharpness * np.sqrt(dh)
    wq = np.zeros((d_model, dh))
    wk = np.zeros((d_model, dh))
    for j, loc in enumerate(LOCATIONS):
        wq[loc, j], wk[loc, j] = a, 1.0
    wq[last, 4], wk[BOS, 4] = a, 0.5
    wq[last, 5], wk[last, 5] = a, -2.0
    wv = np.zeros((d_model, dh))
    wv[list(LOCATIONS), 0], wv[BOS, 0] = 1.0, -1.0
    wo = np.zeros((dh, d_model))
    wo[0, R] = 1.0
    layer, head = PLANTED_HEAD
    for name, w in (("wq", wq), ("wk", wk), ("wv", wv), ("wo", wo)):
        p[name] = p[name].at[layer, head].set(jnp.asarray(w, p[name].dtype))
    u = 0.1 * noise * rnd["unembed"]
    p["unembed"] = u.at[R, FALSE].set(-gain).at[R, TRUE].set(gain)
    return p


#: The two models :func:`run` analyses, in the order of its outputs' prefixes.
MODELS = ("planted", "trained")
#: Default of every parameter :func:`run` reads: Adam's step size ``lr``.
DEFAULT_PARAMS = {"lr": 1e-2}


@dataclasses.dataclass(frozen=True)
class TomSpec:
    """Shapes of :func:`run` (the compile key).

    Attributes:
        d_model: residual width.
        n_layers: attention layers.
        n_heads: heads per layer.
        steps: Adam steps of the trained model.
        batch: vignettes per training batch (fresh every step).
        n_pairs: minimal pairs per kind for patching.
        n_rsa: vignettes per RSA condition.
        n_test: vignettes of the accuracy test set.
        planted_noise: scale of the planted model's random heads.
    """

    d_model: int = 32
    n_layers: int = 2
    n_heads: int = 4
    steps: int = 300
    batch: int = 64
    n_pairs: int = 64
    n_rsa: int = 16
    n_test: int = 512
    planted_noise: float = 0.3


def _analyse(params, pairs, rsa_tokens, test):
    from jaxtheory.sims.nets import interp

    out = interp.patch_heads(transformer.forward, params, pairs["clean"], pairs["corrupt"], logit_diff)
    heads = jax.vmap(lambda t: transformer.forward(params, t)[1])(rsa_tokens)  # (n, L, H, T, d)
    n, n_layers, n_heads = heads.shape[:3]
    return {
        "clean": out["clean"],
        "corrupt": out["corrupt"],
        "patched": out["patched"].reshape(out["patched"].shape[0], n_layers * n_heads),
        "reps": heads[:, :, :, -1, :].reshape(n, n_layers * n_heads, -1),
        "accuracy": accuracy(params, *test),
    }


def run(spec: TomSpec, params, key):
    """Train a model and analyse it beside a planted one: patching, RSA representations, accuracy.

    Both models see the same minimal pairs, RSA vignettes and test set. Outputs are
    prefixed by the model (:data:`MODELS`): ``<m>_clean (pair,)``, ``<m>_corrupt
    (pair,)`` and ``<m>_patched (pair, head)`` logit differences
    (:func:`logit_diff`; heads flattened layer-major), ``<m>_reps (vignette, head,
    feature)`` the heads' outputs at the last position, ``<m>_accuracy``; plus the
    trained model's ``loss (step,)``, ``pair_kind (pair,)`` and ``condition (vignette,)``.

    Args:
        spec: a :class:`TomSpec`.
        params: ``{"lr": ...}`` (:data:`DEFAULT_PARAMS`).
        key: PRNG key.

    Returns:
        The dict of arrays above.
    """
    kp, ki, kt, kpairs, krsa, ktest = jax.random.split(key, 6)
    planted = planted_model(
        kp, d_model=spec.d_model, n_layers=spec.n_layers, n_heads=spec.n_heads, noise=spec.planted_noise
    )
    init = transformer.init(
        ki, VOCAB, SEQ_LEN, d_model=spec.d_model, n_layers=spec.n_layers, n_heads=spec.n_heads
    )
    trained, losses = transformer.fit(
        init, partial(sample_training, batch=spec.batch), kt, steps=spec.steps, learning_rate=params["lr"]
    )
    pairs = minimal_pairs(kpairs, spec.n_pairs)
    rsa_tokens, condition = rsa_set(krsa, spec.n_rsa)
    test = sample_training(ktest, spec.n_test)
    out = {"loss": losses, "pair_kind": pairs["kind"], "condition": condition}
    # both models through one copy of the analysis program (vmapped over the model axis)
    both = jax.tree.map(lambda a, b: jnp.stack([a, b]), planted, trained)
    res = jax.vmap(_analyse, (0, None, None, None))(both, pairs, rsa_tokens, test)
    for i, name in enumerate(MODELS):
        for k, v in res.items():
            out[f"{name}_{k}"] = v[i]
    return out


#: The simulator's declaration: both models (planted and trained) run inside a lane; their
#: patching and RSA outputs run over pairs, vignettes and heads.
SIMULATOR = Simulator(
    run,
    spec=TomSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "loss": ("step",),
        "pair_kind": ("pair",),
        "condition": ("vignette",),
        **{f"{m}_{k}": ("pair",) for m in MODELS for k in ("clean", "corrupt")},
        **{f"{m}_patched": ("pair", "head") for m in MODELS},
        **{f"{m}_reps": ("vignette", "head", "feature") for m in MODELS},
    },
    coords=lambda spec: {
        "step": np.arange(1, spec.steps + 1),
        "head": np.arange(spec.n_layers * spec.n_heads),
    },
)
