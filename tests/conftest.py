"""Shared test set-up: CPU only, quiet logs, no persistent compilation cache."""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# The persistent compilation cache (on by default for sweeps) stays off in the tests: a
# cache shared by runs and by parallel workers would make what a test compiles, and how
# long it takes, depend on which tests ran before it. tests/test_compile_cache.py turns it on in subprocesses.
os.environ["JAXTHEORY_CACHE"] = "0"
