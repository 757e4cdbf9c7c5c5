"""int8 nets: ``trainer quantize`` makes one the engine runs, and the Precision option picks it."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import chess
import numpy as np
import onnx
import pytest

from engine import contract
from engine import evaluator
from engine.evaluator import (NetError, OnnxEvaluator, cpu_has_int8_dot, default_net_path,
                              int8_path, resolve_precision)
from engine.uci import UciEngine
from trainer.__main__ import main as trainer_main
from trainer.data.books import DEFAULT_OPENINGS
from trainer.learn.quantize import sample_positions

SEED = Path(__file__).resolve().parent / "data" / "zerosum-seed.onnx"
"""a second net of the contract (a 6x64 trained before the bundled one), for nets that change"""

SHIPPED_INT8 = int8_path(default_net_path())


def test_int8_path_names_the_sibling() -> None:
    assert int8_path("/x/net.onnx") == Path("/x/net-int8.onnx")
    assert int8_path("/x/net-int8.onnx") == Path("/x/net-int8.onnx")


def test_resolve_precision(tmp_path: Path) -> None:
    net = tmp_path / "a.onnx"
    net.write_bytes(b"")
    assert resolve_precision(str(net), "fp32") == str(net)
    assert resolve_precision(str(net), "auto") == str(net)  # no sibling yet
    with pytest.raises(NetError, match="trainer quantize"):
        resolve_precision(str(net), "int8")
    with pytest.raises(NetError, match="unknown precision"):
        resolve_precision(str(net), "fp16")
    (tmp_path / "a-int8.onnx").write_bytes(b"")
    assert resolve_precision(str(net), "auto", int8_fast=True) == str(tmp_path / "a-int8.onnx")
    # without int8 dot-product instructions the int8 kernels are slower than fp32
    assert resolve_precision(str(net), "auto", int8_fast=False) == str(net)
    assert resolve_precision(str(net), "int8", int8_fast=False) == str(tmp_path / "a-int8.onnx")
    assert resolve_precision(str(net), "auto", provider="cuda", int8_fast=True) == str(net)
    expected = str(tmp_path / "a-int8.onnx") if cpu_has_int8_dot() else str(net)
    assert resolve_precision(str(net), "auto") == expected


def test_cpu_has_int8_dot_reads_the_flags() -> None:
    zen4 = "processor\t: 0\nflags\t\t: fpu avx2 avx512f avx512_vnni avx512_bf16\n"
    zen3 = "processor\t: 0\nflags\t\t: fpu avx2 vaes vpclmulqdq\n"
    alder = "flags\t\t: fpu avx2 avx_vnni\n"
    graviton = "processor\t: 0\nFeatures\t: fp asimd asimddp sha512\n"
    assert cpu_has_int8_dot(zen4) and cpu_has_int8_dot(alder) and cpu_has_int8_dot(graviton)
    assert not cpu_has_int8_dot(zen3)
    assert not cpu_has_int8_dot("model name\t: avx512_vnni in a name is not a flag\n")
    assert not cpu_has_int8_dot("")


def test_sample_positions_draws_real_positions_with_their_moves(shared_data: Path) -> None:
    games = shared_data / "pgn" / "python-chess_kasparov-deep-blue-1997.pgn"
    pos = sample_positions([games], 50, seed=3)
    assert pos.planes.shape == (50, contract.NUM_PLANES, 8, 8)
    assert len(pos.fens) == 50 and pos.played.shape == (50,)
    assert 0 <= pos.played.min() and pos.played.max() < contract.POLICY_SIZE
    plies = [2 * (int(f.split()[-1]) - 1) + (f.split()[1] == "b") for f in pos.fens]
    assert max(plies) > 60  # drawn from whole games, not their openings only
    for planes, fen, idx in zip(pos.planes, pos.fens, pos.played):
        board = chess.Board(fen)
        # the planes are this position's (no history compared: a FEN has none)
        assert np.array_equal(planes[:12], contract.encode(board)[:12])
        assert idx in contract.legal_move_indices(board)[1]
    again = sample_positions([games], 50, seed=3)
    assert np.array_equal(pos.planes, again.planes)
    assert len(sample_positions([games], 10_000).fens) < 10_000  # all there are
    with pytest.raises(FileNotFoundError):
        sample_positions(["/no/such.pgn"], 5)


def test_quantize_command_makes_an_int8_net_close_to_fp32(bundled_net: Path, tmp_path: Path,
                                                          shared_data: Path) -> None:
    out = tmp_path / "net-int8.onnx"
    # calibrated on the packaged book, the command's default
    assert trainer_main(["quantize", str(bundled_net), "--out", str(out),
                         "--positions", "128"]) == 0
    model = onnx.load(str(out))
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["precision"] == "int8" and meta["contract_version"] == "1"
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("QuantizeLinear") >= 10 and "DequantizeLinear" in ops
    # the first convolution reads the raw planes (rule-50 counter and all), unquantized
    readers = [n for n in model.graph.node if contract.INPUT_NAME in n.input]
    assert [n.op_type for n in readers] == ["Conv"]
    assert not list(tmp_path.glob(".*.tmp"))

    planes = sample_positions([shared_data / "pgn" / "python-chess_kasparov-deep-blue-1997.pgn"],
                              200, seed=9).planes
    fp32 = OnnxEvaluator(str(bundled_net), threads=1).evaluate(planes)
    int8 = OnnxEvaluator(str(out), threads=1).evaluate(planes)
    agree = float((fp32.policy.argmax(1) == int8.policy.argmax(1)).mean())
    value_gap = float(np.abs((fp32.wdl[:, 0] - fp32.wdl[:, 2])
                             - (int8.wdl[:, 0] - int8.wdl[:, 2])).mean())
    assert agree >= 0.85, agree
    assert value_gap < 0.06, value_gap
    assert np.allclose(int8.wdl.sum(1), 1.0, atol=1e-4)


def test_quantize_rejects_bad_input(bundled_net: Path, tmp_path: Path) -> None:
    from trainer.learn.quantize import quantize_net

    with pytest.raises(ValueError, match=r"\[N,112,8,8\]"):
        quantize_net(bundled_net, tmp_path / "x.onnx", np.zeros((4, 8, 8), np.float32))
    with pytest.raises(ValueError, match="method"):
        quantize_net(bundled_net, tmp_path / "x.onnx",
                     np.zeros((4, 112, 8, 8), np.float32), method="median")
    assert not (tmp_path / "x.onnx").exists()


def _uci(*lines: str) -> tuple[UciEngine, list[str]]:
    out = io.StringIO()
    eng = UciEngine(out)
    for line in lines:
        eng.handle(line)
    return eng, out.getvalue().splitlines()


def test_precision_option_is_declared() -> None:
    _, lines = _uci("uci")
    assert "option name Precision type combo default auto var auto var fp32 var int8" in lines


@pytest.mark.skipif(not SHIPPED_INT8.is_file(), reason="no int8 copy of the bundled net shipped")
def test_precision_picks_the_shipped_int8_net(bundled_net: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluator, "cpu_has_int8_dot", lambda: True)
    eng, lines = _uci("setoption name Threads value 1", "isready")
    assert lines == ["readyok"]
    assert eng.controller.load_net().name == SHIPPED_INT8.name  # auto: the int8 sibling
    eng.handle("setoption name Precision value fp32")
    assert eng.controller.load_net().name == bundled_net.name
    eng.handle("setoption name Precision value int8")
    assert eng.controller.load_net().name == SHIPPED_INT8.name
    monkeypatch.setattr(evaluator, "cpu_has_int8_dot", lambda: False)
    eng.handle("setoption name Precision value auto")  # a CPU without VNNI: fp32
    assert eng.controller.load_net().name == bundled_net.name
    eng.handle("position startpos")
    eng.handle("go nodes 40")
    eng.controller.wait()


def test_precision_int8_without_a_quantized_net_is_reported(bundled_net: Path,
                                                             tmp_path: Path) -> None:
    net = tmp_path / "plain.onnx"
    shutil.copy(bundled_net, net)
    eng, lines = _uci(f"setoption name WeightsFile value {net}",
                      "setoption name Precision value fp32", "isready",
                      "setoption name Precision value int8")
    assert any(s.startswith("info string no int8 net") and "trainer quantize" in s
               for s in lines), lines
    assert eng.controller.load_net().name == "plain.onnx"  # the working net is kept
    assert eng.values["Precision"] == "fp32"


def test_a_stale_int8_sibling_is_not_used(bundled_net: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The int8 file records its fp32 source's hash: beside a retrained (different) net, auto
    falls back to fp32 and an explicit int8 is refused, instead of playing the old net."""
    monkeypatch.setattr(evaluator, "cpu_has_int8_dot", lambda: True)
    net = tmp_path / "net.onnx"
    shutil.copy(bundled_net, net)
    shutil.copy(int8_path(bundled_net), int8_path(net))
    assert OnnxEvaluator(str(net), precision="auto").loaded == str(int8_path(net))
    shutil.copy(SEED, net)  # "retrained"
    ev = OnnxEvaluator(str(net), precision="auto")
    assert ev.loaded == str(net) and ev.precision == "fp32"
    with pytest.raises(NetError, match="another version"):
        OnnxEvaluator(str(net), precision="int8")


