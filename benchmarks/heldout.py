"""How well nets agree with Stockfish's labels on held-out positions (no search).

    python benchmarks/heldout.py --nets nets/zerosum-6x64.onnx OTHER.onnx --records DIR [DIR ...]

The records are ``trainer sf-games`` / ``sf-label`` output kept out of training. For each net it
prints the value MAE (mean |W - L| difference from Stockfish's expected score for the side to
move) and the policy top-1 (the net's highest of the 1858 policy entries is Stockfish's best
move), the two figures in the bundled net's card.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from engine.evaluator import OnnxEvaluator
from trainer.records import Record


def agreement(net: str, files: list[Path], threads: int = 2) -> dict[str, float]:
    ev = OnnxEvaluator(net, threads=threads)
    abs_err, top1, n = 0.0, 0, 0
    for path in files:
        rec = Record.load(path)
        out = ev.evaluate(rec.planes())
        q = out.wdl[:, 0] - out.wdl[:, 2]
        abs_err += float(np.abs(q - rec.root_q).sum())
        for i in range(len(rec)):
            idx, prob = rec.policy(i)
            top1 += int(np.argmax(out.policy[i]) == idx[int(np.argmax(prob))])
        n += len(rec)
    return {"positions": n, "value_mae": abs_err / max(1, n), "policy_top1": top1 / max(1, n)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nets", nargs="+", required=True)
    ap.add_argument("--records", nargs="+", required=True, help="record directories or files")
    a = ap.parse_args()
    files = sorted(f for r in map(Path, a.records)
                   for f in ([r] if r.is_file() else r.glob("*.npz")))
    if not files:
        raise SystemExit("no record files found")
    for net in a.nets:
        print(json.dumps({"net": net, **agreement(net, files)}))


if __name__ == "__main__":
    main()
