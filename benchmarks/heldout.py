"""How well nets agree with Stockfish's labels on held-out positions (no search).

    python benchmarks/heldout.py --nets nets/zerosum-6x64.onnx OTHER.onnx --records DIR [DIR ...]

The records are ``trainer sf-games`` / ``sf-label`` output kept out of training. For each net it
prints the value MAE (mean |W - L| difference from Stockfish's expected score for the side to
move) and the policy top-1 (the net's highest of the 1858 policy entries is Stockfish's best
move), the two figures in the bundled net's card; also the correlation of the two values, their
mean sizes (a net whose values shrink toward 0 loses MAE without losing order), and the policy's
cross-entropy against Stockfish's MultiPV distribution (over all 1858 entries).
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
    net_q, sf_q, top1, ce = [], [], 0, 0.0
    for path in files:
        rec = Record.load(path)
        out = ev.evaluate(rec.planes())
        net_q.append(out.wdl[:, 0] - out.wdl[:, 2])
        sf_q.append(rec.root_q)
        for i in range(len(rec)):
            idx, prob = rec.policy(i)
            top1 += int(np.argmax(out.policy[i]) == idx[int(np.argmax(prob))])
            logits = out.policy[i].astype(np.float64)
            logz = logits.max() + np.log(np.exp(logits - logits.max()).sum())
            ce -= float((prob * (logits[idx] - logz)).sum())
    n = sum(len(q) for q in net_q)
    v, s = np.concatenate(net_q), np.concatenate(sf_q)
    return {"positions": n, "value_mae": float(np.abs(v - s).mean()),
            "value_corr": float(np.corrcoef(v, s)[0, 1]), "mean_abs_value": float(np.abs(v).mean()),
            "mean_abs_stockfish": float(np.abs(s).mean()), "policy_top1": top1 / max(1, n),
            "policy_ce": ce / max(1, n)}


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
