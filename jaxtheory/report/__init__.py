"""Reports from stored runs: figures, claim tables and summaries. Never runs simulations."""

from jaxtheory.report.runs import LoadedRun, load_run, summarize, write_figures

__all__ = ["LoadedRun", "load_run", "summarize", "write_figures"]
