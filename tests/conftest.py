"""Shared fixtures: where the test data lies, the nets, and how to launch the engine.

The shared data sits beside the repository (``../shared/data``), read-only. The bundled net
``nets/<BUNDLED_NET_FILE>`` (engine/evaluator.py) is built by the trainer; tests that need it skip until it exists.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.evaluator import BUNDLED_NET_FILE

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
MAIA = SHARED_DATA / "lc0" / "maia-1500.onnx"
BUNDLED = REPO / "nets" / BUNDLED_NET_FILE


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: long end-to-end games (minutes); deselect with -m 'not slow'")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared test data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def maia_path(shared_data: Path) -> Path:
    if not MAIA.is_file():
        pytest.skip(f"{MAIA} not found")
    return MAIA


@pytest.fixture(scope="session")
def bundled_net() -> Path:
    if not BUNDLED.is_file():
        pytest.skip(f"the bundled net {BUNDLED} does not exist yet (the trainer makes it)")
    return BUNDLED


@pytest.fixture(scope="session")
def engine_cmd() -> list[str]:
    """The command a GUI runs to start Zerosum (run it with cwd=REPO)."""
    return [sys.executable, str(REPO / "uci_main.py")]
