"""Supervised training from PGN games: learn the played move and the game result.

Loss = policy cross-entropy (played move, over all 1858 entries)
     + value_weight * WDL cross-entropy (game result for the side to move)
     + mlh_weight * Huber((predicted - actual plies left) / 20)   [if the net has the head]

AdamW (no decay on biases and norms), linear warm-up then cosine decay to 5% of the peak rate
(over ``--steps``, or over ``--max-minutes`` of training time if that runs out first), gradient
clipping at 1.0. Whole games are held out for evaluation. Writes into ``--out``:
``data.npz`` (the parsed games, reused next time), ``log.jsonl`` (one JSON line per evaluation),
``checkpoint.pt`` (atomic, resumable), ``summary.json`` and the exported ONNX net.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
import torch.nn.functional as F

from trainer.learn.checkpoint import load_model, restore_optimizer, save_checkpoint
from trainer.learn.config import PRESETS, get_config
from trainer.learn.export import export_onnx
from trainer.learn.model import Net
from trainer.data.pgn_data import PositionData, unpack_legal

MLH_SCALE = 20.0


@dataclass
class Batch:
    planes: torch.Tensor
    policy: torch.Tensor
    wdl: torch.Tensor
    plies_left: torch.Tensor
    legal: torch.Tensor


def make_batch(data: PositionData, idx: npt.NDArray[np.int64]) -> Batch:
    idx = np.sort(idx)
    return Batch(
        planes=torch.from_numpy(data.planes(idx)),
        policy=torch.from_numpy(data.policy[idx].astype(np.int64)),
        wdl=torch.from_numpy(data.wdl[idx].astype(np.int64)),
        plies_left=torch.from_numpy(data.plies_left[idx].astype(np.float32)),
        legal=torch.from_numpy(unpack_legal(data.legal[idx])),
    )


def losses(model: Net, b: Batch) -> tuple[dict[str, torch.Tensor], Any]:
    out = model.heads(b.planes)
    d = {
        "policy": F.cross_entropy(out.policy, b.policy),
        "value": F.cross_entropy(out.wdl, b.wdl),
    }
    if out.mlh is not None:
        d["mlh"] = F.huber_loss(out.mlh.squeeze(1) / MLH_SCALE, b.plies_left / MLH_SCALE, delta=1.0)
    return d, out


def total_loss(d: dict[str, torch.Tensor], value_weight: float, mlh_weight: float) -> torch.Tensor:
    loss = d["policy"] + value_weight * d["value"]
    if "mlh" in d:
        loss = loss + mlh_weight * d["mlh"]
    return loss


@torch.no_grad()
def evaluate(model: Net, data: PositionData, idx: npt.NDArray[np.int64], batch_size: int = 1024) -> dict[str, float]:
    """Held-out metrics: losses, policy top-1 (among legal moves, and raw), value accuracy."""
    was_training = model.training
    model.eval()
    sums: dict[str, float] = {}
    n = 0
    for i in range(0, len(idx), batch_size):
        b = make_batch(data, idx[i : i + batch_size])
        d, out = losses(model, b)
        k = len(b.policy)
        masked = out.policy.masked_fill(~b.legal, float("-inf"))
        stats = {
            "policy_loss": d["policy"].item() * k,
            "value_loss": d["value"].item() * k,
            "policy_top1": (masked.argmax(1) == b.policy).sum().item(),
            "policy_top1_raw": (out.policy.argmax(1) == b.policy).sum().item(),
            "policy_top3": (masked.topk(3, dim=1).indices == b.policy[:, None]).any(1).sum().item(),
            "value_acc": (out.wdl.argmax(1) == b.wdl).sum().item(),
        }
        if out.mlh is not None:
            stats["mlh_loss"] = d["mlh"].item() * k
            stats["mlh_mae_plies"] = (out.mlh.squeeze(1) - b.plies_left).abs().sum().item()
        for key, v in stats.items():
            sums[key] = sums.get(key, 0.0) + v
        n += k
    model.train(was_training)
    return {k: v / n for k, v in sums.items()}


def lr_at(step: int, steps: int, peak: float, warmup: int, floor: float = 0.05,
          time_fraction: float = 0.0) -> float:
    """Linear warm-up over ``warmup`` steps, then cosine decay to ``floor * peak``.

    The decay follows whichever is further along: the steps, or ``time_fraction`` (the share of
    a time budget used), so a run with a time budget still ends at the bottom of the schedule.
    """
    if step < warmup:
        return peak * (step + 1) / warmup
    t = min(1.0, max((step - warmup) / max(1, steps - warmup), time_fraction))
    return peak * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * t)))


def make_optimizer(model: Net, lr: float, weight_decay: float) -> torch.optim.AdamW:
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.99))


def load_data(pgn: list[str], out: Path, data_path: str | None) -> PositionData:
    path = Path(data_path) if data_path else out / "data.npz"
    if path.exists():
        print(f"loading {path}")
        return PositionData.load(path)
    if not pgn:
        raise SystemExit(f"{path} does not exist and no --pgn files given")
    data = PositionData.from_pgn(pgn)
    data.save(path)
    print(f"wrote {path}: {len(data)} positions from {data.num_games} games")
    return data


def train(args: argparse.Namespace) -> dict[str, Any]:
    from tqdm import tqdm

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = load_data(args.pgn or [], out, args.data)
    train_idx, held_idx = data.split_games(args.holdout, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    eval_idx = held_idx if len(held_idx) <= args.eval_positions else np.sort(
        rng.choice(held_idx, args.eval_positions, replace=False))
    print(f"{len(train_idx)} training positions, {len(held_idx)} held out "
          f"({data.num_games} games, {args.holdout:.0%} held out)")

    ckpt_path = out / "checkpoint.pt"
    step = 0
    elapsed_before = 0.0
    if args.resume and ckpt_path.exists():
        model, state = load_model(ckpt_path)
        opt = make_optimizer(model, args.lr, args.weight_decay)
        restore_optimizer(opt, state)
        step = state["step"]
        elapsed_before = float(state["metadata"].get("train_seconds", 0.0))
        cfg = model.cfg
        print(f"resumed from {ckpt_path} at step {step}")
    else:
        cfg = get_config(args.config)
        model = Net(cfg)
        opt = make_optimizer(model, args.lr, args.weight_decay)
    print(f"net {cfg.name}: {model.num_params():,} parameters")
    model.train()

    meta_base = {"data": [str(p) for p in (args.pgn or [])] or str(args.data), "holdout": args.holdout,
                 "seed": args.seed, "batch_size": args.batch_size, "total_steps": args.steps,
                 "held_out_games": int(len(np.unique(data.game[held_idx]))),
                 "train_positions": int(len(train_idx)), "held_out_positions": int(len(held_idx))}
    log_path = out / "log.jsonl"
    t0 = time.time()

    def checkpoint(metrics: dict[str, Any] | None = None) -> None:
        meta = dict(meta_base, positions=step * args.batch_size,
                    train_seconds=elapsed_before + time.time() - t0, config_name=args.config)
        if metrics:
            meta["held_out"] = metrics
        save_checkpoint(ckpt_path, model, step, opt, meta)

    # Batches: shuffled passes over the training positions, reseeded by step so resuming works.
    order = np.random.default_rng(args.seed + step).permutation(train_idx)
    cursor = 0
    running: dict[str, float] = {}
    n_running = 0
    deadline = t0 - elapsed_before + args.max_minutes * 60 if args.max_minutes else math.inf
    bar = tqdm(total=args.steps, initial=step, desc="train", unit="step", dynamic_ncols=True, mininterval=1.0)
    while step < args.steps:
        if cursor + args.batch_size > len(order):
            order = np.random.default_rng(args.seed + step).permutation(train_idx)
            cursor = 0
        b = make_batch(data, order[cursor : cursor + args.batch_size])
        cursor += args.batch_size
        budget_used = (elapsed_before + time.time() - t0) / (args.max_minutes * 60) if args.max_minutes else 0.0
        lr = lr_at(step, args.steps, args.lr, args.warmup, time_fraction=budget_used)
        for g in opt.param_groups:
            g["lr"] = lr
        d, _ = losses(model, b)
        loss = total_loss(d, args.value_weight, args.mlh_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        for k, v in d.items():
            running[k] = running.get(k, 0.0) + v.item()
        running["grad_norm"] = running.get("grad_norm", 0.0) + float(gnorm)
        n_running += 1
        bar.update(1)
        bar.set_postfix(loss=f"{loss.item():.3f}", pol=f"{d['policy'].item():.3f}",
                        val=f"{d['value'].item():.3f}", lr=f"{lr:.2e}")
        last = step >= args.steps or time.time() > deadline
        if step % args.eval_every == 0 or last:
            held = evaluate(model, data, held_idx if last else eval_idx)
            rec = {"step": step, "positions": step * args.batch_size, "lr": lr,
                   "seconds": round(elapsed_before + time.time() - t0, 1),
                   "train": {k: v / n_running for k, v in running.items()},
                   "held_out": held, "held_out_positions": int(len(held_idx if last else eval_idx))}
            with open(log_path, "a") as f:
                f.write(json.dumps(rec) + "\n")
            bar.write(f"step {step}: train policy {rec['train']['policy']:.3f} value {rec['train']['value']:.3f}"
                      f" | held-out policy {held['policy_loss']:.3f} top1 {held['policy_top1']:.1%}"
                      f" value {held['value_loss']:.3f} acc {held['value_acc']:.1%}")
            running, n_running = {}, 0
        if step % args.checkpoint_every == 0 and not last:
            checkpoint()
        if last:
            break
    bar.close()

    final = evaluate(model, data, held_idx) if held_idx.size else {}
    checkpoint(final)
    seconds = elapsed_before + time.time() - t0
    export_path = Path(args.export) if args.export else out / "net.onnx"
    meta = dict(meta_base, steps=step, positions=step * args.batch_size, train_seconds=round(seconds, 1),
                held_out=final, training="supervised on PGN games (played move + game result)")
    diff = export_onnx(model, export_path, meta)
    summary = {"steps": step, "positions": step * args.batch_size, "train_seconds": round(seconds, 1),
               "config": cfg.to_dict(), "config_name": args.config, "parameters": model.num_params(),
               "held_out": final, "export": str(export_path), "export_max_abs_diff": diff,
               "onnx_bytes": export_path.stat().st_size, **meta_base}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return summary


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pgn-train", help="supervised training on PGN games",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pgn", nargs="+", help="PGN files to train on")
    p.add_argument("--data", help="parsed-games .npz to use/create (default: OUT/data.npz)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--config", default="small", choices=sorted(PRESETS), help="network preset")
    p.add_argument("--steps", type=int, default=4000)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3, help="peak learning rate")
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--warmup", type=int, default=200, help="warm-up steps")
    p.add_argument("--value-weight", type=float, default=0.25)
    p.add_argument("--mlh-weight", type=float, default=0.1)
    p.add_argument("--holdout", type=float, default=0.05, help="fraction of games held out")
    p.add_argument("--eval-every", type=int, default=500)
    p.add_argument("--eval-positions", type=int, default=4096, help="held-out sample for periodic evals")
    p.add_argument("--checkpoint-every", type=int, default=1000)
    p.add_argument("--threads", type=int, default=1,
                   help="torch CPU threads (more than the idle cores slows training down a lot)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-minutes", type=float, default=0, help="time budget: the LR schedule ends and training stops when it is used up (0: none)")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    p.add_argument("--export", help="ONNX path for the final net (default: OUT/net.onnx)")
    p.set_defaults(func=train)
