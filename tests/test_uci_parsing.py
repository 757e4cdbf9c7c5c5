"""Pure functions behind the UCI loop: command parsing, info formatting, options, time budget.

No engine process and no net here (a fake one at most): everything runs in milliseconds or a few
tenths of a second.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import threading
import time
from typing import Any

import chess
import numpy as np
import numpy.typing as npt
import pytest

from engine.controller import Controller, EngineSettings, PvLine, Score, SearchInfo, unsettled
from engine.evaluator import BUNDLED_NET_FILE, NetOutput, default_net_path
from engine.options import BY_NAME, OPTIONS, UciOption, defaults, to_settings
from engine.mcts import UNKNOWN, WIN
from engine.search import MoveStats, Search, SearchParams, SearchStats
from engine.timeman import MIN_HORIZON, MIN_THINK, Budget, GoLimits, budget
from engine.uci import UciError, format_info, parse_go, parse_position, parse_setoption
from tests.fakes import HashEvaluator

START_FEN = chess.STARTING_FEN


# ------------------------------------------------------------------ parse_go


def test_go_without_arguments_sets_no_limit() -> None:
    assert parse_go([]) == GoLimits()


def test_go_clock_fields() -> None:
    limits = parse_go("wtime 60000 btime 55000 winc 1000 binc 900 movestogo 17".split())
    assert limits == GoLimits(wtime=60000, btime=55000, winc=1000, binc=900, movestogo=17)


def test_go_search_limits() -> None:
    assert parse_go("depth 7".split()).depth == 7
    assert parse_go("nodes 12345".split()).nodes == 12345
    assert parse_go("mate 3".split()).mate == 3
    assert parse_go("movetime 250".split()).movetime == 250


def test_go_flags() -> None:
    assert parse_go(["infinite"]).infinite
    limits = parse_go("ponder wtime 1000 btime 2000".split())
    assert limits.ponder and not limits.infinite
    assert (limits.wtime, limits.btime) == (1000, 2000)


def test_go_arguments_in_any_order() -> None:
    a = parse_go("btime 5 wtime 7 infinite movestogo 3".split())
    b = parse_go("infinite movestogo 3 wtime 7 btime 5".split())
    assert a == b == GoLimits(wtime=7, btime=5, movestogo=3, infinite=True)


def test_go_searchmoves_end_at_the_next_keyword() -> None:
    limits = parse_go("searchmoves e2e4 d2d4 g1f3 wtime 1000 btime 1000".split())
    assert limits.searchmoves == ("e2e4", "d2d4", "g1f3")
    assert (limits.wtime, limits.btime) == (1000, 1000)
    limits = parse_go("infinite searchmoves a2a3 b2b3".split())
    assert limits.searchmoves == ("a2a3", "b2b3") and limits.infinite


def test_go_negative_clock_is_read_as_zero() -> None:
    # GUIs do send negative times once a player has flagged or after lag; not an error.
    limits = parse_go("wtime -250 btime -1".split())
    assert (limits.wtime, limits.btime) == (0, 0)


@pytest.mark.parametrize("args", [
    "foo",
    "depth",
    "depth x",
    "nodes 1.5",
    "movetime",
    "wtime 10 btime",
    "nodes -1",
    "depth -3",
    "movetime -100",
    "winc -5",
])
def test_go_malformed_raises_uci_error(args: str) -> None:
    with pytest.raises(UciError):
        parse_go(args.split())


def test_uci_error_is_a_value_error() -> None:
    assert issubclass(UciError, ValueError)


# ------------------------------------------------------------ parse_position


def test_position_startpos() -> None:
    assert parse_position(["startpos"]) == (None, [])


def test_position_startpos_moves() -> None:
    assert parse_position("startpos moves e2e4 e7e5 g1f3".split()) == (
        None, ["e2e4", "e7e5", "g1f3"])


def test_position_startpos_with_empty_move_list() -> None:
    assert parse_position("startpos moves".split()) == (None, [])


def test_position_fen() -> None:
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    assert parse_position(["fen", *fen.split()]) == (fen, [])
    assert parse_position(["fen", *fen.split(), "moves", "f1b5"]) == (fen, ["f1b5"])


def test_position_fen_without_move_counters_gets_them() -> None:
    fen4 = "8/8/8/4k3/8/8/4P3/4K3 w - -"
    fen, moves = parse_position(["fen", *fen4.split()])
    assert fen == fen4 + " 0 1" and moves == []
    assert chess.Board(fen).fen() == fen


@pytest.mark.parametrize("args", [
    "",
    "moves e2e4",
    "fen",
    "fen moves e2e4",
    "start",
    "startpos e2e4",
    "startpos fen " + START_FEN,
    "kiwipete",
])
def test_position_malformed_raises_uci_error(args: str) -> None:
    with pytest.raises(UciError):
        parse_position(args.split())


# ----------------------------------------------------------- parse_setoption


def test_setoption_name_and_value() -> None:
    assert parse_setoption("name MultiPV value 3".split()) == ("MultiPV", "3")


def test_setoption_names_and_values_with_spaces() -> None:
    assert parse_setoption("name Clear Tree".split()) == ("Clear Tree", None)
    assert parse_setoption("name WeightsFile value /tmp/my nets/a.onnx".split()) == (
        "WeightsFile", "/tmp/my nets/a.onnx")


def test_setoption_empty_value() -> None:
    assert parse_setoption("name WeightsFile value".split()) == ("WeightsFile", "")


@pytest.mark.parametrize("args", ["", "MultiPV value 3", "name", "name value 3", "value 3"])
def test_setoption_malformed_raises_uci_error(args: str) -> None:
    with pytest.raises(UciError):
        parse_setoption(args.split())


# --------------------------------------------------------------- format_info


def _info(lines: tuple[PvLine, ...]) -> SearchInfo:
    return SearchInfo(depth=5, seldepth=11, time_ms=1234, nodes=4321, nps=3500, hashfull=17,
                      lines=lines)


def test_format_info_one_line() -> None:
    line = PvLine(1, Score(cp=35), (400, 350, 250), ("e2e4", "e7e5"))
    assert format_info(_info((line,)), show_wdl=False) == [
        "info depth 5 seldepth 11 time 1234 nodes 4321 nps 3500 hashfull 17 "
        "multipv 1 score cp 35 pv e2e4 e7e5"]


def test_format_info_wdl_and_mate() -> None:
    lines = (PvLine(1, Score(mate=2), (1000, 0, 0), ("d1h5", "g7g6", "h5e8")),
             PvLine(2, Score(mate=-1), (0, 0, 1000), ("a2a3",)),
             PvLine(3, Score(cp=-120), (100, 300, 600), ("b2b3",)))
    out = format_info(_info(lines), show_wdl=True)
    assert len(out) == 3
    assert out[0].endswith("multipv 1 score mate 2 wdl 1000 0 0 pv d1h5 g7g6 h5e8")
    assert out[1].endswith("multipv 2 score mate -1 wdl 0 0 1000 pv a2a3")
    assert out[2].endswith("multipv 3 score cp -120 wdl 100 300 600 pv b2b3")


def test_format_info_without_pv_omits_pv_token() -> None:
    out = format_info(_info((PvLine(1, Score(cp=0), (0, 1000, 0), ()),)), show_wdl=False)
    assert len(out) == 1 and " pv" not in out[0] and out[0].endswith("score cp 0")


def test_format_info_lines_are_well_formed_uci() -> None:
    """Every token pair is a known info field with an integer, as a GUI parses it."""
    line = PvLine(1, Score(cp=-7), (300, 400, 300), ("g1f3", "g8f6", "c2c4"))
    for text in format_info(_info((line,)), show_wdl=True):
        tokens = text.split()
        assert tokens[0] == "info"
        i = 1
        while i < len(tokens):
            key = tokens[i]
            if key == "pv":
                assert all(re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", m) for m in tokens[i + 1:])
                break
            if key == "score":
                assert tokens[i + 1] in ("cp", "mate")
                int(tokens[i + 2])
                i += 3
            elif key == "wdl":
                assert sum(int(x) for x in tokens[i + 1:i + 4]) == 1000
                i += 4
            else:
                assert key in ("depth", "seldepth", "time", "nodes", "nps", "hashfull", "multipv")
                int(tokens[i + 1])
                i += 2


# ------------------------------------------------------------------- options


def test_option_names_are_unique_ignoring_case() -> None:
    names = [o.name.lower() for o in OPTIONS]
    assert len(names) == len(set(names))
    assert set(BY_NAME) == set(names)


def test_option_names_do_not_clash_with_setoption_keywords() -> None:
    for o in OPTIONS:
        words = o.name.lower().split()
        assert "name" not in words and "value" not in words and "type" not in words, o.name


def _parse_declaration(line: str) -> dict[str, object]:
    """Reads an `option` line by the UCI grammar; fails the test where it breaks the grammar."""
    tokens = line.split()
    assert tokens[:2] == ["option", "name"], line
    k = tokens.index("type")
    name = " ".join(tokens[2:k])
    kind = tokens[k + 1]
    assert kind in ("check", "spin", "combo", "button", "string"), line
    rest = tokens[k + 2:]
    variants: list[str] = []
    fields: dict[str, object] = {"name": name, "type": kind, "var": variants}
    i = 0
    while i < len(rest):
        key = rest[i]
        assert key in ("default", "min", "max", "var"), f"unexpected {key!r} in {line!r}"
        j = i + 1
        while j < len(rest) and rest[j] not in ("default", "min", "max", "var"):
            j += 1
        value = " ".join(rest[i + 1:j])
        if key == "var":
            variants.append(value)
        else:
            assert key not in fields, f"{key} twice in {line!r}"
            fields[key] = value
        i = j
    return fields


@pytest.mark.parametrize("opt", OPTIONS, ids=lambda o: o.name)
def test_option_declaration_is_valid_uci(opt: UciOption) -> None:
    line = opt.declaration()
    assert "\n" not in line
    f = _parse_declaration(line)
    assert f["name"] == opt.name
    kind = f["type"]
    if kind == "button":
        assert set(f) == {"name", "type", "var"} and not f["var"]
        return
    assert "default" in f, line
    default = str(f["default"])
    if kind == "check":
        assert default in ("true", "false")
        assert opt.parse(default) == opt.default
    elif kind == "spin":
        lo, hi, d = int(str(f["min"])), int(str(f["max"])), int(default)
        assert lo <= d <= hi, line
        assert (lo, hi) == (opt.min, opt.max)
        assert opt.parse(default) == opt.default
    elif kind == "combo":
        assert f["var"] and default in f["var"], line  # type: ignore[operator]
        assert opt.parse(default) == opt.default
    else:  # string, and floats sent as strings
        assert default != "", "an empty string default must be sent as <empty>"
        parsed = opt.parse(default)
        if opt.kind == "float":
            assert parsed == pytest.approx(float(opt.default), rel=1e-5)
        else:
            assert parsed == opt.default


@pytest.mark.parametrize("opt", [o for o in OPTIONS if o.kind in ("spin", "float")],
                         ids=lambda o: o.name)
def test_numeric_option_ranges(opt: UciOption) -> None:
    assert opt.min is not None and opt.max is not None
    assert opt.min <= float(opt.default) <= opt.max
    lo, hi = opt.min, opt.max
    if opt.kind == "spin":
        assert opt.parse(str(int(lo))) == lo
        assert opt.parse(str(int(hi))) == hi
        for bad in (str(int(lo) - 1), str(int(hi) + 1)):
            with pytest.raises(ValueError, match=opt.name):
                opt.parse(bad)
        with pytest.raises(ValueError, match=opt.name):
            opt.parse("1.5")
    else:
        assert opt.parse(repr(lo)) == pytest.approx(lo)
        assert opt.parse(repr(hi)) == pytest.approx(hi)
        for bad in (repr(lo - 1.0), repr(hi * 2 + 1.0)):
            with pytest.raises(ValueError, match=opt.name):
                opt.parse(bad)
        for bad in ("nan", "inf", "-inf"):
            with pytest.raises(ValueError, match=opt.name):
                opt.parse(bad)
    with pytest.raises(ValueError, match=opt.name):
        opt.parse("abc")
    with pytest.raises(ValueError, match=opt.name):
        opt.parse("")


def test_documented_bad_values_are_rejected() -> None:
    with pytest.raises(ValueError):
        BY_NAME["multipv"].parse("0")
    with pytest.raises(ValueError):
        BY_NAME["threads"].parse("99999")
    with pytest.raises(ValueError):
        BY_NAME["cpuct"].parse("abc")
    assert BY_NAME["multipv"].parse("3") == 3
    assert BY_NAME["cpuct"].parse("2.5") == pytest.approx(2.5)


def test_check_option_parse() -> None:
    opt = BY_NAME["uci_showwdl"]
    assert opt.parse("true") is True and opt.parse("TRUE") is True
    assert opt.parse("false") is False and opt.parse("False") is False
    for bad in ("yes", "1", "", "on"):
        with pytest.raises(ValueError, match="UCI_ShowWDL"):
            opt.parse(bad)


def test_combo_option_parse_is_case_insensitive_and_canonical() -> None:
    opt = BY_NAME["backend"]
    assert opt.parse("CPU") == "cpu"
    with pytest.raises(ValueError, match="Backend"):
        opt.parse("tpu")


def test_string_option_empty_marker() -> None:
    opt = BY_NAME["weightsfile"]
    assert opt.parse("/some/path with space.onnx") == "/some/path with space.onnx"
    # "<empty>" is what GUIs send for an empty string; the settings read it as empty.
    values = defaults()
    values["SyzygyPath"] = BY_NAME["syzygypath"].parse("<empty>")
    assert to_settings(values)[0].syzygy_path == ""
    values["WeightsFile"] = "<empty>"
    assert to_settings(values)[0].weights.endswith(BUNDLED_NET_FILE)


def test_defaults_cover_every_non_button_option() -> None:
    d = defaults()
    assert set(d) == {o.name for o in OPTIONS if o.kind != "button"}


def test_to_settings_defaults() -> None:
    settings, params = to_settings(defaults())
    assert isinstance(settings, EngineSettings) and isinstance(params, SearchParams)
    assert settings.weights == str(default_net_path())
    assert settings.weights.endswith(BUNDLED_NET_FILE)
    assert settings.multipv == 1
    assert settings.threads == BY_NAME["threads"].default
    assert settings.move_overhead_ms == BY_NAME["moveoverhead"].default
    ref = SearchParams()
    assert params.cpuct == pytest.approx(ref.cpuct)
    assert params.minibatch_size == ref.minibatch_size


def test_to_settings_maps_values() -> None:
    values = defaults()
    values.update({"WeightsFile": "/nets/x.onnx", "MultiPV": 4, "Threads": 3,
                   "MoveOverhead": 250, "CPuct": 2.5, "Temperature": 0.5,
                   "SmartPruningFactor": 0.0, "MinibatchSize": 64, "NNThreads": 1,
                   "Backend": "cuda", "TwoFoldDraws": False})
    settings, params = to_settings(values)
    assert settings.weights == "/nets/x.onnx"
    assert settings.multipv == 4 and settings.threads == 3
    assert settings.move_overhead_ms == 250
    assert settings.temperature == pytest.approx(0.5)
    assert settings.smart_pruning_factor == 0.0
    assert settings.onnx_threads == 1 and settings.backend == "cuda"
    assert params.cpuct == pytest.approx(2.5)
    assert params.minibatch_size == 64
    assert params.two_fold_draws is False


def test_to_settings_empty_weights_means_bundled_net() -> None:
    values = defaults()
    values["WeightsFile"] = ""
    assert to_settings(values)[0].weights == str(default_net_path())


def test_to_settings_ram_limit_bounds_the_tree() -> None:
    small, big = defaults(), defaults()
    small["RamLimitMb"], big["RamLimitMb"] = 16, 4000
    assert 0 < to_settings(small)[1].max_nodes < to_settings(big)[1].max_nodes


# Options the UCI loop reads itself rather than through the settings.
_READ_BY_THE_LOOP = {"Ponder", "UCI_ShowWDL"}


def _other_value(opt: UciOption) -> object:
    if opt.kind == "check":
        return not opt.default
    if opt.kind == "combo":
        return next(c for c in opt.choices if c != opt.default)
    if opt.kind == "spin":
        return opt.default + 1 if opt.default < opt.max else opt.default - 1  # type: ignore[operator]
    if opt.kind == "float":
        d = float(opt.default)
        return (d + opt.max) / 2 if d < opt.max else (d + opt.min) / 2  # type: ignore[operator]
    return "/elsewhere/net.onnx"


@pytest.mark.parametrize(
    "opt", [o for o in OPTIONS if o.kind != "button" and o.name not in _READ_BY_THE_LOOP],
    ids=lambda o: o.name)
def test_every_option_reaches_the_settings(opt: UciOption) -> None:
    """Changing any option changes what the controller or the search gets (none is a dud)."""
    values = defaults()
    base = to_settings(values)
    values[opt.name] = _other_value(opt)  # type: ignore[assignment]
    changed = to_settings(values)
    assert changed != base, f"{opt.name} does not reach EngineSettings or SearchParams"


# ------------------------------------------------------------------- budget

_LEFT_MS = (0, 1, 20, 100, 150, 500, 1000, 3000, 10_000, 60_000, 600_000)
_INC_MS = (0, 100, 1000, 10_000)
_MTG = (None, 1, 2, 5, 40)
_PLY = (0, 60, 300)
_OVERHEAD = (0, 100, 1000)
_SAVED = (0.0, 3.0)


def test_budget_without_clock_is_none() -> None:
    assert budget(GoLimits(), True, 0, 100) is None
    assert budget(GoLimits(infinite=True), True, 0, 100) is None
    assert budget(GoLimits(depth=5, nodes=100), False, 10, 100) is None
    # only the other side's clock: no limit for us
    assert budget(GoLimits(btime=1000), True, 0, 100) is None


def test_budget_movetime() -> None:
    assert budget(GoLimits(movetime=1000), True, 0, 100) == Budget(0.9, 0.9)
    assert budget(GoLimits(movetime=1000), False, 0, 0) == Budget(1.0, 1.0)
    tiny = budget(GoLimits(movetime=50), True, 0, 100)
    assert tiny is not None and tiny.target == tiny.hard == MIN_THINK
    # movetime wins over the clock
    b = budget(GoLimits(movetime=300, wtime=100_000, btime=100_000), True, 0, 100)
    assert b is not None
    assert (b.target, b.hard) == (pytest.approx(0.2), pytest.approx(0.2))


def test_budget_uses_the_side_to_move_clock() -> None:
    limits = GoLimits(wtime=100_000, btime=2_000, winc=0, binc=0)
    white = budget(limits, True, 10, 50)
    black = budget(limits, False, 11, 50)
    assert white is not None and black is not None
    assert white.target > 10 * black.target
    assert black.hard <= 2.0 - 0.05


def test_budget_never_exceeds_time_left_minus_overhead() -> None:
    checked = 0
    for left, inc, mtg, ply, overhead, saved in itertools.product(_LEFT_MS, _INC_MS, _MTG, _PLY,
                                                                  _OVERHEAD, _SAVED):
        for white in (True, False):
            limits = (GoLimits(wtime=left, btime=10**7, winc=inc, binc=0, movestogo=mtg) if white
                      else GoLimits(wtime=10**7, btime=left, winc=0, binc=inc, movestogo=mtg))
            b = budget(limits, white, ply, overhead, saved=saved)
            case = (f"left={left} inc={inc} movestogo={mtg} ply={ply} overhead={overhead} "
                    f"saved={saved}: {b}")
            assert b is not None, case
            usable = (left - overhead) / 1000.0
            assert MIN_THINK <= b.target <= b.hard, case
            assert b.hard <= max(MIN_THINK, usable) + 1e-9, case
            if usable > MIN_THINK:
                # a reserve beyond the overhead is kept, whatever the increment
                assert b.hard <= max(MIN_THINK, 0.9 * usable) + 1e-9, case
            checked += 1
    assert checked == (2 * len(_LEFT_MS) * len(_INC_MS) * len(_MTG) * len(_PLY) * len(_OVERHEAD)
                       * len(_SAVED))


def test_budget_adds_saved_time_to_the_target_only_under_the_ceiling() -> None:
    limits = GoLimits(wtime=10_000, btime=10_000, winc=100, binc=100)
    plain, more = budget(limits, True, 20, 100), budget(limits, True, 20, 100, saved=0.2)
    assert plain is not None and more is not None
    assert more.target == pytest.approx(plain.target + 0.2)
    assert more.hard >= more.target
    # however much was saved, the move stays under half the clock left
    lots = budget(limits, True, 20, 100, saved=100.0)
    assert lots is not None and lots.hard <= 0.5 * (10.0 - 0.1) + 1e-9
    # a fixed movetime is not a clock: nothing is added
    assert budget(GoLimits(movetime=500), True, 20, 100, saved=1.0) == Budget(0.4, 0.4)
    assert budget(limits, True, 20, 100, saved=-1.0) == plain


def test_budget_horizon_options_share_the_clock_over_more_or_fewer_moves() -> None:
    """TimeHorizon and TimeMinHorizon: a longer horizon spends less now, a floor holds late in
    the game, and no horizon takes the flag nearer than the ceiling allows."""
    limits = GoLimits(wtime=10_000, btime=10_000, winc=100, binc=100)
    plain = budget(limits, True, 0, 30)
    slow = budget(limits, True, 0, 30, horizon=48)
    assert plain is not None and slow is not None and slow.target < 0.6 * plain.target
    # At ply 200 the default horizon is down to its floor; a higher floor spends less.
    late, floor = budget(limits, True, 200, 30), budget(limits, True, 200, 30, min_horizon=24)
    assert late is not None and floor is not None and floor.target < 0.6 * late.target
    assert budget(limits, True, 200, 30, horizon=48) == late  # past both horizons: the floor
    for horizon in (1, 2, 200):
        for left in (50, 1_000, 10_000):
            b = budget(GoLimits(wtime=left, btime=left), True, 0, 30, horizon=horizon,
                       min_horizon=1)
            assert b is not None and b.hard <= max(MIN_THINK, 0.9 * (left - 30) / 1000) + 1e-9


def _go_to_the_end(ctrl: Controller, limits: GoLimits) -> None:
    """Searches until the controller's own limits stop it (wait() would stop it at once)."""
    ctrl.go(limits)
    deadline = time.monotonic() + 10.0
    while ctrl.is_searching() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not ctrl.is_searching(), "the search did not stop by itself"
    ctrl.wait()


