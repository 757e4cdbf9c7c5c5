"""The README's commands as written: its first two are the install-and-run and the test commands
(CI runs the second), every ``python -m trainer`` line parses with the trainer's own parser, and
every file or script it names is there."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from benchmarks.readme_commands import readme_commands
from trainer.__main__ import PASSTHROUGH, build_parser

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def test_the_first_two_readme_commands() -> None:
    first, second = readme_commands()[:2]
    assert first == "pip install . && zerosum"
    assert second.startswith("pip install torch==2.13.0 && ") and second.endswith("pytest -q")
    assert second in (REPO / ".ci" / "run").read_text()


@pytest.mark.parametrize("line", [c for c in readme_commands() if c.startswith("python -m trainer")])
def test_trainer_commands_parse(line: str) -> None:
    argv = shlex.split(line)[3:]
    if argv[0] in PASSTHROUGH:  # match and ladder parse their own arguments
        from trainer.arena.ladder import build_ladder_parser
        from trainer.arena.match_cli import build_match_parser

        parser = build_match_parser() if argv[0] == "match" else build_ladder_parser()
        parser.parse_args(argv[1:])
        return
    args = build_parser().parse_args(argv)
    assert callable(args.func)


def test_the_paths_it_names_exist() -> None:
    named = set(re.findall(r"`((?:nets|trainer|benchmarks|docs|engine)/[\w./-]+)`", README))
    named |= set(re.findall(r"--config (benchmarks/[\w./-]+)", README))
    assert named
    missing = [p for p in sorted(named) if not (REPO / p).exists() and "*" not in p]
    assert not missing, missing
