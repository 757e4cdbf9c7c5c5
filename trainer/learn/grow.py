"""A larger net that computes exactly what a smaller one does: more blocks, more filters.

    python -m trainer grow nets/zerosum-6x64-c14.onnx --blocks 10 --filters 128 --out g.onnx

Why: a larger shape trained from scratch needs the whole campaign's steps again, which two CPU
cores cannot give it; grown from the shipped net it starts where that net stands and spends its
training on what the extra capacity can add (Net2Net, Chen et al. 2016; the same idea as
KataGo's and lc0's practice of starting a bigger run from a smaller net's games). Then `train
--init g.onnx` trains it like any imported net, and the size A/B compares the two shapes on the
same data.

How the function is kept:
- *Wider* (filters, and the policy head's channels with them): every weight of the old net is
  copied into the top-left corner of the new one; weights from a new channel into an old one are
  zero, so old channels never see the new ones; weights into the new channels keep the fresh
  layer's random initialisation, so the new channels carry signal from the first step and the
  zero weights out of them receive gradients. lc0's squeeze-excitation gives a scale and a bias
  per channel in one layer ([2C, hidden]): its old scale rows and old bias rows go to the new
  layout's first C rows of each half.
- *Deeper*: the old blocks keep their order, spread over the new tower; each new block's
  residual branch starts at zero (its second batch norm's scale and shift are zero, and so is
  its SE's bias half), so the block is the identity on the non-negative stream (``relu(x + 0)
  = x``) while its scale still receives gradients: the zero-initialised residual of Goyal et al.

The grown net is exported like any other (``export_onnx`` checks torch against onnxruntime) and
checked against the original on random positions before it is written.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

import torch
from torch import Tensor

from trainer.learn.model import Net


def block_positions(old_blocks: int, new_blocks: int) -> list[int]:
    """Where each old block goes in the new tower: spread evenly, in order, the first first."""
    if new_blocks < old_blocks:
        raise ValueError(f"grow: {new_blocks} blocks is fewer than the net's {old_blocks}")
    return [(j * new_blocks) // old_blocks for j in range(old_blocks)]


def _rename(name: str, pos: list[int]) -> str:
    parts = name.split(".")
    if parts[0] == "tower":
        parts[1] = str(pos[int(parts[1])])
    return ".".join(parts)


def _rows(name: str, old: Tensor, new: Tensor) -> Tensor:
    """The new rows (output channels) of an old tensor's rows, in order."""
    n = old.shape[0] if old.dim() else 0
    if name.endswith("se.fc2.weight") or name.endswith("se.fc2.bias"):
        half, new_half = n // 2, new.shape[0] // 2  # [scale; bias] halves, each one per channel
        return torch.cat([torch.arange(half), new_half + torch.arange(half)])
    return torch.arange(n)


def _embed(new: Tensor, old: Tensor, rows: Tensor) -> None:
    """``old`` into ``new``'s corner at ``rows``; the rest of those rows (from new inputs) zero."""
    if old.dim() == 0:
        new.copy_(old)
        return
    if old.dim() == 1:
        new[rows] = old
        return
    new[rows] = 0.0
    new[rows, : old.shape[1]] = old


def grow(old: Net, blocks: int, filters: int, seed: int = 0) -> Net:
    """A ``blocks`` x ``filters`` net computing what ``old`` computes (in eval mode)."""
    cfg = old.cfg
    if filters < cfg.filters:
        raise ValueError(f"grow: {filters} filters is fewer than the net's {cfg.filters}")
    pos = block_positions(cfg.blocks, blocks)
    policy = cfg.policy_channels if cfg.policy_channels != cfg.filters else filters
    new_cfg = replace(cfg, blocks=blocks, filters=filters, policy_channels=policy)
    torch.manual_seed(seed)
    net = Net(new_cfg)
    target = net.state_dict()
    with torch.no_grad():
        for name, value in old.state_dict().items():
            dest = target[_rename(name, pos)]
            _embed(dest, value, _rows(name, value, dest))
        for k in sorted(set(range(blocks)) - set(pos)):
            target[f"tower.{k}.conv2.1.weight"].zero_()
            target[f"tower.{k}.conv2.1.bias"].zero_()
            if cfg.se_ratio:
                target[f"tower.{k}.se.fc2.weight"][filters:] = 0.0
                target[f"tower.{k}.se.fc2.bias"][filters:] = 0.0
    net.load_state_dict(target)
    return net


def max_output_diff(a: Net, b: Net, planes: Tensor) -> float:
    """The largest difference between two nets' outputs (policy logits, WDL, moves left)."""
    a.eval()
    b.eval()
    with torch.no_grad():
        oa, ob = a(planes), b(planes)
    diffs = [float((x - y).abs().max()) for x, y in zip(oa, ob) if x is not None and y is not None]
    return max(diffs)


def _grow_cmd(args: argparse.Namespace) -> Any:
    from trainer.learn.export import export_onnx, random_planes, read_metadata
    from trainer.learn.onnx_import import model_from_onnx

    old = model_from_onnx(args.net)
    net = grow(old, args.blocks, args.filters, seed=args.seed)
    diff = max_output_diff(old, net, torch.from_numpy(random_planes(64, seed=args.seed)))
    if not diff <= 1e-4:
        raise RuntimeError(f"grow: the grown net differs from {args.net} by {diff:.3g}")
    parent = read_metadata(args.net)
    meta = {"grown_from": json.dumps({"net": parent.get("name", str(args.net)),
                                      "shape": old.cfg.name, "seed": args.seed}),
            "steps": parent.get("steps", "0"), "positions": parent.get("positions", "0")}
    onnx_diff = export_onnx(net, args.out, meta)
    print(json.dumps({"out": args.out, "shape": net.cfg.name, "parameters": net.num_params(),
                      "from": old.cfg.name, "old_parameters": old.num_params(),
                      "max_abs_diff_torch": diff, "max_abs_diff_onnx": onnx_diff}))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("grow", help="a larger net (blocks, filters) that computes what NET does",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("net", help="an ONNX net this trainer exported")
    p.add_argument("--blocks", type=int, required=True, help="residual blocks of the new net")
    p.add_argument("--filters", type=int, required=True, help="channels of the new tower")
    p.add_argument("--seed", type=int, default=0, help="the new weights' random initialisation")
    p.add_argument("--out", required=True, help="the grown net, .onnx")
    p.set_defaults(func=_grow_cmd)
