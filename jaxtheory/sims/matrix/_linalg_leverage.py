"""Placeholder: filled by its own change (see jaxtheory.sims.matrix.linalg)."""

__all__: list[str] = []
