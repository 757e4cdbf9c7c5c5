"""The MuZero networks, built from the AlphaZero net's blocks (trainer/learn/model.py).

    representation h: planes [B,112,8,8] -> stem + N residual blocks -> state [B,C,8,8]
    dynamics g:       (state, action) -> concat(state, action planes) -> conv + M blocks
                      -> next state [B,C,8,8], reward logits [B,3]
    prediction f:     state -> P blocks -> policy logits [B,1858] (73 move planes gathered to
                      the contract's entries, as the AlphaZero head), WDL logits [B,3]

States are min-max scaled to [0, 1] per position after h and after g (MuZero appendix G): the
dynamics then sees inputs of the same range at every unroll step, however deep. A net warm-started
from an AlphaZero net (:func:`from_alphazero`: h its stem and tower, f its heads, only g new)
leaves the states as its tower makes them, so its initial inference is that net's.

An action is an index of the 1858-wide policy (the side to move's view). g sees it as five 8x8
planes: its from square, its to square, and one constant plane per promotion piece (q, r, b;
knight promotions share the plain move's entry, as in the contract). The table lives in the
model as a buffer, so the exported recurrent graph takes the integer action itself.

Rewards are three classes for the player who made the move, ordered like WDL: the move won the
game, the game goes on or is drawn (reward 0), the move lost it. With a discount of 1 and a
reward only at the game's end, the value of a move is reward - value(next state).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import chess
import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from engine import contract
from trainer.learn.config import ConfigDict
from trainer.learn.model import POLICY_PLANES, ConvBN, Net, ResBlock, policy_map

ACTION_PLANES = 5


@dataclass(frozen=True)
class MuZeroConfig(ConfigDict):
    repr_blocks: int = 6  # residual blocks of h (the AlphaZero tower)
    dyn_blocks: int = 2  # residual blocks of g
    pred_blocks: int = 1  # residual blocks of f before its heads
    filters: int = 64  # channels of the hidden state and of every tower
    se_ratio: int = 4
    policy_channels: int = 32
    value_channels: int = 32
    value_hidden: int = 128
    reward_channels: int = 8
    flip_dynamics: bool = False
    """g's next state is mirrored rank for rank: the planes are in the side to move's view, so
    after a move the position is seen from the other side, and a 3x3 tower would need many
    layers to carry a piece from rank 2 to rank 7; mirrored, g only makes the move's local
    changes (and the swap of sides between channels)."""
    scale_states: bool = True
    """min-max scale each state to [0, 1] (appendix G); off for a net whose h and f are an
    AlphaZero net's (:func:`from_alphazero`), whose heads were trained on the tower's output."""

    unknown_hint = " (is this a MuZero checkpoint?)"

    @property
    def name(self) -> str:
        return (f"muzero h{self.repr_blocks}x{self.filters} g{self.dyn_blocks} "
                f"f{self.pred_blocks}")


PRESETS: dict[str, MuZeroConfig] = {
    "tiny": MuZeroConfig(repr_blocks=1, dyn_blocks=1, pred_blocks=0, filters=16,
                         policy_channels=8, value_channels=4, value_hidden=16, reward_channels=4),
    "small": MuZeroConfig(repr_blocks=4, dyn_blocks=2, pred_blocks=1, filters=48,
                          policy_channels=32, value_channels=16, value_hidden=64),
    "6x64": MuZeroConfig(),
}


def get_config(name: str) -> MuZeroConfig:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown MuZero preset {name!r}; presets: {', '.join(PRESETS)}") from None


def action_planes_table() -> np.ndarray:
    """[1858, 5, 8, 8]: for each policy index its from-square, to-square and promotion planes
    (squares in the side to move's view, as the contract spells the move)."""
    out = np.zeros((contract.POLICY_SIZE, ACTION_PLANES, 8, 8), np.float32)
    for i, name in enumerate(contract.MOVES):
        frm, to = chess.parse_square(name[:2]), chess.parse_square(name[2:4])
        out[i, 0, frm // 8, frm % 8] = 1.0
        out[i, 1, to // 8, to % 8] = 1.0
        if len(name) == 5:
            out[i, 2 + "qrb".index(name[4])] = 1.0
    return out


def scale_state(x: Tensor) -> Tensor:
    """Min-max scaling of each position's state to [0, 1]."""
    flat = x.flatten(1)
    lo = flat.min(1, keepdim=True).values
    hi = flat.max(1, keepdim=True).values
    return ((flat - lo) / (hi - lo).clamp(min=1e-5)).view_as(x)


class Inference(NamedTuple):
    state: Tensor  # [B,C,8,8]
    reward: Tensor | None  # [B,3] logits (None for initial inference)
    policy: Tensor  # [B,1858] logits
    wdl: Tensor  # [B,3] logits


class MuZeroNet(nn.Module):
    policy_index: Tensor
    action_table: Tensor
    rank_flip: Tensor

    def __init__(self, cfg: MuZeroConfig) -> None:
        super().__init__()
        self.cfg = cfg
        f = cfg.filters
        # h: the AlphaZero stem and tower
        self.stem = ConvBN(contract.NUM_PLANES, f, 3)
        self.repr_tower = nn.Sequential(*[ResBlock(f, cfg.se_ratio) for _ in range(cfg.repr_blocks)])
        # g
        self.dyn_in = ConvBN(f + ACTION_PLANES, f, 3)
        self.dyn_tower = nn.Sequential(*[ResBlock(f, cfg.se_ratio) for _ in range(cfg.dyn_blocks)])
        self.reward_conv = ConvBN(f, cfg.reward_channels, 1)
        self.reward_fc1 = nn.Linear(cfg.reward_channels * 64, cfg.value_hidden)
        self.reward_fc2 = nn.Linear(cfg.value_hidden, 3)
        # f: the AlphaZero heads over a short tower
        self.pred_tower = nn.Sequential(*[ResBlock(f, cfg.se_ratio) for _ in range(cfg.pred_blocks)])
        self.policy_conv = ConvBN(f, cfg.policy_channels, 3)
        self.policy_out = nn.Conv2d(cfg.policy_channels, POLICY_PLANES, 3, padding=1)
        self.value_conv = ConvBN(f, cfg.value_channels, 1)
        self.value_fc1 = nn.Linear(cfg.value_channels * 64, cfg.value_hidden)
        self.value_fc2 = nn.Linear(cfg.value_hidden, 3)
        self.register_buffer("policy_index", torch.tensor(policy_map()), persistent=False)
        self.register_buffer("action_table", torch.from_numpy(action_planes_table()),
                             persistent=False)
        self.register_buffer("rank_flip", torch.arange(7, -1, -1), persistent=False)

    def _scaled(self, x: Tensor) -> Tensor:
        return scale_state(x) if self.cfg.scale_states else x

    def represent(self, planes: Tensor) -> Tensor:
        return self._scaled(self.repr_tower(F.relu(self.stem(planes))))

    def dynamics(self, state: Tensor, action: Tensor) -> tuple[Tensor, Tensor]:
        """The next state and the reward logits of playing ``action`` (int64 [B])."""
        x = torch.cat([state, self.action_table[action]], dim=1)
        x = self.dyn_tower(F.relu(self.dyn_in(x)))
        r = F.relu(self.reward_conv(x)).flatten(1)
        reward = self.reward_fc2(F.relu(self.reward_fc1(r)))
        if self.cfg.flip_dynamics:
            x = x[:, :, self.rank_flip]  # a Gather in ONNX
        return self._scaled(x), reward

    def predict(self, state: Tensor) -> tuple[Tensor, Tensor]:
        """Policy logits [B,1858] and WDL logits [B,3] of a state."""
        x = self.pred_tower(state)
        p = self.policy_out(F.relu(self.policy_conv(x))).flatten(1)[:, self.policy_index]
        v = F.relu(self.value_conv(x)).flatten(1)
        return p, self.value_fc2(F.relu(self.value_fc1(v)))

    def initial_inference(self, planes: Tensor) -> Inference:
        s = self.represent(planes)
        p, v = self.predict(s)
        return Inference(s, None, p, v)

    def recurrent_inference(self, state: Tensor, action: Tensor) -> Inference:
        s, r = self.dynamics(state, action)
        p, v = self.predict(s)
        return Inference(s, r, p, v)

    def train(self, mode: bool = True) -> "MuZeroNet":
        """A batch norm whose parameters are all frozen (``--train-only``) stays in eval mode,
        so the frozen part computes what it computed before training."""
        super().train(mode)
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d) and not any(p.requires_grad for p in m.parameters()):
                m.eval()
        return self

    def num_params(self) -> int:
        return sum(p.numel() for p in self.parameters())


def from_alphazero(net: Net, dyn_blocks: int = 2, repr_blocks: int | None = None) -> MuZeroNet:
    """A MuZero net made of an AlphaZero net: h is its stem and first ``repr_blocks`` residual
    blocks (all of them by default), f the remaining blocks and its policy and value heads,
    states unscaled, so its initial inference is ``net``'s. Only g (and its reward head) is new.
    Why: an AlphaZero net of the same data already represents and predicts; what MuZero adds is
    the dynamics, which can then be learned on its own. Why the split: the fewer blocks h has,
    the closer its state stays to the board, and the less g must recompute after a move (with
    ``repr_blocks=0`` the state is the stem's features and g learns to move pieces in them)."""
    c = net.cfg
    if c.head_pool:
        raise ValueError("from_alphazero: the net's value head pools over the board; f flattens")
    k = c.blocks if repr_blocks is None else repr_blocks
    if not 0 <= k <= c.blocks:
        raise ValueError(f"from_alphazero: repr_blocks {k} is outside 0..{c.blocks}")
    cfg = MuZeroConfig(repr_blocks=k, dyn_blocks=dyn_blocks, pred_blocks=c.blocks - k,
                       filters=c.filters, se_ratio=c.se_ratio, policy_channels=c.policy_channels,
                       value_channels=c.value_channels, value_hidden=c.value_hidden,
                       flip_dynamics=True, scale_states=False)
    model = MuZeroNet(cfg)

    def rename(key: str) -> str:
        if not key.startswith("tower."):
            return key
        block, _, rest = key[len("tower."):].partition(".")
        i = int(block)
        return f"repr_tower.{i}.{rest}" if i < k else f"pred_tower.{i - k}.{rest}"

    state = {rename(key): v for key, v in net.state_dict().items() if not key.startswith("mlh_")}
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not unexpected, unexpected
    assert all(key.startswith(("dyn_", "reward_")) for key in missing), missing
    return model