def test_time_saved_on_a_forced_move_goes_to_the_next_one() -> None:
    """A move with one legal reply stops at its first visit: its unspent target is kept for the
    side's next clock move, spent there (the store empties), and forgotten at a new game."""
    ctrl = Controller(lambda i: None, lambda m, p: None, lambda s: None,
                      EngineSettings(weights=str(default_net_path()), precision="fp32"))
    clock = GoLimits(wtime=10_000, btime=10_000, winc=100, binc=100)
    ctrl.set_position("k7/8/8/8/8/8/1r6/K7 w - - 0 1", [])  # Kxb2 is the only move
    ctrl.load_net()  # not on the move's clock
    t0 = time.monotonic()
    _go_to_the_end(ctrl, clock)
    spent = time.monotonic() - t0  # at most what the move took, however busy the machine
    target = budget(clock, True, 0, EngineSettings(weights="").move_overhead_ms)
    assert target is not None
    assert target.target - spent <= ctrl._saved[chess.WHITE] <= target.target
    assert ctrl._saved[chess.WHITE] > 0.0
    assert ctrl._saved[chess.BLACK] == 0.0
    ctrl.set_position("k7/8/8/8/8/8/1r6/K7 w - - 0 1", [])
    _go_to_the_end(ctrl, GoLimits(movetime=50))  # a fixed movetime neither spends nor keeps it
    assert ctrl._saved[chess.WHITE] == 0.0
    _go_to_the_end(ctrl, clock)
    assert ctrl._saved[chess.WHITE] > 0.0
    ctrl.new_game()
    assert ctrl._saved == {chess.WHITE: 0.0, chess.BLACK: 0.0}


