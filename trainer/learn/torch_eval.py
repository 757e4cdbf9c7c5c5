"""A net of the contract run by torch: self-play's evaluator where onnxruntime has no GPU.

Why: on one CPU thread the 6x64 net takes about 0.7 ms a position, nearly all of a self-play
visit's cost, and the GPU machine's onnxruntime has no CUDA provider (the onnxruntime-gpu wheel
is too large to carry there), while its torch has CUDA. The ONNX file is imported back into a
torch model (:func:`trainer.learn.onnx_import.model_from_onnx`, the exact function the file computes)
and evaluated in batches where torch puts it. Same interface as
:class:`engine.evaluator.OnnxEvaluator`, so the search cannot tell them apart; the engine itself never imports this (it runs without
torch).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import torch

from engine.evaluator import NetError, NetOutput
from trainer.learn.model import Net


DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
"""the precisions a :class:`TorchEvaluator` runs at, by the names the command line uses."""


@dataclass
class TorchEvaluator:
    """Runs an exported net with torch on ``device`` ("cpu", "cuda", "cuda:1", ...).

    threads: torch's intra-op threads (0: torch decides). precision: "fp32" (TF32 off: the
    search sees what the file computes, not a rounding of it), or "fp16" / "bf16", the weights
    and activations in half precision for the GPU's tensor cores, as lc0 runs its nets there
    (outputs returned as float32 either way).
    """

    path: str
    device: str = "cuda"
    threads: int = 1
    precision: str = "fp32"
    name: str = field(init=False)
    has_mlh: bool = field(init=False)

    def __post_init__(self) -> None:
        from trainer.learn.onnx_import import model_from_onnx

        if self.precision not in DTYPES:
            raise NetError(f"unknown precision {self.precision!r}; expected one of "
                           f"{', '.join(DTYPES)}")
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            raise NetError(f"torch device {self.device!r} was asked for but torch has no CUDA here")
        if not Path(self.path).expanduser().is_file():
            raise NetError(f"weights file {self.path!r} does not exist")
        try:
            model: Net = model_from_onnx(Path(self.path).expanduser())
        except Exception as exc:  # onnx and the importer raise several unrelated types
            raise NetError(f"weights file {self.path!r} cannot be run by torch: {exc}") from None
        if self.threads > 0:  # on CUDA too: many workers share the machine's cores
            torch.set_num_threads(self.threads)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        self._device = torch.device(self.device)
        self._dtype = DTYPES[self.precision]
        self._model = model.to(self._device, self._dtype).eval()
        self.name = Path(self.path).name
        self.has_mlh = model.cfg.moves_left

    def evaluate(self, planes: npt.NDArray[np.float32]) -> NetOutput:
        """planes: [B, 112, 8, 8] float32 -> the contract's outputs as numpy arrays."""
        x = torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32))
        with torch.inference_mode():
            out = self._model(x.to(self._device, self._dtype))
            policy = out.policy.float().cpu().numpy()
            wdl = out.wdl.float().cpu().numpy()
            mlh = None if out.mlh is None else out.mlh.float().reshape(-1).cpu().numpy()
        return NetOutput(policy, wdl, mlh)
