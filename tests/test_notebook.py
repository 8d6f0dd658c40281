"""experiments/explore.ipynb runs top to bottom (simulate, with_context, paired intervals,
a run directory read with df.query on a swept column, one plot), at the small sizes its
parameters cell picks when GINSIM_NOTEBOOK_SMALL=1."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "experiments" / "explore.ipynb"


def test_the_example_notebook_runs(monkeypatch, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("GINSIM_NOTEBOOK_SMALL", "1")  # the kernel inherits it: tiny sizes
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # its temporary run directory goes where pytest cleans up
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert "'version'" in text and "net_ci_low" in text and "a.knock_at" in text
    assert any("image/png" in o.get("data", {}) for o in outputs), "the notebook draws one plot"
