"""The README's example runs as written, and its commands match CI."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_example_runs(tmp_path, monkeypatch):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python example"
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), ns)  # noqa: S102 - our own README
    res = ns["res"]
    final = res.dataset["loss"].isel(step=-1).mean("seed")
    assert dict(final.sizes) == {"lr": 16, "momentum": 2}
    assert (tmp_path / "runs" / "demo" / "results.nc").exists()


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[dev]' && python -m pytest" in readme
    assert "python -m pip install" in ci and "'.[dev" in ci and "python -m pytest" in ci
