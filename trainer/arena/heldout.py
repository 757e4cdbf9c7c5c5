"""How well a net agrees with Stockfish's labels on held-out positions (no search).

The records are ``trainer sf-games`` / ``sf-label`` output kept out of training. The figures:
value MAE (mean |W - L| difference from Stockfish's expected score for the side to move), policy
top-1 (the net's highest of the 1858 policy entries is Stockfish's best move), the correlation of
the two values and their mean sizes (a net whose values shrink toward 0 loses MAE without losing
order), and the policy's cross-entropy against Stockfish's MultiPV distribution; and how sharp
the policy is whatever the labels say: its mean top probability and mean entropy (softmax over
all 1858 entries), the figures that showed a self-play run's policy collapsing onto its own
choices (``benchmarks/results/selfplay-runs.md`` section 20).

Why the loop measures it each generation (``loop --heldout``): a self-play run can win against its
own generation 0 while it drifts away from what an outside judge calls good play; these figures
cost seconds and show the drift as it happens (``benchmarks/results/selfplay-runs.md``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np

from trainer.data.records import Record, list_records


def record_files(paths: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The records of ``paths`` (files, or directories listed as the replay window lists them:
    finished files only), sorted."""
    files = sorted(f for r in map(Path, paths) for f in ([r] if r.is_file() else list_records(r)))
    if not files:
        raise ValueError(f"no record files under {[str(p) for p in paths]}")
    return files


def agreement(net: str | os.PathLike[str], files: Sequence[Path],
              threads: int = 2) -> dict[str, float]:
    """The figures above for ``net`` over the positions of ``files`` (the policy's over those
    with a policy target, all of them in Stockfish's records)."""
    from engine.evaluator import OnnxEvaluator

    ev = OnnxEvaluator(str(net), threads=threads)
    net_q, sf_q, top1, ce, with_policy = [], [], 0, 0.0, 0
    top_p, entropy = [], []
    for path in files:
        rec = Record.load(path)
        out = ev.evaluate(rec.planes())
        # one log-softmax over the 1858 entries serves the cross-entropy and the sharpness
        z = out.policy.astype(np.float64)
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        p = np.exp(logp)
        top_p.append(p.max(axis=1))
        entropy.append(-(p * logp).sum(axis=1))
        net_q.append(out.wdl[:, 0] - out.wdl[:, 2])
        sf_q.append(rec.root_q)
        for i in range(len(rec)):
            idx, prob = rec.policy(i)
            if not len(idx):  # no policy target (a self-play record's fast search)
                continue
            with_policy += 1
            top1 += int(np.argmax(out.policy[i]) == idx[int(np.argmax(prob))])
            ce -= float((prob * logp[i, idx]).sum())
    n = sum(len(q) for q in net_q)
    v, s = np.concatenate(net_q), np.concatenate(sf_q)
    return {"positions": n, "value_mae": float(np.abs(v - s).mean()),
            "value_corr": float(np.corrcoef(v, s)[0, 1]), "mean_abs_value": float(np.abs(v).mean()),
            "mean_abs_stockfish": float(np.abs(s).mean()), "policy_positions": with_policy,
            "policy_top1": top1 / max(1, with_policy), "policy_ce": ce / max(1, with_policy),
            "policy_top_p": float(np.concatenate(top_p).mean()),
            "policy_entropy": float(np.concatenate(entropy).mean())}
