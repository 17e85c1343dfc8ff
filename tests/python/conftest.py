"""Shared paths for the Python suite."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(os.environ.get("DRAFORGE_SOURCE_ROOT") or pathlib.Path(__file__).resolve().parents[2])
CORPUS = pathlib.Path(os.environ.get("DRAFORGE_CORPUS") or ROOT.parent / "shared" / "corpus")


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def corpus():
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    return CORPUS
