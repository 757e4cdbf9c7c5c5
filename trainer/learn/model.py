"""The network: an lc0-style residual tower with squeeze-excitation and three heads.

    planes [B,112,8,8] -> conv3x3 -> N x (conv3x3, conv3x3, SE, +skip) -> heads
    policy:     conv3x3 -> conv3x3 to 73 move-type planes -> gather the 1858 contract entries
    value:      conv1x1 -> flatten (or average-pool) -> FC -> FC 3 (WDL; softmax in forward())
    moves-left: conv1x1 -> flatten (or average-pool) -> FC -> FC 1 -> ReLU (optional)

``forward`` is what gets exported to ONNX and follows :mod:`engine.contract`; training uses
``heads``, which returns the WDL logits instead of probabilities.
"""

from __future__ import annotations

from typing import NamedTuple

import chess
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from engine import contract
from trainer.learn.config import NetConfig

# Policy as 73 planes of 8x8 "from" squares (like AlphaZero's 8x8x73): 56 queen-like moves
# (8 directions x distance 1..7), 8 knight moves, 9 promotions to q/r/b (x 3 file deltas).
# Knight promotions share the plain move's entry, as in the contract.
_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
_KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
POLICY_PLANES = 73


def policy_map() -> list[int]:
    """For each of the 1858 contract moves, its index in the flattened [73, 64] conv output."""
    out = []
    for name in contract.MOVES:
        frm, to = chess.parse_square(name[:2]), chess.parse_square(name[2:4])
        df, dr = chess.square_file(to) - chess.square_file(frm), chess.square_rank(to) - chess.square_rank(frm)
        if len(name) == 5:
            plane = 64 + "qrb".index(name[4]) * 3 + (df + 1)
        elif (df, dr) in _KNIGHT:
            plane = 56 + _KNIGHT.index((df, dr))
        else:
            dist = max(abs(df), abs(dr))
            plane = _DIRECTIONS.index((df // dist, dr // dist)) * 7 + dist - 1
        out.append(plane * 64 + frm)
    assert len(set(out)) == contract.POLICY_SIZE
    return out


class Output(NamedTuple):
    policy: Tensor  # [B, 1858] logits
    wdl: Tensor  # [B, 3] logits (heads) or probabilities (forward)
    mlh: Tensor | None  # [B, 1] moves left, >= 0; None without the head


class ConvBN(nn.Sequential):
    def __init__(self, cin: int, cout: int, k: int) -> None:
        super().__init__(nn.Conv2d(cin, cout, k, padding=k // 2, bias=False), nn.BatchNorm2d(cout))


class SqueezeExcite(nn.Module):
    """lc0's SE: pool -> FC -> ReLU -> FC giving a scale and a bias per channel."""

    def __init__(self, channels: int, ratio: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(channels, channels // ratio)
        self.fc2 = nn.Linear(channels // ratio, 2 * channels)

    def forward(self, x: Tensor) -> Tensor:
        s = self.fc2(F.relu(self.fc1(x.mean(dim=(2, 3)))))
        scale, bias = s.unsqueeze(-1).unsqueeze(-1).chunk(2, dim=1)
        return torch.sigmoid(scale) * x + bias


class ResBlock(nn.Module):
    def __init__(self, channels: int, se_ratio: int) -> None:
        super().__init__()
        self.conv1 = ConvBN(channels, channels, 3)
        self.conv2 = ConvBN(channels, channels, 3)
        self.se = SqueezeExcite(channels, se_ratio) if se_ratio else nn.Identity()

    def forward(self, x: Tensor) -> Tensor:
        y = self.se(self.conv2(F.relu(self.conv1(x))))
        return F.relu(x + y)


class Net(nn.Module):
    policy_index: Tensor

    def __init__(self, cfg: NetConfig) -> None:
        super().__init__()
        self.cfg = cfg
        f = cfg.filters
        self.stem = ConvBN(contract.NUM_PLANES, f, 3)
        self.tower = nn.Sequential(*[ResBlock(f, cfg.se_ratio) for _ in range(cfg.blocks)])
        self.policy_conv = ConvBN(f, cfg.policy_channels, 3)
        self.policy_out = nn.Conv2d(cfg.policy_channels, POLICY_PLANES, 3, padding=1)
        self.register_buffer("policy_index", torch.tensor(policy_map()), persistent=False)
        self.value_conv = ConvBN(f, cfg.value_channels, 1)
        squares = 1 if cfg.head_pool else 64
        self.value_fc1 = nn.Linear(cfg.value_channels * squares, cfg.value_hidden)
        self.value_fc2 = nn.Linear(cfg.value_hidden, 3)
        if cfg.moves_left:
            self.mlh_conv = ConvBN(f, 8, 1)
            self.mlh_fc1 = nn.Linear(8 * squares, cfg.value_hidden)
            self.mlh_fc2 = nn.Linear(cfg.value_hidden, 1)

    def _board_features(self, x: Tensor) -> Tensor:
        return x.mean(dim=(2, 3)) if self.cfg.head_pool else x.flatten(1)

    def heads(self, planes: Tensor) -> Output:
        """Policy logits, WDL logits and moves left: what the losses want."""
        x = self.tower(F.relu(self.stem(planes)))
        p = self.policy_out(F.relu(self.policy_conv(x))).flatten(1)
        policy = p[:, self.policy_index]
        v = self._board_features(F.relu(self.value_conv(x)))
        wdl = self.value_fc2(F.relu(self.value_fc1(v)))
        mlh = None
        if self.cfg.moves_left:
            m = self._board_features(F.relu(self.mlh_conv(x)))
            mlh = F.relu(self.mlh_fc2(F.relu(self.mlh_fc1(m))))
        return Output(policy, wdl, mlh)

    def forward(self, planes: Tensor) -> Output:
        """The contract's outputs: policy logits, WDL probabilities, moves left."""
        out = self.heads(planes)
        return Output(out.policy, F.softmax(out.wdl, dim=1), out.mlh)

    def train(self, mode: bool = True) -> "Net":
        super().train(mode)
        if self.cfg.frozen_bn:
            for m in self.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        return self

    def num_params(self) -> int:
        return sum(p.numel() for p in self.parameters())
