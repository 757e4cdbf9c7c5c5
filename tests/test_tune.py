"""SPSA: fishtest's gains, a path that climbs a noisy objective, a resume that goes on as the
uninterrupted run would, a refused change of settings, and a real pair of games."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.options import OPTIONS
from trainer.arena.tune import Param, match_pair_player, read_config, signs, spsa

REPO = Path(__file__).resolve().parents[1]


def test_gains_end_where_the_config_says() -> None:
    p = Param("x", 1.0, 0.0, 2.0, c_end=0.1, r_end=0.002)
    n = 400
    assert p.c(n, n) == pytest.approx(0.1)
    assert p.a(n, n) / p.c(n, n) ** 2 == pytest.approx(0.002)
    assert p.c(1, n) > p.c(n, n) and p.a(1, n) > p.a(n, n)
    assert signs(3, 7, 4) == signs(3, 7, 4) and len({tuple(signs(3, k, 6)) for k in range(20)}) > 1


def _noisy_pair(optimum: dict[str, float], seed: int):
    """A pair's result from a concave objective: + wins the pair more often the closer it is."""
    def play(plus: dict, minus: dict, k: int) -> float:
        rng = random.Random(f"{seed}-{k}")
        def f(x: dict) -> float:
            return -sum((x[n] - o) ** 2 for n, o in optimum.items())
        p_plus = 0.5 + max(-0.45, min(0.45, 3.0 * (f(plus) - f(minus))))
        return float(sum(1 if rng.random() < p_plus else -1 for _ in range(2)))
    return play


def test_spsa_climbs_and_resumes_the_same(tmp_path: Path) -> None:
    params = [Param("a", 0.2, 0.0, 2.0, c_end=0.1, r_end=0.02),
              Param("b", 1.8, 0.0, 2.0, c_end=0.1, r_end=0.02)]
    optimum = {"a": 1.2, "b": 0.8}
    quiet = lambda s: None  # noqa: E731
    full = spsa(tmp_path / "full", params, 300, _noisy_pair(optimum, 1), seed=5, log=quiet)
    start_err = sum((p.start - optimum[p.name]) ** 2 for p in params)
    assert sum((full[n] - o) ** 2 for n, o in optimum.items()) < start_err / 4

    # Killed after 120 pairs (a run planned for 300), then the same command: the same path.
    half = tmp_path / "half"
    calls = {"n": 0}
    inner = _noisy_pair(optimum, 1)

    def dies(plus: dict, minus: dict, k: int) -> float:
        if k == 121:
            raise KeyboardInterrupt
        calls["n"] += 1
        return inner(plus, minus, k)

    with pytest.raises(KeyboardInterrupt):
        spsa(half, params, 300, dies, seed=5, log=quiet)
    assert len(json.loads((half / "spsa.json").read_text())["steps"]) == 120
    resumed = spsa(half, params, 300, inner, seed=5, log=quiet)
    assert resumed == full
    a = json.loads((half / "spsa.json").read_text())
    b = json.loads((tmp_path / "full" / "spsa.json").read_text())
    assert a["steps"] == b["steps"] and [s["k"] for s in a["steps"]] == list(range(1, 301))

    with pytest.raises(SystemExit, match="other settings"):
        spsa(half, params, 301, inner, seed=5, log=quiet)


def test_search_config_reads(tmp_path: Path) -> None:
    params, match = read_config(REPO / "benchmarks" / "tune" / "search.toml")
    assert {p.name for p in params} == {"CPuct", "CPuctFactor", "FpuValue", "PolicyTemperature",
                                        "SmartPruningFactor", "TimeHorizon", "TimeMinHorizon"}
    assert {p.name for p in params if p.integer} == {"TimeHorizon", "TimeMinHorizon"}
    # Every tuned name is an option the engine takes, and every start is its default.
    options = {o.name: o for o in OPTIONS}
    assert all(float(options[p.name].default) == p.start for p in params)
    assert match["tc"] == "10+0.1" and all(p.lo <= p.start <= p.hi for p in params)
    bad = tmp_path / "bad.toml"
    bad.write_text("[params.CPuct]\nstart = 9.0\nmin = 0.0\nmax = 4.0\nc_end = 0.1\n")
    with pytest.raises(SystemExit, match="outside"):
        read_config(bad)


def test_a_real_pair_moves_theta(tmp_path: Path) -> None:
    """Two steps of real games between two engines whose options differ, at a few nodes."""
    params = [Param("CPuct", 1.745, 0.5, 4.0, c_end=0.5, r_end=0.05)]
    player = match_pair_player(None, "nodes=8", None, {}, 2, seed=0, max_plies=30)
    theta = spsa(tmp_path, params, 2, player, seed=0, log=lambda s: None)
    state = json.loads((tmp_path / "spsa.json").read_text())
    assert len(state["steps"]) == 2
    for s in state["steps"]:
        assert s["result"] in (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0)
        assert s["plus"]["CPuct"] != s["minus"]["CPuct"]
    moved = any(s["result"] != 0 for s in state["steps"])
    assert (theta["CPuct"] != 1.745) == moved
