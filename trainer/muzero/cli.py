"""``python -m trainer muzero-train`` and ``muzero-export``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from trainer.muzero.model import PRESETS


def _train(a: argparse.Namespace) -> int:
    from trainer.cli_rl import train_and_report
    from trainer.muzero.data import TrajectoryData, record_files
    from trainer.muzero.train import MuZeroTrainConfig, MuZeroTrainer

    split = a.init_repr_blocks is not None or a.dyn_blocks != 2
    if split and not str(a.init).endswith(".onnx"):
        raise SystemExit("--init-repr-blocks and --dyn-blocks shape a net made from an "
                         f"AlphaZero .onnx given to --init, not {a.init!r}")
    cfg = MuZeroTrainConfig(
        batch_size=a.batch_size, lr=a.lr, warmup=a.warmup, total_steps=a.total_steps or a.steps,
        schedule=a.schedule, q_weight=a.q_weight, unroll=a.unroll, log_every=a.log_every,
        checkpoint_every=a.checkpoint_every, keep=a.keep, seed=a.seed, device=a.device,
        threads=a.train_threads, consistency_weight=a.consistency_weight,
        distill_weight=a.distill_weight,
        train_only=a.train_only or [], policy_weight=a.policy_weight,
        value_weight=a.value_weight)
    files = record_files(a.data)
    if not files:
        raise SystemExit(f"no record files in {', '.join(a.data)}")
    data = TrajectoryData(files)
    print(f"{len(files)} record files, {len(data)} positions, "
          f"{int(data.follows.sum())} with a known next move")
    init: object = a.init
    if split:
        from trainer.learn.onnx_import import model_from_onnx
        from trainer.muzero.model import from_alphazero

        init = from_alphazero(model_from_onnx(a.init), a.dyn_blocks, a.init_repr_blocks)
    t = MuZeroTrainer.create(init, cfg, a.out, resume=a.resume)
    train_and_report(t, data, a.steps)
    if a.export:
        from trainer.muzero.export import export_muzero

        meta = {"steps": t.step, "positions": t.positions, "init": str(a.init),
                "training": "trainer muzero-train on records", "data": [str(d) for d in a.data]}
        print(json.dumps(export_muzero(t.model, a.export, meta)))
    return 0


def _export(a: argparse.Namespace) -> int:
    from trainer.muzero.export import export_muzero
    from trainer.muzero.train import load_muzero

    model, state = load_muzero(a.checkpoint)
    meta = {"steps": state["step"],
            "positions": (state.get("metadata") or {}).get("positions", 0)}
    for kv in a.meta or []:
        key, _, value = kv.partition("=")
        meta[key] = value
    print(json.dumps(export_muzero(model, a.out, meta)))
    return 0


def add_subcommands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("muzero-train", help="train a MuZero model on records (unrolled loss)")
    p.add_argument("--data", nargs="+", required=True, help="records directories, oldest first")
    p.add_argument("--out", required=True, help="directory for checkpoints and logs")
    p.add_argument("--init", default="small",
                   help=f"preset ({', '.join(PRESETS)}), MuZero checkpoint .pt, or an AlphaZero "
                        "net .onnx whose stem, tower and heads become h and f")
    p.add_argument("--init-repr-blocks", type=int, default=None, metavar="K",
                   help="with an AlphaZero --init: h keeps its stem and first K residual blocks, "
                        "f the rest and the heads (default: all blocks in h)")
    p.add_argument("--dyn-blocks", type=int, default=2,
                   help="residual blocks of g with an AlphaZero --init")
    p.add_argument("--resume", action="store_true", help="continue from the newest checkpoint")
    p.add_argument("--steps", type=int, default=1000, help="train until this global step")
    p.add_argument("--total-steps", type=int, default=None, help="schedule horizon")
    p.add_argument("--schedule", choices=("cosine", "step", "constant"), default="cosine")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--unroll", type=int, default=5, help="K")
    p.add_argument("--q-weight", type=float, default=0.3)
    p.add_argument("--distill-weight", type=float, default=0.0,
                   help="weight of f's outputs on g's state against f(h(position reached))")
    p.add_argument("--policy-weight", type=float, default=1.0,
                   help="weight of the policy loss at each unrolled step")
    p.add_argument("--value-weight", type=float, default=1.0,
                   help="weight of the value loss (0 with --policy-weight 0: g learns from "
                        "the consistency and reward losses alone, f runs for the figures only)")
    p.add_argument("--consistency-weight", type=float, default=0.0,
                   help="weight of g's state against h of the position reached (0: off)")
    p.add_argument("--train-only", nargs="*", metavar="PREFIX",
                   help="only parameters with these name prefixes train, e.g. 'dyn_ reward_' "
                        "for g alone on an AlphaZero net's h and f (default: all)")
    p.add_argument("--log-every", type=int, default=25)
    p.add_argument("--checkpoint-every", type=int, default=100)
    p.add_argument("--keep", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu")
    p.add_argument("--train-threads", type=int, default=1)
    p.add_argument("--export", help="export the result to this ONNX path (and its recurrent "
                   "graph beside it)")
    p.set_defaults(func=_train)
    e = sub.add_parser("muzero-export", help="export a MuZero checkpoint to its two ONNX graphs")
    e.add_argument("checkpoint")
    e.add_argument("out", help="initial-inference .onnx (the recurrent one goes beside it)")
    e.add_argument("--meta", nargs="*", metavar="KEY=VALUE", help="extra metadata_props")
    e.set_defaults(func=_export)
