"""Weight averaging of nets from one run: the mean of several exported ONNX nets, one net.

    python -m trainer average gen-0005.onnx gen-0006.onnx ... --out avg.onnx

lc0 and KataGo ship the average of a run's recent weights (stochastic weight averaging) rather
than the last snapshot: successive generations of self-play wander around a basin, their mean
lies nearer its floor. Here the snapshots are the run's exported generations, so any finished
run can be averaged after the fact. The nets must be the same graph (same initializers, names and
shapes: one architecture, exported by the same code); every float initializer is averaged, with
``--weights`` for a weighted mean, and integer ones (shapes, indices) must agree.

Our exports fold batch norm into the convolutions, with the statistics frozen during self-play
training (``frozen_bn``), so averaging the folded weights averages the same functions the
trainer learned; the result is checked against the contract by loading it in onnxruntime before
it replaces anything. The output keeps the last net's metadata and says what was averaged.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np


def average_onnx(paths: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str],
                 weights: Sequence[float] | None = None) -> dict[str, float]:
    """Writes the (weighted) mean of the nets ``paths`` to ``out`` atomically. Returns, for
    the record, how far the mean moved from the last net (max abs difference of any weight)."""
    import onnx
    from onnx import numpy_helper

    from engine.evaluator import OnnxEvaluator
    from trainer.learn.export import with_metadata, write_verified
    from trainer.learn.onnx_import import inline_shared_initializers

    if len(paths) < 2:
        raise ValueError("average needs at least two nets")
    w = np.asarray(weights if weights is not None else [1.0] * len(paths), dtype=np.float64)
    if len(w) != len(paths) or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"--weights: {len(paths)} non-negative numbers with a positive sum")
    w = w / w.sum()
    models = [inline_shared_initializers(onnx.load(str(p))) for p in paths]
    last = models[-1]
    shapes = {i.name: tuple(i.dims) for i in last.graph.initializer}
    ops = [n.op_type for n in last.graph.node]
    tensors: list[dict[str, np.ndarray]] = []
    for p, m in zip(paths, models):
        t = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
        if {n: a.shape for n, a in t.items()} != shapes:
            raise ValueError(f"{p}: not the same graph as {paths[-1]} (initializers differ)")
        if [n.op_type for n in m.graph.node] != ops:
            raise ValueError(f"{p}: not the same graph as {paths[-1]} (nodes differ)")
        tensors.append(t)
    moved = 0.0
    for init in last.graph.initializer:
        arrays = [t[init.name] for t in tensors]
        if np.issubdtype(arrays[0].dtype, np.floating):
            mean = sum(wi * a.astype(np.float64) for wi, a in zip(w, arrays))
            new = np.asarray(mean, dtype=arrays[0].dtype)
            moved = max(moved, float(np.max(np.abs(new - arrays[-1]), initial=0.0)))
        else:
            if any(not np.array_equal(a, arrays[0]) for a in arrays):
                raise ValueError(f"integer initializer {init.name} differs between the nets")
            new = arrays[-1]
        init.CopyFrom(numpy_helper.from_array(new, init.name))
    meta = {p.key: p.value for p in last.metadata_props}
    meta["averaged"] = json.dumps({"nets": [Path(p).name for p in paths],
                                   "weights": [round(float(x), 6) for x in w]})
    meta["name"] = Path(out).stem
    # the contract holds (onnxruntime loads it) before it replaces anything at ``out``
    write_verified([(Path(out), with_metadata(last.SerializeToString(), meta))],
                   lambda temps: OnnxEvaluator(str(temps[0]), threads=1, precision="fp32"))
    return {"max_abs_change_from_last": moved}


def _main(args: argparse.Namespace) -> None:
    result = average_onnx(args.nets, args.out, args.weights)
    print(json.dumps({"out": args.out, "nets": len(args.nets), **result}))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("average", help="the mean of several nets of one run (weight averaging)")
    p.add_argument("nets", nargs="+", help="ONNX nets of the same architecture, oldest first")
    p.add_argument("--out", required=True, help="output .onnx")
    p.add_argument("--weights", nargs="+", type=float, help="one weight a net (default: equal)")
    p.set_defaults(func=_main)