def test_selfplay_in_int8_quantizes_the_net_beside_it_once(bundled_net: Path,
                                                            tmp_path: Path) -> None:
    """`selfplay --precision int8` (and `loop --precision int8`) play each net's int8 sibling,
    made at start-up where it is missing or was made from another file: a run's new generation
    is never played through the previous generation's quantized copy."""
    from trainer.data import records
    from trainer.learn.quantize import ensure_int8

    net = tmp_path / "gen-0001.onnx"
    shutil.copy(bundled_net, net)
    made = ensure_int8(net, positions=64)
    assert made == int8_path(net)
    meta = {p.key: p.value for p in onnx.load(str(made)).metadata_props}
    assert meta["source_sha256"] == evaluator.file_sha256(net) and meta["precision"] == "int8"
    stamp = made.stat().st_mtime_ns
    assert ensure_int8(net, positions=64) == made and made.stat().st_mtime_ns == stamp  # kept
    assert ensure_int8(made) == made  # an int8 net is its own

    assert trainer_main(["selfplay", "--net", str(net), "--out", str(tmp_path / "g"),
                         "--precision", "int8", "--threads", "1", "--games", "2",
                         "--parallel", "2", "--full-visits", "8", "--fast-visits", "4",
                         "--max-plies", "16", "--resign-threshold", "-1"]) == 0
    assert len(records.list_records(tmp_path / "g")) == 2
    assert made.stat().st_mtime_ns == stamp  # the fresh sibling was played, not remade

    shutil.copy(SEED, net)  # the next generation's net
    ensure_int8(net, positions=64)
    meta = {p.key: p.value for p in onnx.load(str(made)).metadata_props}
    assert meta["source_sha256"] == evaluator.file_sha256(net)
    assert OnnxEvaluator(str(net), precision="int8").loaded == str(made)
    assert not list(tmp_path.glob(".*.tmp"))
    # int8 is onnxruntime's on the CPU: elsewhere a message, not a traceback
    for argv in (["--backend", "torch-cpu"], ["--backend", "cuda"]):
        with pytest.raises(SystemExit, match="selfplay: --precision int8 is onnxruntime's"):
            trainer_main(["selfplay", "--net", str(net), "--out", str(tmp_path / "h"),
                          "--games", "1", "--precision", "int8", *argv])
    with pytest.raises(SystemExit, match="selfplay: no net"):
        trainer_main(["selfplay", "--net", str(tmp_path / "none.onnx"), "--out",
                      str(tmp_path / "h"), "--games", "1", "--precision", "int8"])
