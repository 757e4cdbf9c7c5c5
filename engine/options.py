"""The UCI options: each declared once here, with its type, range and where it goes.

Floating-point options are declared as UCI ``string`` options, as lc0 does, and range-checked here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Union

from engine.controller import EngineSettings
from engine.evaluator import PRECISIONS, default_net_path
from engine.mcts import Tree
from engine.search import SearchParams

Value = Union[int, float, bool, str]


@dataclass(frozen=True)
class UciOption:
    """One option: ``kind`` is spin, check, string, combo, button, or float (sent as string)."""

    name: str
    kind: str
    default: Value
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] = ()

    def declaration(self) -> str:
        if self.kind == "button":
            return f"option name {self.name} type button"
        if self.kind == "check":
            return f"option name {self.name} type check default {str(self.default).lower()}"
        if self.kind == "spin":
            return (f"option name {self.name} type spin default {self.default} "
                    f"min {int(self.min or 0)} max {int(self.max or 0)}")
        if self.kind == "combo":
            vars_ = " ".join(f"var {c}" for c in self.choices)
            return f"option name {self.name} type combo default {self.default} {vars_}"
        default = f"{self.default:g}" if self.kind == "float" else str(self.default)
        return f"option name {self.name} type string default {default or '<empty>'}"

    def parse(self, text: str) -> Value:
        """The option's value from a setoption command; ValueError naming the problem."""
        if self.kind == "check":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"{self.name} takes true or false, not {text!r}")
            return text.lower() == "true"
        if self.kind in ("spin", "float"):
            try:
                v: float = int(text) if self.kind == "spin" else float(text)
            except ValueError:
                raise ValueError(f"{self.name} takes a number, not {text!r}") from None
            if not (self.min is not None and self.max is not None and self.min <= v <= self.max):
                raise ValueError(f"{self.name} must be between {self.min:g} and {self.max:g}, "
                                 f"not {text}")
            return v
        if self.kind == "combo":
            for c in self.choices:
                if c.lower() == text.lower():
                    return c
            raise ValueError(f"{self.name} takes one of {', '.join(self.choices)}, not {text!r}")
        return text  # "<empty>" stays as sent; to_settings reads it as empty


_P = SearchParams()
_S = EngineSettings(weights="")

OPTIONS: tuple[UciOption, ...] = (
    UciOption("WeightsFile", "string", "<default>"),
    UciOption("Backend", "combo", "cpu", choices=("cpu", "cuda")),
    UciOption("Precision", "combo", "auto", choices=PRECISIONS),
    # One search thread: gathering runs in C at ~2% of a batch's network time, so a second
    # thread only competes with onnxruntime's two for the two cores (benchmarks/speed.py).
    UciOption("Threads", "spin", 1, 1, 16),
    UciOption("NNThreads", "spin", 2, 0, 64),
    UciOption("MinibatchSize", "spin", _P.minibatch_size, 1, 1024),
    UciOption("MaxCollisions", "spin", _P.max_collisions, 0, 1024),
    UciOption("NNCacheSize", "spin", _P.nn_cache_size, 0, 50_000_000),
    UciOption("RamLimitMb", "spin", 2000, 16, 1_000_000),
    UciOption("CPuct", "float", _P.cpuct, 0.0, 100.0),
    UciOption("CPuctBase", "float", _P.cpuct_base, 1.0, 1e9),
    UciOption("CPuctFactor", "float", _P.cpuct_factor, 0.0, 1000.0),
    UciOption("FpuValue", "float", _P.fpu_reduction, -100.0, 100.0),
    UciOption("PolicyTemperature", "float", _P.policy_temperature, 0.1, 10.0),
    UciOption("VirtualLoss", "float", _P.virtual_loss, 0.0, 100.0),
    UciOption("TwoFoldDraws", "check", _P.two_fold_draws),
    UciOption("MovesLeftMaxEffect", "float", _P.moves_left_max_effect, 0.0, 1.0),
    UciOption("MovesLeftThreshold", "float", _P.moves_left_threshold, 0.0, 1.0),
    UciOption("MovesLeftSlope", "float", _P.moves_left_slope, 0.0, 1.0),
    UciOption("MovesLeftConstantFactor", "float", _P.moves_left_constant, -1.0, 1.0),
    UciOption("MovesLeftScaledFactor", "float", _P.moves_left_scaled, -2.0, 2.0),
    UciOption("MovesLeftQuadraticFactor", "float", _P.moves_left_quadratic, -1.0, 1.0),
    UciOption("SmartPruningFactor", "float", 1.33, 0.0, 10.0),
    UciOption("SpendSavedTime", "float", 1.0, 0.0, 1.0),
    UciOption("TimeHorizon", "spin", _S.time_horizon, 1, 200),
    UciOption("TimeMinHorizon", "spin", _S.time_min_horizon, 1, 200),
    UciOption("Temperature", "float", 0.0, 0.0, 100.0),
    UciOption("MultiPV", "spin", 1, 1, 500),
    UciOption("Ponder", "check", False),
    UciOption("UCI_ShowWDL", "check", False),
    UciOption("UCI_AnalyseMode", "check", False),
    UciOption("UCI_Chess960", "check", False),
    UciOption("VerboseMoveStats", "check", False),
    UciOption("MoveOverhead", "spin", _S.move_overhead_ms, 0, 100_000),
    UciOption("SyzygyPath", "string", "<empty>"),
    UciOption("OwnBook", "check", False),
    UciOption("BookFile", "string", "<default>"),
    UciOption("BookDepth", "spin", 20, 0, 1000),
    UciOption("BookVariety", "spin", 0, 0, 100),
    UciOption("Clear Tree", "button", ""),
)

