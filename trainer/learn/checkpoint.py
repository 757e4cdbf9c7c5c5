"""Checkpoints that describe themselves, written atomically, loaded with ``weights_only=True``.

A checkpoint is a plain dict of tensors and primitive containers::

    {"format": "zerosum-checkpoint", "version": 1, "config": NetConfig as dict, "step": int,
     "model": state_dict, "optimizer": state_dict | None, "metadata": JSON-able dict}
"""

from __future__ import annotations

import json
import os
from typing import Any

import torch

from trainer.learn.config import NetConfig
from trainer.data.files import atomic_write, load_tagged_npz, save_tagged_npz
from trainer.learn.model import Net

__all__ = ["save_checkpoint",
           "load_checkpoint", "load_model", "restore_optimizer"]

FORMAT = "zerosum-checkpoint"
VERSION = 1


def save_checkpoint(
    path: str | os.PathLike[str],
    model: Net,
    step: int,
    optimizer: torch.optim.Optimizer | None = None,
    metadata: dict[str, Any] | None = None,
) -> None:
    """Write ``model`` (and optionally its optimizer) at ``step`` to ``path``, atomically."""
    state = {
        "format": FORMAT,
        "version": VERSION,
        "config": model.cfg.to_dict(),
        "step": int(step),
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        # a JSON round trip keeps metadata to primitives, which weights_only loading accepts
        "metadata": json.loads(json.dumps(metadata or {})),
    }
    atomic_write(path, lambda f: torch.save(state, f))


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The raw checkpoint dict (tensors on CPU), checked for format and version."""
    state = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ValueError(f"{path} is not a zerosum checkpoint")
    if state.get("version") != VERSION:
        raise ValueError(f"{path}: checkpoint version {state.get('version')}, expected {VERSION}")
    return state


def load_model(path: str | os.PathLike[str]) -> tuple[Net, dict[str, Any]]:
    """A model built from the checkpoint's own config with its weights, and the checkpoint dict
    (pass that to :func:`restore_optimizer` once an optimizer exists over the model)."""
    state = load_checkpoint(path)
    model = Net(NetConfig.from_dict(state["config"]))
    model.load_state_dict(state["model"])
    return model, state


def restore_optimizer(optimizer: torch.optim.Optimizer, state: dict[str, Any]) -> None:
    if state.get("optimizer") is None:
        raise ValueError("checkpoint has no optimizer state")
    optimizer.load_state_dict(state["optimizer"])
