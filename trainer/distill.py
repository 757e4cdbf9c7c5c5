"""``trainer distill``: a net from nothing but Stockfish, in one resumable command.

It runs the commands a user would run by hand, printing each: ``sf-campaign`` (Stockfish's games,
labelled, into DIR/campaign), ``train`` (every parameter on them, into DIR/train, exported to
DIR/net.onnx) and ``quantize`` (DIR/net-int8.onnx, which ``Precision auto`` plays on a CPU with
int8 dot products). The settings are the ``distill`` recipe's (trainer/recipes/distill.toml) with
the flags given here on top. Killed anywhere, the same command goes on: the campaign keeps its
finished batches, training resumes from its newest checkpoint, and a step whose output exists
is skipped (DIR/distill.json says which steps are done).
"""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

from trainer.data.files import atomic_write


def cpu_has_bf16() -> bool:
    """AVX-512 BF16 or AMX: where bf16 training pays (1.68x the steps/s of fp32, measured)."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def _flags(table: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in table.items():
        if isinstance(value, bool):
            out += [f"--{key}"] if value else []
        else:
            out += [f"--{key}", str(value)]
    return out


def plan(a: argparse.Namespace) -> list[tuple[str, list[str]]]:
    """The steps' names and their ``trainer`` argument lists."""
    from trainer import recipe

    r = recipe.load(a.recipe)
    root = Path(a.dir)
    camp = dict(r.get("campaign", {}))
    train = dict(r.get("train", {}))
    for key, value in (("minutes", a.minutes), ("batches", a.batches), ("workers", a.workers),
                       ("nodes", a.nodes), ("seed", a.seed)):
        if value is not None:
            camp[key] = value
    if a.batches is not None and a.minutes is None:
        camp.pop("minutes", None)
    for key, value in (("steps", a.steps), ("init", a.init), ("lr", a.lr)):
        if value is not None:
            train[key] = value
    train["init"] = recipe.resolve_init(train.get("init", "bundled"))
    if train.get("train-precision") == "auto":
        train["train-precision"] = "bf16" if cpu_has_bf16() else "fp32"
    net = root / "net.onnx"
    return [
        ("label", ["sf-campaign", "--dir", str(root / "campaign"), *_flags(camp)]),
        ("train", ["train", "--data", str(root / "campaign" / "data"), "--out",
                   str(root / "train"), "--resume", *_flags(train), "--export", str(net)]),
        ("quantize", ["quantize", str(net), "--out", str(root / "net-int8.onnx")]),
    ]


def _main(a: argparse.Namespace) -> int:
    from trainer.__main__ import main as trainer_main

    root = Path(a.dir)
    root.mkdir(parents=True, exist_ok=True)
    state_path = root / "distill.json"
    state: dict[str, Any] = json.loads(state_path.read_text()) if state_path.exists() else {}
    steps = plan(a)
    if "steps" in state and state["steps"] != [s for _, s in steps]:
        if not a.change_config:
            raise SystemExit(f"{root} was started with other settings ({state_path}); pass "
                             "--change-config to go on with these")
        state["done"] = [d for d in state.get("done", []) if d == "label"]
    state["steps"] = [s for _, s in steps]
    done: list[str] = state.setdefault("done", [])
    for name, argv in steps:
        print(f"distill: {name}: python -m trainer {shlex.join(argv)}", flush=True)
        if name in done:
            print(f"distill: {name} done before", flush=True)
            continue
        code = trainer_main(argv)
        if code:
            return code
        done.append(name)
        atomic_write(state_path, lambda f: f.write(json.dumps(state, indent=1).encode()))
    print(json.dumps({"net": str(root / "net.onnx"), "int8": str(root / "net-int8.onnx")}))
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("distill", help="a net from Stockfish's labels alone: label, train, "
                                      "export, quantize; resumable",
                       usage="%(prog)s --dir DIR [--minutes M | --batches N] [--steps N]",
                       description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("--dir", required=True, help="run directory")
    p.add_argument("--recipe", default="distill", help="recipe name or .toml path")
    p.add_argument("--minutes", type=float, help="labelling time (the recipe's: 60)")
    p.add_argument("--batches", type=int, help="label this many batches instead of a time")
    p.add_argument("--workers", type=int, help="Stockfish processes (default: one a core)")
    p.add_argument("--nodes", type=int, help="Stockfish nodes a position (the recipe's: 3000)")
    p.add_argument("--seed", type=int, help="the campaign's seed")
    p.add_argument("--steps", type=int, help="training steps (the recipe's: 8000)")
    p.add_argument("--lr", type=float, help="peak learning rate (the recipe's: 5e-4)")
    p.add_argument("--init", help="start net: bundled (the recipe's), lc0-6x64 (from nothing), "
                                  "a preset, checkpoint or exported ONNX net")
    p.add_argument("--change-config", action="store_true",
                   help="go on with settings other than those the run started with")
    p.set_defaults(func=_main)
