"""examples/notebooks/*.ipynb run headless from top to bottom without an error, and show what they
promise (the explanation of the pending claim, a pool utilisation plot)."""
import os
import pathlib

import pytest

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("matplotlib")
pytest.importorskip("pandas")
pytest.importorskip("networkx")

NOTEBOOKS = sorted((pathlib.Path(__file__).resolve().parents[2] / "examples" / "notebooks").glob("*.ipynb"))


def test_there_is_a_notebook():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_headless(path, root, corpus):
    nb = nbformat.read(path, as_version=4)
    os.environ["DRAFORGE_SOURCE_ROOT"] = str(root)
    os.environ["DRAFORGE_CORPUS"] = str(corpus)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "big-h100" in text or any("big-h100" in str(o.get("data", {})) for o in outputs)
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 2, "the graph and the pool utilisation plots"
