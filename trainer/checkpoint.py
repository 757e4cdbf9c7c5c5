"""Checkpoints that describe themselves, written atomically, loaded with ``weights_only=True``.

A checkpoint is a plain dict of tensors and primitive containers::

    {"format": "zerosum-checkpoint", "version": 1, "config": NetConfig as dict, "step": int,
     "model": state_dict, "optimizer": state_dict | None, "metadata": JSON-able dict}
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

from trainer.config import NetConfig
from trainer.model import Net

FORMAT = "zerosum-checkpoint"
VERSION = 1


def save_tagged_npz(path: str | os.PathLike[str], fmt: str, version: int,
                    arrays: dict[str, Any]) -> None:
    """A compressed .npz carrying its format name and version, written atomically."""
    buf = io.BytesIO()
    np.savez_compressed(buf, format=np.array(fmt), version=np.array(version), **arrays)
    atomic_write(path, lambda f: f.write(buf.getbuffer()))


def load_tagged_npz(path: str | os.PathLike[str], fmt: str, version: int) -> dict[str, Any]:
    """The arrays of a file written by ``save_tagged_npz``; ValueError for another format or
    version."""
    with np.load(path, allow_pickle=False) as z:
        if "format" not in z or str(z["format"]) != fmt:
            raise ValueError(f"{path} is not a {fmt} file")
        if int(z["version"]) != version:
            raise ValueError(f"{path}: {fmt} version {int(z['version'])}, expected {version}")
        return {k: z[k] for k in z.files if k not in ("format", "version")}


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike[str], write: Any) -> None:
    """Call ``write(file)`` on a temp file beside ``path``, fsync it, then rename it over ``path``.

    A failure at any point leaves ``path`` as it was and no temp file behind.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o666 & ~_umask())  # mkstemp makes 0600; use the usual mode
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


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
