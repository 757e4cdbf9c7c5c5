"""``trainer average``: the mean of a run's nets, as one net the engine runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

from onnx import numpy_helper  # noqa: E402

from engine import contract  # noqa: E402
from engine.evaluator import OnnxEvaluator  # noqa: E402
from trainer.__main__ import main as trainer_main  # noqa: E402
from trainer.learn.average import average_onnx  # noqa: E402
from trainer.learn.config import get_config  # noqa: E402
from trainer.learn.export import export_onnx  # noqa: E402
from trainer.learn.model import Net  # noqa: E402
from trainer.learn.onnx_import import inline_shared_initializers  # noqa: E402


def _net(path: Path, seed: int, preset: str = "tiny") -> Path:
    torch.manual_seed(seed)
    export_onnx(Net(get_config(preset)), path, {"generation": str(seed)})
    return path


def weights_of(path: Path) -> dict[str, np.ndarray]:
    """Every weight by name, equal initializers that the exporter stored once included."""
    model = inline_shared_initializers(onnx.load(str(path)))
    return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}


def test_average_is_the_mean_of_every_weight(tmp_path: Path) -> None:
    a, b, c = (_net(tmp_path / f"g{i}.onnx", i) for i in (1, 2, 3))
    out = tmp_path / "avg.onnx"
    assert trainer_main(["average", str(a), str(b), str(c), "--out", str(out)]) == 0
    wa, wb, wc, wo = weights_of(a), weights_of(b), weights_of(c), weights_of(out)
    floats = [n for n in wo if np.issubdtype(wo[n].dtype, np.floating)]
    assert floats and any(not np.allclose(wa[n], wb[n]) for n in floats)
    for n in floats:
        np.testing.assert_allclose(wo[n], (wa[n] + wb[n] + wc[n]) / 3, rtol=1e-5, atol=1e-6)
    ev = OnnxEvaluator(str(out), threads=1)  # the contract holds; the engine runs it
    assert "g1.onnx" in ev.metadata["averaged"] and ev.metadata["generation"] == "3"
    planes = np.zeros((2, contract.NUM_PLANES, 8, 8), dtype=np.float32)
    assert np.isfinite(ev.evaluate(planes).wdl).all()

    weighted = tmp_path / "w.onnx"
    average_onnx([a, b], weighted, weights=[0.0, 1.0])  # all weight on b: b itself
    for n in floats:
        np.testing.assert_allclose(weights_of(weighted)[n], wb[n], rtol=1e-6, atol=1e-7)


def test_average_refuses_different_graphs_and_writes_nothing(tmp_path: Path) -> None:
    a = _net(tmp_path / "tiny.onnx", 1)
    b = _net(tmp_path / "small.onnx", 2, preset="small")
    out = tmp_path / "avg.onnx"
    with pytest.raises(ValueError, match="not the same graph"):
        average_onnx([a, b], out)
    with pytest.raises(ValueError, match="at least two"):
        average_onnx([a], out)
    with pytest.raises(ValueError, match="weights"):
        average_onnx([a, a], out, weights=[1.0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.onnx", "tiny.onnx"]
