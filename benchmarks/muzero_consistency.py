"""How consistent a MuZero model stays as it imagines further: f(g(...g(h(s), a1)..., ak))
against f(h(s_k)), s_k the real position k plies later, on held-out records, by depth k.

    python benchmarks/muzero_consistency.py --net NET.onnx --records DIR [DIR ...] [--max 2000]

For each depth k = 0..K (0: h of the position itself, the baseline) over up to ``--max`` start
positions from which k real moves follow (trainer/muzero/data.py links them):

* ``top1_vs_real``: the unrolled policy's highest of the 1858 entries equals that of f(h(s_k));
* ``top1_vs_target``: it equals the record's target's best move (Stockfish's, for sf-games);
  ``real_top1_vs_target``: the same for f(h(s_k)), the ceiling of the unroll;
* ``value_err_vs_real``: mean |(W-L) unrolled - (W-L) of f(h(s_k))|;
* ``value_err_vs_target``: mean |(W-L) unrolled - the record's W-L| (``real_value_err_vs_target``
  for f(h(s_k))).

Everything runs through the exported ONNX graphs, as the engine runs them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from engine.evaluator import OnnxMuZero
from trainer.muzero.data import TrajectoryData, record_files

BATCH = 256


def consistency(net: str, files: list[Path], depth: int = 5, limit: int = 2000,
                seed: int = 0, threads: int = 1) -> list[dict[str, float]]:
    model = OnnxMuZero.load(net, threads=threads)
    data = TrajectoryData(files)
    rng = np.random.default_rng(seed)
    rows_out = []
    for k in range(depth + 1):
        starts = data.trajectory_starts(k)
        if len(starts) > limit:
            starts = np.sort(rng.choice(starts, limit, replace=False))
        sums = dict.fromkeys(("top1_vs_real", "top1_vs_target", "real_top1_vs_target",
                              "value_err_vs_real", "value_err_vs_target",
                              "real_value_err_vs_target"), 0.0)
        n_pol = 0
        for b in range(0, len(starts), BATCH):
            s0 = starts[b:b + BATCH]
            _, state = model.initial(data.planes(s0))
            out = None
            for j in range(k):
                step = model.recurrent(state, data.actions[s0 + j])
                state, out = step.state, step.net
            real, _ = model.initial(data.planes(s0 + k))
            imagined = real if out is None else out
            v_img = imagined.wdl[:, 0] - imagined.wdl[:, 2]
            v_real = real.wdl[:, 0] - real.wdl[:, 2]
            z = data.value_targets(s0 + k, 0.0)
            v_t = z[:, 0] - z[:, 2]
            sums["top1_vs_real"] += float((imagined.policy.argmax(1) == real.policy.argmax(1)).sum())
            sums["value_err_vs_real"] += float(np.abs(v_img - v_real).sum())
            sums["value_err_vs_target"] += float(np.abs(v_img - v_t).sum())
            sums["real_value_err_vs_target"] += float(np.abs(v_real - v_t).sum())
            for i, r in enumerate(s0 + k):
                a, e = data.policy_ptr[r], data.policy_ptr[r + 1]
                if e > a:
                    best = data.policy_idx[a + int(np.argmax(data.policy_prob[a:e]))]
                    sums["top1_vs_target"] += float(imagined.policy[i].argmax() == best)
                    sums["real_top1_vs_target"] += float(real.policy[i].argmax() == best)
                    n_pol += 1
        n = max(1, len(starts))
        row = {"depth": k, "positions": int(len(starts))}
        for key, v in sums.items():
            row[key] = round(v / (max(1, n_pol) if "target" in key and "top1" in key else n), 4)
        rows_out.append(row)
    return rows_out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--net", required=True, help="MuZero initial-inference .onnx")
    ap.add_argument("--records", nargs="+", required=True, help="held-out records directories")
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--max", type=int, default=2000, help="start positions per depth")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    rows = consistency(a.net, record_files(a.records), a.depth, a.max, threads=a.threads)
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
