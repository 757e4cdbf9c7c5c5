"""The installed package stands alone: the trainer's defaults need nothing beside it.

Building a wheel compiles the Cython extensions (minutes on two cores), so the test lays out what
one installs instead, by the same rules: the packages named in pyproject.toml with their modules,
their compiled extensions and exactly the package-data its globs select. That tree goes into a
temporary directory with no ``shared`` folder anywhere near it, and the commands run from
another temporary directory with only that tree importable. A default that points outside the
package, or a data file missing from package-data, fails here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path

import chess.pgn
import pytest

from engine.evaluator import BUNDLED_NET_FILE

REPO = Path(__file__).resolve().parents[1]


def install_tree(site: Path) -> None:
    """Copies what ``pip install .`` puts in site-packages: modules, extensions, package-data."""
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    data = cfg.get("package-data", {})
    for pkg in cfg["packages"]:
        # "trainer.muzero" lies in trainer/muzero (an editable install elsewhere on the machine
        # would otherwise hide a subpackage this copy left out)
        folder = Path(*pkg.split("."))
        src = REPO / folder
        assert src.is_dir(), f"package {pkg} has no folder {src}"
        files = [*src.glob("*.py"), *src.glob("*.so"), *src.glob("*.pyd")]
        files += [f for pattern in data.get(pkg, []) for f in src.glob(pattern)]
        for f in files:
            dest = site / folder / f.relative_to(src)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dest)


def no_shared_above(d: Path) -> bool:
    return not any((a / "shared").exists() for a in (d, *d.parents))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    # CI clones the repository into the temporary folder with ``shared`` beside it (/tmp/shared),
    # so pytest's own temporary folder may lie below a ``shared``: take the first base that
    # does not, so that no path climbing out of the installed tree can reach the data
    bases = [tmp_path_factory.getbasetemp(), Path("/var/tmp"), Path("/dev/shm"), Path.home()]
    base = next((b for b in bases if b.is_dir() and os.access(b, os.W_OK) and no_shared_above(b)),
                None)
    if base is None:
        pytest.fail(f"every temporary base has a 'shared' folder above it: {bases}")
    root = Path(tempfile.mkdtemp(prefix="zerosum-standalone-", dir=base))
    try:
        site, work = root / "site", root / "work"
        install_tree(site)
        work.mkdir()
        assert no_shared_above(root)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        env.update(PYTHONPATH=str(site), PYTHONNOUSERSITE="1")
        yield site, work, env
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run(args: list[str], work: Path, env: dict[str, str],
        timeout: float = 240) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, *args], cwd=work, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def test_defaults_resolve_inside_the_installed_package(installed: tuple[Path, Path, dict[str, str]]
                                                       ) -> None:
    site, work, env = installed
    probe = ("import json, engine, trainer\n"
             "from engine.evaluator import default_net_path, int8_path\n"
             "from trainer.data.books import DEFAULT_OPENINGS\n"
             "from trainer.arena.match import zerosum_spec\n"
             "s = zerosum_spec()\n"
             "print(json.dumps({'engine': engine.__file__, 'trainer': trainer.__file__,\n"
             "  'net': str(default_net_path()), 'int8': str(int8_path(default_net_path())),\n"
             "  'book': str(DEFAULT_OPENINGS), 'cmd': s.command, 'cwd': s.cwd}))\n")
    got = json.loads(run(["-c", probe], work, env).stdout)
    for key in ("engine", "trainer", "net", "int8", "book"):
        assert Path(got[key]).is_relative_to(site), (key, got[key])
        assert Path(got[key]).is_file(), got[key]
    assert got["cmd"][1:] == ["-m", "engine"] and Path(got["cwd"]) == site
    assert (site / "trainer" / "data" / "LICENSE-openings-CC0.txt").is_file()
    assert Path(got["net"]).with_suffix(".bin").is_file()  # the net's own book (BookFile)


def test_selfplay_with_default_net_and_openings(installed: tuple[Path, Path, dict[str, str]]
                                                ) -> None:
    site, work, env = installed
    run(["-m", "trainer", "selfplay", "--out", "games", "--games", "1", "--parallel", "1",
         "--full-visits", "4", "--fast-visits", "2", "--max-plies", "24", "--threads", "1",
         "--resign-threshold", "-1"], work, env)
    pgns = list((work / "games").glob("*.pgn"))
    assert len(pgns) == 1 and len(list((work / "games").glob("*.npz"))) == 1
    with open(pgns[0]) as f:
        game = chess.pgn.read_game(f)
    assert game is not None
    played = [m.uci() for m in game.mainline_moves()][:16]
    with open(site / "trainer" / "data" / "openings-8moves_v3-2000.pgn") as f:
        book = set()
        while (line := chess.pgn.read_game(f)) is not None:
            book.add(tuple(m.uci() for m in line.mainline_moves()))
    assert tuple(played) in book, played  # it started from a line of the packaged book


def test_match_runs_the_installed_engine(installed: tuple[Path, Path, dict[str, str]]) -> None:
    site, work, env = installed
    net = site / "nets" / BUNDLED_NET_FILE
    proc = run(["-m", "trainer", "match", "--weights1", str(net), "--weights2", str(net),
                "--option1", "Precision=int8", "Threads=1", "NNThreads=1",
                "--option2", "Precision=fp32", "Threads=1", "NNThreads=1",
                "--tc", "nodes=8", "--games", "2", "--max-plies", "30", "--no-progress",
                "--json", "m.json"], work, env)
    result = json.loads((work / "m.json").read_text())
    assert result["games"] == 2, proc.stdout
    assert not any(n for counts in result["failures"].values() for n in counts.values()), proc.stdout