def test_the_controller_shares_the_clock_over_its_time_horizon() -> None:
    """TimeHorizon reaches the budget: with a horizon of one move, the forced move's unspent
    target (kept for the next move) is most of the clock, far above the default's target."""
    ctrl = Controller(lambda i: None, lambda m, p: None, lambda s: None,
                      EngineSettings(weights=str(default_net_path()), precision="fp32",
                                     time_horizon=1, time_min_horizon=1))
    clock = GoLimits(wtime=10_000, btime=10_000, winc=100, binc=100)
    ctrl.set_position("k7/8/8/8/8/8/1r6/K7 w - - 0 1", [])  # Kxb2 is the only move
    ctrl.load_net()
    t0 = time.monotonic()
    _go_to_the_end(ctrl, clock)
    spent = time.monotonic() - t0
    one = budget(clock, True, 0, 30, horizon=1, min_horizon=1)
    default = budget(clock, True, 0, 30)
    assert one is not None and default is not None and one.target > 10 * default.target
    assert one.target - spent <= ctrl._saved[chess.WHITE] <= one.target


def test_budget_movestogo_one_spends_most_but_not_all() -> None:
    b = budget(GoLimits(wtime=10_000, btime=10_000, movestogo=1), True, 80, 100)
    assert b is not None
    usable = 10.0 - 0.1
    assert 0.5 * usable <= b.target <= b.hard <= 0.9 * usable + 1e-9


