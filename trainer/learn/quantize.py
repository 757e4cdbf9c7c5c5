"""Static int8 quantization of a net with onnxruntime, calibrated on real positions.

    python -m trainer quantize NET.onnx --out NET-int8.onnx [--pgn GAMES.pgn ...]

Calibration runs the fp32 net over the input planes of real positions (every position of the
given PGN games, sampled; default: the packaged opening book) and records each tensor's range
(cut at its 99.999th percentile); the convolutions' weights are quantized per output channel to
int8, their input activations to uint8 with those ranges, and the result is an ONNX net of the
same contract with QuantizeLinear/DequantizeLinear pairs (QDQ) that onnxruntime fuses into
integer kernels (VNNI where the CPU has it). The output keeps the fp32 net's metadata_props and
adds ``precision=int8`` and how it was calibrated.

What stays fp32, from measurement on the bundled net (benchmarks/int8.py): the first convolution
(its input carries the unscaled rule-50 counter, 0..100, beside 0/1 planes, so one uint8 scale
would erase the planes), the last weighted layer of each head (policy logits and value lose
resolution otherwise: top-1 agreement with fp32 fell from 95% to 71%), and the small Gemms of the
SE units and value head (no speed to gain there).

Notation: "planes" are the contract's [N, 112, 8, 8] float32 inputs (engine/contract.py).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

import chess
import chess.pgn
import numpy as np
import numpy.typing as npt

from engine import contract
from engine.evaluator import file_sha256, made_from

if TYPE_CHECKING:
    import onnx

METHODS = ("minmax", "entropy", "percentile")
FORMATS = ("qdq", "qoperator")


@dataclass
class Positions:
    """Positions drawn from games: planes [N, 112, 8, 8] (history included), played [N] (the
    policy index of the move played there), fens [N]."""

    planes: npt.NDArray[np.float32]
    played: npt.NDArray[np.int64]
    fens: list[str]


def sample_positions(pgn_paths: Sequence[str | os.PathLike[str]], count: int,
                     seed: int = 0) -> Positions:
    """min(count, positions there) positions drawn uniformly from every game of the PGN files,
    each encoded with its game so far as history; positions with no move played are left out.

    A reservoir sample, so a large PGN costs memory only for the sample."""
    if count < 1:
        raise ValueError(f"count must be >= 1, not {count}")
    rng = np.random.default_rng(seed)
    sample: list[tuple[npt.NDArray[np.float32], int, str]] = []
    seen = 0
    for path in pgn_paths:
        if not Path(path).is_file():
            raise FileNotFoundError(f"PGN file {path} does not exist")
        with open(path, encoding="utf-8", errors="replace") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                board = game.board()
                for move in game.mainline_moves():
                    seen += 1
                    slot = seen - 1 if seen <= count else int(rng.integers(seen))
                    if slot < count:
                        item = (contract.encode(board), contract.move_index(board, move),
                                board.fen())
                        if seen <= count:
                            sample.append(item)
                        else:
                            sample[slot] = item
                    board.push(move)
    if not sample:
        raise ValueError(f"no positions in {', '.join(map(str, pgn_paths))}")
    return Positions(np.stack([s[0] for s in sample]), np.array([s[1] for s in sample]),
                     [s[2] for s in sample])


def _batches(planes: npt.NDArray[np.float32], batch: int) -> Iterator[dict[str, npt.NDArray[np.float32]]]:
    # Equal batches only: the histogram calibrators stack every batch's outputs into one array.
    batch = min(batch, len(planes))
    for i in range(0, len(planes) - batch + 1, batch):
        yield {contract.INPUT_NAME: planes[i:i + batch]}


def quantize_net(net: str | os.PathLike[str], out: str | os.PathLike[str],
                 planes: npt.NDArray[np.float32], *, per_channel: bool = True,
                 method: str = "percentile", fmt: str = "qdq", preprocess: bool = True,
                 ops: Sequence[str] = ("Conv",), fp32_ends: bool = True,
                 percentile: float = 99.999,
                 calibration: str = "") -> None:
    """Writes ``net`` quantized to int8 (weights int8, activations uint8) to ``out``, atomically.

    planes: [N, 112, 8, 8] calibration inputs; ops: the op types quantized; fp32_ends: keep the
    layers at the net's input and outputs in fp32 (see the module docstring); ``calibration``
    (where the planes came from) is recorded in the metadata."""
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat,
                                          QuantType, quant_pre_process, quantize_static)

    from trainer.data.files import atomic_write

    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if planes.ndim != 4 or planes.shape[1:] != (contract.NUM_PLANES, 8, 8):
        raise ValueError(f"calibration planes must be [N,112,8,8], not {list(planes.shape)}")
    source = onnx.load(str(net))

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self._it = _batches(planes, 64)

        def get_next(self) -> dict[str, npt.NDArray[np.float32]] | None:
            return next(self._it, None)

    with tempfile.TemporaryDirectory() as tmp:
        model_in = str(net)
        if preprocess:
            # Shape inference and graph optimisation first, as onnxruntime advises, so that the
            # quantizer sees every tensor's shape and fewer stray ops.
            model_in = os.path.join(tmp, "pre.onnx")
            quant_pre_process(str(net), model_in, skip_symbolic_shape=False)
        exclude = _end_nodes(onnx.load(model_in)) if fp32_ends else []
        q_path = os.path.join(tmp, "int8.onnx")
        quantize_static(
            model_in, q_path, Reader(),
            quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator,
            per_channel=per_channel, weight_type=QuantType.QInt8,
            activation_type=QuantType.QUInt8,
            calibrate_method={"minmax": CalibrationMethod.MinMax,
                              "entropy": CalibrationMethod.Entropy,
                              "percentile": CalibrationMethod.Percentile}[method],
            op_types_to_quantize=list(ops), nodes_to_exclude=exclude,
            extra_options={"ActivationSymmetric": False, "WeightSymmetric": True,
                           "CalibPercentile": percentile})
        model = onnx.load(q_path)
    meta = {p.key: p.value for p in source.metadata_props}
    meta.update({"precision": "int8", "source_sha256": file_sha256(net), "quantization": json.dumps({
        "format": fmt, "per_channel": per_channel, "method": method, "percentile": percentile,
        "ops": list(ops), "fp32": exclude, "preprocess": preprocess,
        "positions": int(len(planes)), "calibration": calibration})})
    del model.metadata_props[:]
    onnx.helper.set_model_props(model, meta)
    atomic_write(out, lambda f: f.write(model.SerializeToString()))


def ensure_int8(net: str | os.PathLike[str], positions: int = 2000) -> Path:
    """The int8 copy of ``net`` beside it (``engine.evaluator.int8_path``), quantized now with
    the defaults of ``trainer quantize`` (the packaged opening book, ``positions`` of it, seed 0)
    unless one made from this very file is already there: an int8 file whose recorded source
    digest differs is a stale copy of an earlier net and is made again. Self-play workers call
    this at start-up; several that race each write the same file atomically."""
    import onnx

    from engine.evaluator import int8_path

    out = int8_path(net)
    if out == Path(os.path.expanduser(net)):
        return out  # already an int8 net
    if out.is_file():
        meta = {p.key: p.value for p in onnx.load(str(out), load_external_data=False).metadata_props}
        if made_from(net, meta.get("source_sha256")):
            return out
    pgn = default_calibration_pgn()
    planes = sample_positions([pgn], positions, seed=0).planes
    quantize_net(net, out, planes,
                 calibration=f"{len(planes)} positions from {pgn.name} (seed 0)")
    return out


def _end_nodes(model: "onnx.ModelProto") -> list[str]:
    """The weighted nodes (Conv, Gemm, MatMul) that read the net's input or write its outputs
    (through shape-only and activation ops)."""
    weighted = {"Conv", "Gemm", "MatMul"}
    producer = {o: n for n in model.graph.node for o in n.output}
    inputs = {i.name for i in model.graph.input}
    ends = [n.name for n in model.graph.node if n.op_type in weighted and inputs & set(n.input)]
    for out in model.graph.output:
        node = producer.get(out.name)
        while node is not None and node.op_type not in weighted:
            node = producer.get(node.input[0])
        if node is not None:
            ends.append(node.name)
    return ends


def default_calibration_pgn() -> Path:
    from trainer.data.books import DEFAULT_OPENINGS

    return DEFAULT_OPENINGS


def _quantize(args: argparse.Namespace) -> int:
    pgns = args.pgn or [str(default_calibration_pgn())]
    planes = sample_positions(pgns, args.positions, seed=args.seed).planes
    quantize_net(args.net, args.out, planes, per_channel=not args.per_tensor, method=args.method,
                 fmt=args.format, preprocess=not args.no_preprocess,
                 calibration=f"{len(planes)} positions from {', '.join(Path(p).name for p in pgns)}"
                             f" (seed {args.seed})")
    print(json.dumps({"net": args.net, "out": args.out, "positions": int(len(planes)),
                      "bytes": os.path.getsize(args.out)}))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("quantize", help="int8 copy of a net (static QDQ, calibrated on positions)")
    p.add_argument("net", help="fp32 ONNX net")
    p.add_argument("--out", required=True, help="output .onnx (e.g. NET-int8.onnx)")
    p.add_argument("--pgn", nargs="+", help="games whose positions calibrate (default: the "
                   "packaged opening book)")
    p.add_argument("--positions", type=int, default=2000, help="calibration positions (2000)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (0)")
    p.add_argument("--method", choices=METHODS, default="percentile",
                   help="calibration (percentile: each range cut at its 99.999th percentile)")
    p.add_argument("--format", choices=FORMATS, default="qdq", help="graph format (qdq)")
    p.add_argument("--per-tensor", action="store_true", help="one weight scale per tensor")
    p.add_argument("--no-preprocess", action="store_true", help="skip quant_pre_process")
    p.set_defaults(func=_quantize)
