"""Linear two-view Gaussian models of vision-language objectives (reconstruction of paper 000_08).

:mod:`.linear` holds the exact covariances and samplers, the CCA and reduced-rank
regression closed forms, the objectives (spectral contrastive, InfoNCE, SigLIP,
target-normalised latent prediction, captioning regression), recall@1, the float32
rounding bounds of the two subspace identities and the pure
``run(spec, params, key)`` of the experiment ``vlm-objectives-spectral``.
"""