def test_budget_movestogo_divides_the_clock() -> None:
    b5 = budget(GoLimits(wtime=60_000, movestogo=5), True, 0, 100)
    b40 = budget(GoLimits(wtime=60_000, movestogo=40), True, 0, 100)
    assert b5 is not None and b40 is not None
    assert b5.target > 4 * b40.target
    # The overhead is kept back for each of the 40 moves (and two more), as Stockfish does.
    assert b40.target == pytest.approx((60 - 0.1 * 42) / 40)


def test_budget_sudden_death_with_little_time() -> None:
    b = budget(GoLimits(wtime=1000, btime=1000), True, 100, 100)
    assert b is not None
    assert b.target <= 0.9 / MIN_HORIZON + 1e-9  # at least MIN_HORIZON more moves
    assert b.hard <= 0.3 * 0.9 + 1e-9
    nothing = budget(GoLimits(wtime=50, btime=50), True, 100, 100)
    assert nothing is not None and nothing.target == nothing.hard == MIN_THINK


def test_budget_increment_is_spent() -> None:
    no_inc = budget(GoLimits(wtime=30_000), True, 20, 100)
    inc = budget(GoLimits(wtime=30_000, winc=2_000), True, 20, 100)
    assert no_inc is not None and inc is not None
    assert inc.target > no_inc.target + 1.0


