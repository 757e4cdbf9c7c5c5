"""Network shapes: a small dataclass and named presets."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar, Self


class ConfigDict:
    """``to_dict`` and ``from_dict`` of a config dataclass (checkpoints and ONNX metadata store
    it as a dict). ``from_dict`` refuses fields the class lacks instead of dropping them: they
    mean a net of another kind or from a newer trainer."""

    unknown_hint: ClassVar[str] = ""
    """said after the unknown fields in the error."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Self:
        unknown = set(d) - {f.name for f in fields(cls)}  # type: ignore[arg-type]
        if unknown:
            raise ValueError(f"unknown {cls.__name__} fields: {sorted(unknown)}{cls.unknown_hint}")
        return cls(**d)


@dataclass(frozen=True)
class NetConfig(ConfigDict):
    blocks: int = 6  # residual blocks in the tower
    filters: int = 64  # channels of the tower
    se_ratio: int = 4  # squeeze-excitation bottleneck: filters // se_ratio hidden units (0: no SE)
    policy_channels: int = 64  # channels of the policy head's first 3x3 conv
    value_channels: int = 32  # channels of the value head's 1x1 conv
    value_hidden: int = 128  # hidden units of the value head's FC layer
    moves_left: bool = True  # whether the net has the moves-left head (/output/mlh)
    # Value and moves-left heads average-pool their 1x1-conv features over the board instead of
    # flattening them (lc0). Far fewer parameters, and far less memorising of game results when
    # training on a few thousand games, where the flattened head overfits within an epoch.
    head_pool: bool = False
    # Batch norms stay in eval mode while training (their statistics frozen): set for nets
    # imported from ONNX (trainer/learn/onnx_import.py), whose export folded away the statistics
    # training mode would need; fine-tuning then trains convolutions, scales and biases only.
    frozen_bn: bool = False

    @property
    def name(self) -> str:
        return f"{self.blocks}x{self.filters}" + ("-se" if self.se_ratio else "")


PRESETS: dict[str, NetConfig] = {
    "tiny": NetConfig(blocks=2, filters=16, se_ratio=4, policy_channels=16, value_channels=8,
                      value_hidden=32, moves_left=True, head_pool=False),
    "small": NetConfig(blocks=6, filters=64, se_ratio=4, policy_channels=64, value_channels=32,
                       value_hidden=128, moves_left=True, head_pool=True),
    # maia's shape (6x64, flattened value head): for plentiful per-position value labels
    # (Stockfish's WDL), where there is no game result to memorise.
    "lc0-6x64": NetConfig(blocks=6, filters=64, se_ratio=4, policy_channels=64,
                          value_channels=32, value_hidden=128, moves_left=True),
    "lc0-10x128": NetConfig(blocks=10, filters=128, se_ratio=4, policy_channels=128,
                            value_channels=32, value_hidden=128, moves_left=True),
    "lc0-20x256": NetConfig(blocks=20, filters=256, se_ratio=8, policy_channels=256,
                            value_channels=32, value_hidden=128, moves_left=True),
}


def get_config(name: str) -> NetConfig:
    """A preset by name."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown config {name!r}; presets: {', '.join(PRESETS)}") from None
