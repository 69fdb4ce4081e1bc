"""Registered experiments: one module per experiment, each exposing ``EXPERIMENT``."""
