"""Export a model to an ONNX file that follows :mod:`engine.contract`, then check it.

The file has input ``/input/planes`` [B,112,8,8] (dynamic B) and outputs ``/output/policy``
[B,1858] logits, ``/output/wdl`` [B,3] probabilities and, when the model has the head,
``/output/mlh`` [B,1]. Its metadata_props say what it is (architecture, steps, positions seen,
date, contract version, plus whatever the caller adds). It is written atomically and verified
against torch with onnxruntime before it replaces anything.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable, TypeVar

import numpy as np
import onnx
import onnxruntime as ort
import torch
from torch import Tensor, nn

from engine import contract
from trainer.data.files import atomic_write
from trainer.learn.model import Net

OPSET = 17
TOLERANCE = 1e-3


class _Contract(nn.Module):
    """The model's forward as a plain tuple of the contract's outputs (no None)."""

    def __init__(self, model: Net) -> None:
        super().__init__()
        self.model = model

    def forward(self, planes: Tensor) -> tuple[Tensor, ...]:
        out = self.model(planes)
        return (out.policy, out.wdl) if out.mlh is None else (out.policy, out.wdl, out.mlh)


def output_names(model: Net) -> list[str]:
    names = [contract.POLICY_NAME, contract.WDL_NAME]
    return names + [contract.MLH_NAME] if model.cfg.moves_left else names


def onnx_bytes(module: nn.Module, args: tuple[Tensor, ...], inputs: list[str],
               outputs: list[str]) -> bytes:
    """``module`` serialized (legacy TorchScript exporter, opset 17, every axis 0 a dynamic
    batch)."""
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = Path(tmp) / "net.onnx"
        torch.onnx.export(module, args, out, input_names=inputs, output_names=outputs,
                          dynamic_axes={n: {0: "batch"} for n in inputs + outputs},
                          opset_version=OPSET, do_constant_folding=True, dynamo=False)
        return out.read_bytes()


def to_onnx_bytes(model: Net) -> bytes:
    """The serialized contract ONNX model of ``model`` (a CPU model in eval mode)."""
    return onnx_bytes(_Contract(model), (torch.zeros(1, contract.NUM_PLANES, 8, 8),),
                      [contract.INPUT_NAME], output_names(model))


def with_metadata(data: bytes, meta: dict[str, Any]) -> bytes:
    """The ONNX model ``data`` with ``meta`` as its metadata_props (values that are not strings
    as JSON), checked by onnx.checker."""
    proto = onnx.load_from_string(data)
    del proto.metadata_props[:]
    for k, v in meta.items():
        entry = proto.metadata_props.add()
        entry.key = str(k)
        entry.value = v if isinstance(v, str) else json.dumps(v)
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


T = TypeVar("T")


def write_verified(files: list[tuple[Path, bytes]], check: Callable[[list[Path]], T]) -> T:
    """Writes each (path, data) to a temp file beside its path, runs ``check`` on the temp files
    (it raises when they are wrong), then moves them into place in the order given; returns what
    ``check`` returned. A failed write or check touches no target; the temp files never outlive
    the call."""
    temps = [path.with_name(f".{path.name}.verify") for path, _ in files]
    try:
        for temp, (_, data) in zip(temps, files):
            atomic_write(temp, lambda f, data=data: f.write(data))
        result = check(temps)
        for temp, (path, _) in zip(temps, files):
            os.replace(temp, path)
    finally:
        for temp in temps:
            temp.unlink(missing_ok=True)
    return result


def random_planes(batch: int, seed: int = 0) -> np.ndarray:
    """Plausible-looking inputs: sparse 0/1 piece planes, 0/1 aux planes, a rule-50 count."""
    rng = np.random.default_rng(seed)
    x = (rng.random((batch, contract.NUM_PLANES, 8, 8)) < 0.05).astype(np.float32)
    aux = contract.AUX_BASE
    x[:, aux:] = rng.integers(0, 2, (batch, 8, 1, 1)).astype(np.float32)
    x[:, aux + 5] = rng.integers(0, 100, (batch, 1, 1)).astype(np.float32)
    x[:, aux + 6] = 0.0
    x[:, aux + 7] = 1.0
    return x


def verify(model: Net, onnx_path: str | os.PathLike[str], batch: int = 16, seed: int = 0) -> float:
    """Max abs difference over all outputs between torch and onnxruntime on a random batch."""
    x = random_planes(batch, seed)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        ref = _Contract(model)(torch.from_numpy(x))
    model.train(was_training)
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    got = sess.run(output_names(model), {contract.INPUT_NAME: x})
    return max(float(np.abs(r.numpy() - g).max()) for r, g in zip(ref, got))


def export_onnx(
    model: Net, path: str | os.PathLike[str], metadata: dict[str, Any] | None = None
) -> float:
    """Write ``model`` to ``path`` as a contract ONNX net; returns the verified max abs diff.

    ``metadata`` may hold ``steps`` and ``positions`` (seen in training) and anything else; all
    values are stored as strings (dicts and lists as JSON). Raises if torch and onnxruntime
    disagree by more than 1e-3, leaving any existing file at ``path`` untouched.
    """
    path = Path(path)
    # One fp32 CPU copy is both written and checked (as export_muzero does): a model trained
    # with --device cuda would otherwise answer the check through TF32 convolutions, some 0.05
    # away from its own weights.
    model = copy.deepcopy(model).cpu().eval()
    meta: dict[str, Any] = {
        "name": path.stem,
        "architecture": f"resnet {model.cfg.name}, lc0-style SE, conv policy head, WDL"
        + (" (pooled)" if model.cfg.head_pool else "")
        + (" + moves-left" if model.cfg.moves_left else ""),
        "config": model.cfg.to_dict(),
        "parameters": model.num_params(),
        "steps": 0,
        "positions": 0,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "contract_version": contract.CONTRACT_VERSION,
        "producer": "zerosum trainer",
    }
    meta.update(metadata or {})
    data = with_metadata(to_onnx_bytes(model), meta)

    def check(temps: list[Path]) -> float:
        diff = verify(model, temps[0])
        if not diff <= TOLERANCE:
            raise RuntimeError(f"ONNX export of {path} differs from torch by {diff:.3g}")
        return diff

    return write_verified([(path, data)], check)


def read_metadata(path: str | os.PathLike[str]) -> dict[str, str]:
    """The metadata_props of an ONNX file (values as stored: strings)."""
    return {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