@pytest.mark.parametrize("base_ms,inc_ms,moves,lag,hard_every,overhead_ms", [
    (2_000, 0, 30, 0.010, 4, 100),
    (60_000, 0, 60, 0.020, 4, 100),
    (120_000, 0, 60, 0.020, 4, 100),
    (120_000, 0, 60, 0.010, 1, 100),
    (1_000, 100, 120, 0.050, 1, 100),
    (10_000, 100, 120, 0.050, 1, 100),
    # The default overhead, with a round trip near it (our match runner's is under 10 ms).
    (10_000, 100, 150, 0.025, 1, None),
    (1_000, 100, 150, 0.025, 1, None),
    (3_000, 0, 60, 0.020, 4, None),
])
def test_budget_survives_a_long_game(base_ms: int, inc_ms: int, moves: int, lag: float,
                                     hard_every: int, overhead_ms: int | None) -> None:
    """A simulated game: the engine spends its hard limit every ``hard_every`` moves and its
    target otherwise, and each move loses ``lag`` seconds more (the GUI round trip, below the
    MoveOverhead; None: the default). The clock must last ``moves`` moves without flagging."""
    overhead = EngineSettings(weights="").move_overhead_ms if overhead_ms is None else overhead_ms
    left = base_ms / 1000.0
    for move in range(moves):
        b = budget(GoLimits(wtime=int(left * 1000), btime=base_ms, winc=inc_ms, binc=inc_ms),
                   True, 2 * move, overhead)
        assert b is not None
        left -= (b.hard if move % hard_every == 0 else b.target) + lag
        assert left > 0, f"flagged on move {move + 1} with {base_ms}+{inc_ms}"
        left += inc_ms / 1000.0


