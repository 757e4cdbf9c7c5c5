"""Recipes as files: ``loop`` resolves the recipe under the flags given, records it, refuses a
resumed run with other settings; ``distill`` makes a net from nothing but Stockfish."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from trainer import recipe
from trainer.__main__ import build_parser

REPO = Path(__file__).resolve().parents[1]


def _resolved(argv: list[str]) -> dict:
    out = subprocess.run([sys.executable, "-m", "trainer", "loop", *argv, "--show-config"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _expected(cfg: dict, key: str, value: object) -> object:
    """Where the recipe's flag lands in the loop's resolved config."""
    dest = {"gumbel-no-rescale": "gumbel_rescale", "no-eval-previous": "eval_previous",
            "full-visits": "full_visits"}.get(key, key.replace("-", "_"))
    for section in (cfg, cfg["selfplay"], cfg["train"]):
        if dest in section:
            if key in ("gumbel-no-rescale", "no-eval-previous"):
                return section[dest] is (not value)
            return section[dest] == (recipe.resolve_init(value) if key == "init" else value)
    raise AssertionError(f"{key} not in the resolved config")


def test_loop_resolves_the_gumbel_recipe_under_the_flags(tmp_path: Path) -> None:
    table = tomllib.loads((REPO / "trainer" / "recipes" / "gumbel.toml").read_text())["loop"]
    cfg = _resolved(["--dir", str(tmp_path)])
    assert cfg["recipe"] == "gumbel"
    for key, value in table.items():
        assert _expected(cfg, key, value), key
    assert cfg["init"].endswith(".onnx") and Path(cfg["init"]).is_file()  # the bundled net
    # A flag beats the recipe, abbreviated or not; the rest stays the recipe's.
    cfg = _resolved(["--dir", str(tmp_path), "--games", "8", "--full-vis", "16"])
    assert cfg["games"] == 8 and cfg["selfplay"]["full_visits"] == 16
    assert cfg["selfplay"]["root"] == "gumbel" and cfg["train"]["lr"] == 1e-4
    bare = _resolved(["--dir", str(tmp_path), "--recipe", "none"])
    assert bare["init"] == "tiny" and bare["selfplay"]["root"] == "puct"


def test_recipe_errors_are_clear() -> None:
    parser = build_parser()
    args = parser.parse_args(["loop", "--dir", "x"])
    loop_parser = args._parser
    with pytest.raises(SystemExit, match="no flag --no-such"):
        recipe.apply(loop_parser, args, {"no-such": 1}, [])
    with pytest.raises(SystemExit, match="switch"):
        recipe.apply(loop_parser, args, {"gumbel-no-rescale": 3}, [])
    with pytest.raises(SystemExit, match="not one of"):
        recipe.apply(loop_parser, args, {"root": "alphabeta"}, [])
    with pytest.raises(SystemExit, match="unknown recipe 'nope'.*gumbel"):
        recipe.load("nope")
    assert {"gumbel", "puct", "distill"} <= set(recipe.names())
    for name in recipe.names():
        assert "source" in recipe.load(name), name


def test_a_generation_of_the_recipe_and_a_resume_that_keeps_it(tmp_path: Path) -> None:
    """``loop --dir D --generations 1`` with the recipe (made small by flags): config.json holds
    the recipe's settings; the same command resumes; another setting is refused."""
    run = tmp_path / "run"
    small = ["--dir", str(run), "--generations", "1", "--games", "2", "--parallel", "2",
             "--full-visits", "4", "--max-plies", "16", "--steps", "2", "--batch-size", "16",
             "--threads", "1", "--train-threads", "1", "--eval-games", "0"]
    cmd = [sys.executable, "-m", "trainer", "loop", *small]
    first = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-2000:]
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["selfplay"]["root"] == "gumbel" and cfg["selfplay"]["gumbel_rescale"] is False
    assert cfg["train"]["lr"] == 1e-4 and cfg["games"] == 2 and cfg["init"].endswith(".onnx")
    assert (run / "nets" / "gen-0001.onnx").is_file()
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads((run / "config.json").read_text()) == cfg
    changed = subprocess.run([*cmd, "--lr", "3e-4", "--generations", "2"], cwd=REPO,
                             capture_output=True, text=True, timeout=300)
    assert changed.returncode != 0 and "other settings" in changed.stderr
    assert json.loads((run / "config.json").read_text()) == cfg


def test_distill_makes_a_net_from_nothing(tmp_path: Path) -> None:
    """Label (a few Stockfish games), train from an untrained preset, export, quantize: a net the
    engine loads; the same command again does nothing; other settings are refused."""
    from trainer.arena.match import stockfish_path

    if stockfish_path() is None:
        pytest.skip("Stockfish is not installed")
    small = tmp_path / "small.toml"
    small.write_text('source = "test"\n[campaign]\nnodes = 60\ngames-per-batch = 3\n'
                     '[train]\ninit = "tiny"\nsteps = 3\nbatch-size = 16\nwarmup = 1\n'
                     'window = 100000\ntrain-threads = 1\n')
    run = tmp_path / "d"
    cmd = [sys.executable, "-m", "trainer", "distill", "--dir", str(run), "--recipe", str(small),
           "--batches", "2", "--workers", "1"]
    first = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-2000:]
    state = json.loads((run / "distill.json").read_text())
    assert state["done"] == ["label", "train", "quantize"]
    assert len(list((run / "campaign" / "done").glob("*.json"))) == 2
    import numpy as np

    from engine.evaluator import OnnxEvaluator

    for net in (run / "net.onnx", run / "net-int8.onnx"):  # the contract checked on loading
        out = OnnxEvaluator(str(net), threads=1).evaluate(np.zeros((2, 112, 8, 8), np.float32))
        assert out.policy.shape == (2, 1858)
    assert OnnxEvaluator(str(run / "net-int8.onnx"), threads=1).metadata["precision"] == "int8"
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and again.stdout.count("done before") == 3
    other = subprocess.run([*cmd, "--steps", "5"], cwd=REPO, capture_output=True, text=True,
                           timeout=120)
    assert other.returncode != 0 and "other settings" in other.stderr
