"""How far self-play's search moves the policy: the net's prior against the search's targets.

    PYTHONPATH=. python benchmarks/policy_gap.py --net nets/zerosum-6x64-i4.onnx \
        --records runs/i3/g8 --every 9

Over the positions of the records that have a policy target (the full searches), prints the
target's entropy, the prior's entropy over the target's moves (renormalised there) at
temperature 1 and at the search's policy temperature, and the cross-entropy of the target under
the prior at temperature 1; cross-entropy minus the target's entropy is the KL the training step
can close. A target barely sharper than the prior is a weak policy improvement operator."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from engine.evaluator import OnnxEvaluator
from engine.search import SearchParams
from trainer.arena.heldout import record_files
from trainer.data.records import Record


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max()
    return z - np.log(np.exp(z).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--net", required=True)
    ap.add_argument("--records", nargs="+", required=True, help="self-play record directories")
    ap.add_argument("--every", type=int, default=1, help="read every n-th record file")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    temp = SearchParams().policy_temperature
    ev = OnnxEvaluator(a.net, threads=a.threads)
    h_target: list[float] = []
    h_prior: list[float] = []
    h_prior_t: list[float] = []
    ce: list[float] = []
    files: list[Path] = record_files(a.records)[::a.every]
    for path in files:
        rec = Record.load(path)
        out = ev.evaluate(rec.planes())
        for i in range(len(rec)):
            idx, prob = rec.policy(i)
            if not len(idx):
                continue
            prob = prob / prob.sum()
            z = out.policy[i].astype(np.float64)[idx]
            lp, lpt = log_softmax(z), log_softmax(z / temp)
            h_prior.append(float(-(np.exp(lp) * lp).sum()))
            h_prior_t.append(float(-(np.exp(lpt) * lpt).sum()))
            ce.append(float(-(prob * lp).sum()))
            q = prob[prob > 0]
            h_target.append(float(-(q * np.log(q)).sum()))
    print(f"records {len(files)}, positions with a policy target {len(ce)}")
    print(f"target entropy {np.mean(h_target):.3f}; prior entropy on the target's moves "
          f"{np.mean(h_prior):.3f} (T=1), {np.mean(h_prior_t):.3f} (T={temp}); "
          f"cross-entropy {np.mean(ce):.3f}; KL {np.mean(ce) - np.mean(h_target):.3f}")


if __name__ == "__main__":
    main()