BY_NAME: dict[str, UciOption] = {o.name.lower(): o for o in OPTIONS}

# What the tree may take per node at most (see Tree.bytes_bound): RamLimitMb holds.
BYTES_PER_NODE_BOUND = Tree.bytes_bound(1_000_000) // 1_000_000


def weights_path(value: Value) -> str:
    return str(default_net_path()) if value in ("<default>", "<empty>", "") else str(value)


def book_path(value: Value, weights: str) -> str:
    """BookFile: a path; ``<empty>`` none; ``<default>`` the book shipped for the net, the
    weights file's name with ``.bin`` (the bundled net has one), or none where there is none."""
    if value in ("<empty>", ""):
        return ""
    if value == "<default>":
        beside = Path(weights).with_suffix(".bin")
        return str(beside) if beside.is_file() else ""
    return str(value)


def to_settings(values: dict[str, Value]) -> tuple[EngineSettings, SearchParams]:
    """Turns option values (keyed by option name) into the controller's and search's settings."""
    v = values
    weights = weights_path(v["WeightsFile"])
    settings = EngineSettings(
        weights=weights, backend=str(v["Backend"]),
        precision=str(v["Precision"]),
        onnx_threads=int(v["NNThreads"]), threads=int(v["Threads"]), multipv=int(v["MultiPV"]),
        move_overhead_ms=int(v["MoveOverhead"]),
        smart_pruning_factor=float(v["SmartPruningFactor"]),
        spend_saved_time=float(v["SpendSavedTime"]), temperature=float(v["Temperature"]),
        time_horizon=int(v["TimeHorizon"]), time_min_horizon=int(v["TimeMinHorizon"]),
        syzygy_path="" if v["SyzygyPath"] in ("<empty>", "") else str(v["SyzygyPath"]),
        verbose_move_stats=bool(v["VerboseMoveStats"]), analyse_mode=bool(v["UCI_AnalyseMode"]),
        chess960=bool(v["UCI_Chess960"]), own_book=bool(v["OwnBook"]),
        book_file=book_path(v["BookFile"], weights),
        book_depth=int(v["BookDepth"]), book_variety=int(v["BookVariety"]))
    params = SearchParams(
        cpuct=float(v["CPuct"]), cpuct_base=float(v["CPuctBase"]),
        cpuct_factor=float(v["CPuctFactor"]), fpu_reduction=float(v["FpuValue"]),
        policy_temperature=float(v["PolicyTemperature"]),
        virtual_loss=float(v["VirtualLoss"]), minibatch_size=int(v["MinibatchSize"]),
        max_collisions=int(v["MaxCollisions"]), nn_cache_size=int(v["NNCacheSize"]),
        max_nodes=int(v["RamLimitMb"]) * 2**20 // BYTES_PER_NODE_BOUND,
        two_fold_draws=bool(v["TwoFoldDraws"]),
        moves_left_max_effect=float(v["MovesLeftMaxEffect"]),
        moves_left_threshold=float(v["MovesLeftThreshold"]),
        moves_left_slope=float(v["MovesLeftSlope"]),
        moves_left_constant=float(v["MovesLeftConstantFactor"]),
        moves_left_scaled=float(v["MovesLeftScaledFactor"]),
        moves_left_quadratic=float(v["MovesLeftQuadraticFactor"]))
    return settings, params


def defaults() -> dict[str, Value]:
    return {o.name: o.default for o in OPTIONS if o.kind != "button"}
