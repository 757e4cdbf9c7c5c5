"""Import a net this trainer exported back into a torch model, to train on from where it stands.

Why it is needed: the nets we ship are ONNX files, and the checkpoints they came from are run data
that does not travel with the package; self-play "from the bundled net" must start from the file.

What the exporter did, undone: torch's ONNX export folds each batch norm into the convolution
before it (``W' = W * g / sqrt(var + eps)``, ``b' = beta + (b - mean) * g / sqrt(var + eps)``), so
the file holds one weight and one bias per ConvBN. The fold loses the batch statistics, which
training mode needs (it normalises by the batch's own mean and variance). So the import measures
them: it runs the net on real positions, records each folded convolution's output mean ``mu`` and
variance ``s2`` per channel, and sets ``running_mean = mu``, ``running_var = s2``,
``weight = sqrt(s2 + eps)``, ``bias = b' + mu``. In eval mode that is exactly ``W'x + b'`` again;
in training mode, where the batch's statistics are close to ``mu`` and ``s2``, it is close to it,
so the first training steps start from the net's knowledge instead of a scrambled copy.

Module paths come from the exporter's node names (``/model/tower/tower.0/conv1/conv1.0/Conv`` is
``tower.0.conv1.0``); Gemm and the plain policy convolution keep their parameter names.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Iterable

import chess
import numpy as np
import numpy.typing as npt
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from engine import contract
from engine.board import Position
from trainer.config import NetConfig
from trainer.model import ConvBN, Net


def _module_path(node_name: str) -> str:
    """``/model/tower/tower.0/conv1/conv1.0/Conv`` -> ``tower.0.conv1.0``."""
    parts = node_name.strip("/").split("/")
    if len(parts) < 3 or parts[0] != "model":
        raise ValueError(f"unexpected node name {node_name!r}: not a zerosum export")
    return ".".join(p.rsplit(".", 1)[-1] for p in parts[1:-1])


def calibration_planes(count: int = 512, openings: str | os.PathLike[str] | None = None,
                       seed: int = 0) -> npt.NDArray[np.float32]:
    """Input planes of plausible positions: opening lines, each played on by random legal moves
    (captures preferred, so material varies as in real games)."""
    from trainer.selfplay import DEFAULT_OPENINGS, Openings

    rng = random.Random(seed)
    book = Path(openings or DEFAULT_OPENINGS)
    lines = Openings(book) if book.is_file() else None
    out = np.zeros((count, contract.NUM_PLANES, 8, 8), np.float32)
    i = 0
    while i < count:
        board = lines.board(rng) if lines is not None else chess.Board()
        for _ in range(rng.randrange(0, 60)):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
        if board.is_game_over():
            continue
        Position.from_board(board).encode(out[i])
        i += 1
    return out


def model_from_onnx(path: str | os.PathLike[str],
                    planes: npt.NDArray[np.float32] | None = None) -> Net:
    """A torch Net with the ONNX file's weights (eval outputs match the file), its batch norms
    calibrated on ``planes`` (default: :func:`calibration_planes`)."""
    proto = onnx.load(str(path))
    meta = {p.key: p.value for p in proto.metadata_props}
    if "config" not in meta:
        raise ValueError(f"{path}: no 'config' in its metadata; only nets exported by this "
                         "trainer can be imported")
    model = Net(NetConfig.from_dict(json.loads(meta["config"])))
    inits = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
             for t in proto.graph.initializer}
    params = dict(model.named_parameters())
    modules = dict(model.named_modules())
    folded: list[tuple[nn.Conv2d, nn.BatchNorm2d]] = []
    loaded: set[str] = set()
    with torch.no_grad():
        for node in proto.graph.node:
            if node.op_type not in ("Conv", "Gemm"):
                continue
            weight, bias = node.input[1], node.input[2] if len(node.input) > 2 else None
            if weight.startswith("model."):  # Gemm and the plain policy conv keep their names
                for name in (weight, bias):
                    if name is not None:
                        params[name[len("model."):]].copy_(inits[name])
                        loaded.add(name[len("model."):])
                continue
            path_ = _module_path(node.name)
            parent = modules.get(path_.rsplit(".", 1)[0])
            conv = modules.get(path_)
            if not isinstance(parent, ConvBN) or not isinstance(conv, nn.Conv2d) or bias is None:
                raise ValueError(f"{path}: cannot place folded conv {node.name!r}")
            bn = parent[1]
            assert isinstance(bn, nn.BatchNorm2d)
            conv.weight.copy_(inits[weight])
            # Exact in eval mode until calibrated: x / sqrt(1 + eps) * sqrt(1 + eps) + b'.
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0)
            bn.weight.fill_(float(np.sqrt(1.0 + bn.eps)))
            bn.bias.copy_(inits[bias])
            folded.append((conv, bn))
            loaded.update({f"{path_}.weight", f"{path_.rsplit('.', 1)[0]}.1.weight",
                           f"{path_.rsplit('.', 1)[0]}.1.bias"})
    missing = sorted(set(params) - loaded)
    if missing:
        raise ValueError(f"{path}: no weights found for {missing[:5]}")
    _calibrate(model, folded, calibration_planes() if planes is None else planes)
    return model


def _calibrate(model: Net, folded: Iterable[tuple[nn.Conv2d, nn.BatchNorm2d]],
               planes: npt.NDArray[np.float32]) -> None:
    """Sets each folded batch norm's statistics to its convolution's output statistics on
    ``planes``, keeping the eval-mode function unchanged (see the module docstring)."""
    stats: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
    hooks = []
    pairs = list(folded)
    for conv, _ in pairs:
        def hook(mod: nn.Module, inp: object, out: torch.Tensor) -> None:
            stats[id(mod)] = (out.mean(dim=(0, 2, 3)), out.var(dim=(0, 2, 3), unbiased=False))
        hooks.append(conv.register_forward_hook(hook))
    model.eval()
    with torch.no_grad():
        model(torch.from_numpy(planes))
        for h in hooks:
            h.remove()
        for conv, bn in pairs:
            mu, s2 = stats[id(conv)]
            bias = bn.bias.clone()  # b' (the folded bias), set at load
            bn.running_mean.copy_(mu)
            bn.running_var.copy_(s2)
            bn.weight.copy_(torch.sqrt(s2 + bn.eps))
            bn.bias.copy_(bias + mu)
