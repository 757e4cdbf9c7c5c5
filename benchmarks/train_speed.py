"""Training steps a second at each precision: the real learner on real records.

    PYTHONPATH=. python benchmarks/train_speed.py --data runs/sfv/a --init nets/zerosum-6x64-i4.onnx

For each ``--precision`` the learner (``trainer train``'s: AdamW, the losses, a replay window of
``--data``) starts from ``--init``, runs ``--warm`` steps untimed and then ``--steps`` timed ones,
twice over, alternating the precisions so that other load on the machine falls on both. Prints
steps/s and positions/s for each, and the mean loss of the timed steps (bf16 should match fp32's
to a few thousandths: the weights and optimizer stay fp32).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import torch

from trainer.data.replay import training_window
from trainer.learn.train import PRECISIONS, Trainer, TrainConfig


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", nargs="+", required=True, help="records directories")
    ap.add_argument("--init", default="6x64", help="preset, checkpoint or exported ONNX net")
    ap.add_argument("--precision", nargs="+", default=list(PRECISIONS), choices=PRECISIONS)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--window", type=int, default=200_000)
    a = ap.parse_args()

    window = training_window(a.data, a.window, False, [], 0.0, "both")
    print(f"torch {torch.__version__}, {a.threads} threads, window {window.refresh()} positions, "
          f"batch {a.batch_size}, {a.steps} timed steps x {a.rounds} rounds")
    times: dict[str, list[float]] = {p: [] for p in a.precision}
    losses: dict[str, list[float]] = {p: [] for p in a.precision}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            for p in a.precision:
                cfg = TrainConfig(batch_size=a.batch_size, threads=a.threads, precision=p,
                                  checkpoint_every=10**9, log_every=10**9, warmup=0,
                                  schedule="constant", lr=1e-4)
                t = Trainer.create(a.init, cfg, f"{tmp}/{p}-{r}", resume=False)
                t.train(window, a.warm, progress=False)
                t0 = time.monotonic()
                m = t.train(window, a.warm + a.steps, progress=False)
                times[p].append(time.monotonic() - t0)
                losses[p].append(m["loss"])
    for p in a.precision:
        sps = a.steps * len(times[p]) / sum(times[p])
        print(f"{p:5s} {sps:6.2f} steps/s  {sps * a.batch_size:8.0f} positions/s  "
              f"mean loss {sum(losses[p]) / len(losses[p]):.4f}")
    if len(a.precision) > 1:
        base = a.steps * len(times[a.precision[0]]) / sum(times[a.precision[0]])
        for p in a.precision[1:]:
            print(f"{p} / {a.precision[0]}: "
                  f"{a.steps * len(times[p]) / sum(times[p]) / base:.2f}x")


if __name__ == "__main__":
    main()
