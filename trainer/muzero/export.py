"""Export a MuZero model as two ONNX graphs (engine/contract.py) and check them against torch.

``NET.onnx`` (initial inference: planes -> state, policy, WDL) is a contract net with one more
output, so every tool that reads contract nets reads it; its metadata names the mode and the
recurrent graph, ``NET.recurrent.onnx`` (state, action -> state, reward, policy, WDL). Why two
files: onnxruntime runs one graph per session, and the search calls the two at different times
with different batches. Each graph is written to a temp file, verified with onnxruntime against
torch on random inputs (max abs difference <= 1e-3), and only then moved into place; the
recurrent graph goes first, so an initial graph on disk always has its partner.
"""

from __future__ import annotations

import copy
import datetime as dt
import os
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import torch
from torch import Tensor, nn

from engine import contract
from trainer.learn.export import TOLERANCE, onnx_bytes, random_planes, with_metadata, write_verified
from trainer.muzero.model import MuZeroNet

INITIAL_OUTPUTS = [contract.POLICY_NAME, contract.WDL_NAME, contract.STATE_NAME]
RECURRENT_INPUTS = [contract.STATE_INPUT, contract.ACTION_INPUT]
RECURRENT_OUTPUTS = [contract.STATE_NAME, contract.REWARD_NAME, contract.POLICY_NAME,
                     contract.WDL_NAME]


class _Initial(nn.Module):
    def __init__(self, model: MuZeroNet) -> None:
        super().__init__()
        self.model = model

    def forward(self, planes: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        out = self.model.initial_inference(planes)
        return out.policy, torch.softmax(out.wdl, dim=1), out.state


class _Recurrent(nn.Module):
    def __init__(self, model: MuZeroNet) -> None:
        super().__init__()
        self.model = model

    def forward(self, state: Tensor, action: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        out = self.model.recurrent_inference(state, action)
        assert out.reward is not None
        return (out.state, torch.softmax(out.reward, dim=1), out.policy,
                torch.softmax(out.wdl, dim=1))


def recurrent_path(path: str | os.PathLike[str]) -> Path:
    """``NET.recurrent.onnx`` beside ``NET.onnx``."""
    p = Path(path)
    return p.with_name(p.stem + ".recurrent.onnx")


def sample_inputs(model: MuZeroNet, batch: int = 16, seed: int = 0) -> dict[str, np.ndarray]:
    """Random planes, the states h makes of them, and random actions: inputs of both graphs."""
    planes = random_planes(batch, seed)
    with torch.no_grad():
        state = model.represent(torch.from_numpy(planes)).numpy()
    action = np.random.default_rng(seed).integers(0, contract.POLICY_SIZE, batch).astype(np.int64)
    return {contract.INPUT_NAME: planes, contract.STATE_INPUT: state, contract.ACTION_INPUT: action}


def verify(model: MuZeroNet, initial: str | os.PathLike[str], recurrent: str | os.PathLike[str],
           batch: int = 16, seed: int = 0) -> tuple[float, float]:
    """Max abs differences (initial, recurrent) between torch and onnxruntime."""
    was = model.training
    model.eval()
    x = sample_inputs(model, batch, seed)
    with torch.no_grad():
        ref_i = _Initial(model)(torch.from_numpy(x[contract.INPUT_NAME]))
        ref_r = _Recurrent(model)(torch.from_numpy(x[contract.STATE_INPUT]),
                                  torch.from_numpy(x[contract.ACTION_INPUT]))
    model.train(was)
    opts = ["CPUExecutionProvider"]
    got_i = ort.InferenceSession(str(initial), providers=opts).run(
        INITIAL_OUTPUTS, {contract.INPUT_NAME: x[contract.INPUT_NAME]})
    got_r = ort.InferenceSession(str(recurrent), providers=opts).run(
        RECURRENT_OUTPUTS, {k: x[k] for k in RECURRENT_INPUTS})
    diff = lambda ref, got: max(float(np.abs(r.numpy() - g).max())  # noqa: E731
                                for r, g in zip(ref, got))
    return diff(ref_i, got_i), diff(ref_r, got_r)


def export_muzero(model: MuZeroNet, path: str | os.PathLike[str],
                  metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """Writes ``path`` (initial inference) and its recurrent graph beside it, both verified;
    returns the paths and the max abs differences. Raises, leaving existing files untouched,
    when torch and onnxruntime disagree by more than 1e-3."""
    path = Path(path)
    rec_path = recurrent_path(path)
    model = copy.deepcopy(model).cpu().eval()
    cfg = model.cfg
    state = torch.zeros(1, cfg.filters, 8, 8)
    meta: dict[str, Any] = {
        "name": path.stem,
        contract.MODE_KEY: contract.MUZERO_MODE,
        "architecture": f"{cfg.name}, lc0-style SE blocks, conv policy head, WDL, reward",
        "config": cfg.to_dict(), "parameters": model.num_params(),
        "state_shape": [cfg.filters, 8, 8], "steps": 0, "positions": 0,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "contract_version": contract.CONTRACT_VERSION, "producer": "zerosum trainer (muzero)",
    }
    meta.update(metadata or {})
    initial = with_metadata(
        onnx_bytes(_Initial(model), (torch.zeros(1, contract.NUM_PLANES, 8, 8),),
                   [contract.INPUT_NAME], INITIAL_OUTPUTS),
        {**meta, contract.RECURRENT_KEY: rec_path.name})
    recurrent = with_metadata(
        onnx_bytes(_Recurrent(model), (state, torch.zeros(1, dtype=torch.int64)),
                   RECURRENT_INPUTS, RECURRENT_OUTPUTS),
        {**meta, contract.MODE_KEY: contract.MUZERO_MODE + "-recurrent"})

    def check(temps: list[Path]) -> tuple[float, float]:
        d_init, d_rec = verify(model, temps[1], temps[0])
        if not (d_init <= TOLERANCE and d_rec <= TOLERANCE):
            raise RuntimeError(f"MuZero export of {path} differs from torch: initial "
                               f"{d_init:.3g}, recurrent {d_rec:.3g}")
        return d_init, d_rec

    # the recurrent graph goes into place first: an initial graph on disk always has its partner
    d_init, d_rec = write_verified([(rec_path, recurrent), (path, initial)], check)
    return {"out": str(path), "recurrent": str(rec_path), "max_abs_diff_initial": d_init,
            "max_abs_diff_recurrent": d_rec}
