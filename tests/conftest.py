"""Shared test set-up: CPU only, quiet logs, no persistent compilation cache."""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# The persistent compilation cache (on by default for sweeps) stays off in the tests: a
# cache shared by runs and by parallel workers would make what a test compiles, and how
# long it takes, depend on which tests ran before it. tests/test_compile_cache.py turns it on in subprocesses.
os.environ["JAXTHEORY_CACHE"] = "0"
# What `import jaxtheory` does, done before any test module imports jax and starts its
# backend: jaxlib 0.9.2's XLA:CPU deadlocks under its concurrency-optimized scheduler.
from jaxtheory._jaxlib_check import avoid_scheduler_deadlock  # noqa: E402

avoid_scheduler_deadlock()
