"""Import a net this trainer exported back into a torch model, to train on from where it stands.

Why it is needed: the nets we ship are ONNX files, and the checkpoints they came from are run data
that does not travel with the package; self-play "from the bundled net" must start from the file.

What the exporter did, undone: torch's ONNX export folds each batch norm into the convolution
before it (``W' = W * g / sqrt(var + eps)``, ``b' = beta + (b - mean) * g / sqrt(var + eps)``), so
the file holds one weight and one bias per ConvBN. The import puts ``W'`` in the convolution and
makes the batch norm an exact pass-through plus ``b'`` (mean 0, variance 1, scale
``sqrt(1 + eps)``). The fold lost the batch statistics training mode would normalise by, and
guessing them is not harmless: measured on self-play positions, letting the statistics adapt
through 40 training-mode batches without a single weight update changed the net's top move on
20% of the positions. So the imported net's config says ``frozen_bn``: its batch norms stay in
eval mode while it trains (the usual practice when fine-tuning), and the net starts training
from exactly the function the file computes.

Module paths come from the exporter's node names (``/model/tower/tower.0/conv1/conv1.0/Conv`` is
``tower.0.conv1.0``); Gemm and the plain policy convolution keep their parameter names.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn

from trainer.learn.config import NetConfig
from trainer.learn.model import ConvBN, Net


def _module_path(node_name: str) -> str:
    """``/model/tower/tower.0/conv1/conv1.0/Conv`` -> ``tower.0.conv1.0``."""
    parts = node_name.strip("/").split("/")
    if len(parts) < 3 or parts[0] != "model":
        raise ValueError(f"unexpected node name {node_name!r}: not a zerosum export")
    return ".".join(p.rsplit(".", 1)[-1] for p in parts[1:-1])


def inline_shared_initializers(model: Any) -> Any:
    """The exporter stores equal initializers once and reads the copies through Identity nodes
    (a fresh net's zero biases all look alike), so a net's graph depends on its values. Each
    such Identity becomes an initializer of its own, so that nets of one architecture compare
    and average weight by weight, and the import finds each layer's weights under its own name
    (a grown net's new blocks share their zero weights)."""
    inits = {i.name: i for i in model.graph.initializer}
    keep = []
    for node in model.graph.node:
        if node.op_type == "Identity" and node.input[0] in inits:
            array = numpy_helper.to_array(inits[node.input[0]])
            model.graph.initializer.append(numpy_helper.from_array(array, node.output[0]))
        else:
            keep.append(node)
    del model.graph.node[:]
    model.graph.node.extend(keep)
    return model


def model_from_onnx(path: str | os.PathLike[str]) -> Net:
    """A torch Net computing what the ONNX file computes, its batch norms frozen (see the module
    docstring)."""
    proto = inline_shared_initializers(onnx.load(str(path)))
    meta = {p.key: p.value for p in proto.metadata_props}
    if "config" not in meta:
        raise ValueError(f"{path}: no 'config' in its metadata; only nets exported by this "
                         "trainer can be imported")
    cfg = NetConfig.from_dict(json.loads(meta["config"]))
    model = Net(replace(cfg, frozen_bn=True))
    inits = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
             for t in proto.graph.initializer}
    params = dict(model.named_parameters())
    modules = dict(model.named_modules())
    loaded: set[str] = set()
    with torch.no_grad():
        for node in proto.graph.node:
            if node.op_type not in ("Conv", "Gemm"):
                continue
            weight, bias = node.input[1], node.input[2] if len(node.input) > 2 else None
            if weight.startswith("model."):  # Gemm and the plain policy conv keep their names
                for name in (weight, bias):
                    if name is not None:
                        params[name[len("model."):]].copy_(inits[name])
                        loaded.add(name[len("model."):])
                continue
            path_ = _module_path(node.name)
            parent = modules.get(path_.rsplit(".", 1)[0])
            conv = modules.get(path_)
            if not isinstance(parent, ConvBN) or not isinstance(conv, nn.Conv2d) or bias is None:
                raise ValueError(f"{path}: cannot place folded conv {node.name!r}")
            bn = parent[1]
            assert isinstance(bn, nn.BatchNorm2d) and bn.running_mean is not None \
                and bn.running_var is not None
            conv.weight.copy_(inits[weight])
            # Exact: x / sqrt(1 + eps) * sqrt(1 + eps) + b'.
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0)
            bn.weight.fill_(float(np.sqrt(1.0 + bn.eps)))
            bn.bias.copy_(inits[bias])
            loaded.update({f"{path_}.weight", f"{path_.rsplit('.', 1)[0]}.1.weight",
                           f"{path_.rsplit('.', 1)[0]}.1.bias"})
    missing = sorted(set(params) - loaded)
    if missing:
        raise ValueError(f"{path}: no weights found for {missing[:5]}")
    return model
