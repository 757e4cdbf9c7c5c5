"""``trainer grow``: a larger net that computes what the smaller one does, and can learn."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnx")

from engine.evaluator import OnnxEvaluator  # noqa: E402
from trainer.__main__ import main as trainer_main  # noqa: E402
from trainer.learn.config import get_config  # noqa: E402
from trainer.learn.export import export_onnx, random_planes, read_metadata  # noqa: E402
from trainer.learn.grow import block_positions, grow, max_output_diff  # noqa: E402
from trainer.learn.model import Net  # noqa: E402
from trainer.learn.onnx_import import model_from_onnx  # noqa: E402


def _trained_looking(preset: str, seed: int = 1) -> Net:
    """A net whose batch norms are not the identity, so copying them wrongly would show."""
    torch.manual_seed(seed)
    net = Net(replace(get_config(preset), frozen_bn=True))
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.3, 0.3)
    return net.eval()


def test_block_positions_keep_order_and_spread() -> None:
    assert block_positions(6, 10) == [0, 1, 3, 5, 6, 8]
    assert block_positions(2, 2) == [0, 1]
    with pytest.raises(ValueError):
        block_positions(6, 5)


@pytest.mark.parametrize("preset", ["tiny", "small"])
def test_grown_net_computes_the_same_and_its_new_parts_learn(preset: str) -> None:
    old = _trained_looking(preset)
    cfg = old.cfg
    new = grow(old, cfg.blocks + 2, cfg.filters * 2, seed=3)
    assert (new.cfg.blocks, new.cfg.filters) == (cfg.blocks + 2, cfg.filters * 2)
    assert new.num_params() > 2 * old.num_params()
    planes = torch.from_numpy(random_planes(16, seed=5))
    assert max_output_diff(old, new, planes) < 1e-5
    # Not the same function by accident: the new channels carry signal of their own.
    new.eval()
    with torch.no_grad():
        stream = new.tower(torch.relu(new.stem(planes)))
    assert float(stream[:, cfg.filters:].abs().mean()) > 1e-3
    # One step's gradients reach the zero weights from new channels into old ones, and the
    # zero scale of each new block's last batch norm, so training can use them.
    new.train()
    out = new.heads(planes)
    (out.policy.logsumexp(1).mean() + out.wdl.logsumexp(1).mean()).backward()
    grad = new.tower[0].conv1[0].weight.grad
    assert grad is not None and float(grad[: cfg.filters, cfg.filters:].abs().sum()) > 0
    fresh = sorted(set(range(new.cfg.blocks)) - set(block_positions(cfg.blocks, new.cfg.blocks)))
    for k in fresh:
        gamma = new.tower[k].conv2[1].weight
        assert float(gamma.detach().abs().sum()) == 0.0
        assert gamma.grad is not None and float(gamma.grad.abs().sum()) > 0


def test_grow_command_writes_an_equal_onnx_net(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    torch.manual_seed(2)
    src = tmp_path / "tiny.onnx"
    export_onnx(Net(get_config("tiny")), src, {"steps": "123"})
    out = tmp_path / "grown.onnx"
    assert trainer_main(["grow", str(src), "--blocks", "3", "--filters", "24",
                         "--out", str(out)]) in (0, None)
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["shape"] == "3x24-se" and report["from"] == "2x16-se"
    meta = read_metadata(out)
    assert json.loads(meta["grown_from"])["shape"] == "2x16-se" and meta["steps"] == "123"
    x = random_planes(32, seed=9)
    a = OnnxEvaluator(str(src), threads=1, precision="fp32").evaluate(x)
    b = OnnxEvaluator(str(out), threads=1, precision="fp32").evaluate(x)
    assert np.abs(a.policy - b.policy).max() < 1e-4
    assert np.abs(a.wdl - b.wdl).max() < 1e-5
    # `train --init` imports it: its new blocks' zero weights, stored once, are found again.
    back = model_from_onnx(out).eval()
    assert back.cfg.blocks == 3 and back.cfg.frozen_bn
    with torch.no_grad():
        assert np.abs(back(torch.from_numpy(x)).policy.numpy() - a.policy).max() < 1e-4


def test_grow_refuses_a_smaller_shape() -> None:
    with pytest.raises(ValueError, match="fewer"):
        grow(_trained_looking("tiny"), 2, 8)
