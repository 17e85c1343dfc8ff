"""examples/notebooks/*.ipynb run headless from top to bottom without an error, and show what they
promise (the tour: the explanation of the pending claim, a pool utilisation plot; the what-if
sweep: Dask's frame equal to the serial one)."""
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


# What each notebook must show, by file stem: (a text its outputs contain, how many images at least).
# whatif-sweep runs 40 variants here (DRAFORGE_WHATIF_VARIANTS) rather than its 1,000.
PROMISES = {
    "draforge-tour": ("big-h100", 2),  # the explanation of the pending claim; the graph and utilisation plots
    "whatif-sweep": ("serial and Dask agree on 10 variants", 0),
}
ENVIRONMENT = {"whatif-sweep": {"DRAFORGE_WHATIF_VARIANTS": "40"}}


def test_every_notebook_makes_a_promise():
    assert sorted(PROMISES) == [p.stem for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_headless(path, root, corpus, monkeypatch):
    if path.stem == "whatif-sweep":
        pytest.importorskip("distributed")
    nb = nbformat.read(path, as_version=4)
    monkeypatch.setenv("DRAFORGE_SOURCE_ROOT", str(root))
    monkeypatch.setenv("DRAFORGE_CORPUS", str(corpus))
    for k, v in ENVIRONMENT.get(path.stem, {}).items():
        monkeypatch.setenv(k, v)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    promise, min_images = PROMISES[path.stem]
    assert promise in text or any(promise in str(o.get("data", {})) for o in outputs)
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= min_images