def _root(visits_q: list[tuple[int, float]]) -> list[MoveStats]:
    return [MoveStats(move=i, prior=0.1, visits=v, q=q, d=0.2, m=0.0, bound=UNKNOWN, plies=0,
                      node=i) for i, (v, q) in enumerate(visits_q)]


def test_unsettled_root() -> None:
    assert not unsettled(_root([(100, 0.1)]))
    assert not unsettled(_root([(100, 0.1), (60, 0.05)]))  # the most visited is also valued most
    assert unsettled(_root([(100, 0.1), (60, 0.2)]))  # a well-searched runner-up valued higher
    assert not unsettled(_root([(100, 0.1), (10, 0.5)]))  # too few visits to trust its Q
    won = dataclasses.replace(_root([(100, 0.1)])[0], bound=WIN)
    assert not unsettled([won, *_root([(60, 0.9)])])


class _Root:
    """What the controller's stop rule reads from a search: visits and the ranked root."""

    def __init__(self, ranked: list[MoveStats]) -> None:
        self.ranked = ranked
        self.stats = SearchStats(playouts=sum(m.visits for m in ranked))

    def root_visits(self) -> int:
        return self.stats.playouts

    def ranked_moves(self) -> list[MoveStats]:
        return self.ranked


def test_unsettled_root_spends_up_to_the_hard_limit() -> None:
    ctrl = Controller(lambda i: None, lambda m, p: None, lambda s: None,
                      EngineSettings(weights="unused.onnx"))
    clock, limits = Budget(target=0.2, hard=0.5), GoLimits(wtime=10_000)
    settled, unsure = _Root(_root([(100, 0.2), (60, 0.1)])), _Root(_root([(100, 0.1), (60, 0.2)]))
    stop = ctrl._limits_reached
    assert not stop(settled, limits, clock, 0.1, False)  # type: ignore[arg-type]
    assert stop(settled, limits, clock, 0.2, False)  # type: ignore[arg-type]
    assert not stop(unsure, limits, clock, 0.3, False)  # type: ignore[arg-type]
    assert stop(unsure, limits, clock, 0.5, False)  # type: ignore[arg-type]
    # A batch still in flight counts against the hard limit (the search stops between batches),
    # not against the target.
    assert not stop(unsure, limits, clock, 0.45, False)  # type: ignore[arg-type]
    assert stop(unsure, limits, clock, 0.45, False, 0.06)  # type: ignore[arg-type]
    assert not stop(settled, limits, clock, 0.1, False, 0.06)  # type: ignore[arg-type]


class _SlowEvaluator(HashEvaluator):
    """The fake net at a fixed cost per position, at least: a slow CPU, or a busy one."""

    def evaluate(self, planes: npt.NDArray[np.float32]) -> NetOutput:
        time.sleep(0.002 * len(planes))
        return super().evaluate(planes)


def test_a_short_clock_shrinks_the_batch() -> None:
    """Once a clock search has measured the net, a move with little time left sends smaller
    batches, so that the batch in flight when time is up cannot flag the engine."""
    moves_done = threading.Event()
    ctrl = Controller(lambda i: None, lambda m, p: moves_done.set(), lambda s: None,
                      EngineSettings(weights="unused.onnx", threads=1))
    s = ctrl.settings
    ctrl.search = Search(_SlowEvaluator(), ctrl.params)
    ctrl._net_key = (s.weights, s.backend, s.precision, s.onnx_threads)
    batches: list[int | None] = []
    run_worker = ctrl.search.run_worker

    def spy(should_stop: Any, node_limit: int | None = None,
            max_batch: int | None = None) -> None:
        batches.append(max_batch)
        run_worker(should_stop, node_limit, max_batch)

    ctrl.search.run_worker = spy  # type: ignore[method-assign]
    for limits in (GoLimits(movetime=300), GoLimits(wtime=10_000, winc=100),
                   GoLimits(wtime=200, winc=100)):
        moves_done.clear()
        ctrl.go(limits)
        assert moves_done.wait(10)
    minibatch = ctrl.params.minibatch_size
    assert batches[0] is None  # nothing measured yet: full batches
    # 2 ms a leaf or more: a full batch fits a move with 10 s left, not one with 0.2 s.
    assert batches[2] is not None and batches[2] < minibatch // 2
    assert batches[1] is not None and batches[1] > batches[2]


def test_budget_is_pure() -> None:
    limits = GoLimits(wtime=5000, btime=5000, winc=50, binc=50)
    assert budget(limits, True, 30, 100) == budget(limits, True, 30, 100)
    assert dataclasses.replace(limits) == limits


def test_moves_left_options_reach_the_search_params() -> None:
    values = defaults()
    assert to_settings(values)[1].moves_left_max_effect == 0.0  # off by default
    values["MovesLeftMaxEffect"] = BY_NAME["movesleftmaxeffect"].parse("0.0345")
    values["MovesLeftThreshold"] = BY_NAME["movesleftthreshold"].parse("0.9")
    values["MovesLeftQuadraticFactor"] = BY_NAME["movesleftquadraticfactor"].parse("-0.5")
    params = to_settings(values)[1]
    assert params.moves_left_max_effect == pytest.approx(0.0345)
    assert params.moves_left_threshold == pytest.approx(0.9)
    assert params.moves_left_quadratic == pytest.approx(-0.5)
    with pytest.raises(ValueError, match="MovesLeftScaledFactor"):
        BY_NAME["movesleftscaledfactor"].parse("3")
