"""Recipes: the measured ways of making a net, as TOML files, one per job.

Why files: the settings that measured best were twenty flags in the README's comments. A recipe
(``trainer/recipes/NAME.toml``) holds them with ``source``, the card or results they come from.
A command resolves its arguments as: the flag's default, then the recipe's value, then a flag
given on the command line. The keys are the flags' names without the dashes (``full-visits``;
a switch such as ``gumbel-no-rescale`` takes ``true``), so a recipe reads like the command line
it stands for. ``init = "bundled"`` is the net the engine ships.

``loop`` reads a recipe's ``[loop]`` table, ``distill`` its ``[campaign]`` and ``[train]``.
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path
from typing import Any, Sequence

RECIPES = Path(__file__).resolve().parent / "recipes"
DEFAULT_LOOP_RECIPE = "gumbel"


def names() -> list[str]:
    """The packaged recipes."""
    return sorted(p.stem for p in RECIPES.glob("*.toml"))


def recipe_path(name: str) -> Path:
    """A packaged recipe by name, or a TOML file by path."""
    p = Path(name)
    if p.suffix == ".toml":
        if not p.is_file():
            raise SystemExit(f"recipe {name}: no such file")
        return p
    packaged = RECIPES / f"{name}.toml"
    if not packaged.is_file():
        raise SystemExit(f"unknown recipe {name!r}: packaged recipes are {', '.join(names())} "
                         "(or give a .toml path)")
    return packaged


def load(name: str) -> dict[str, Any]:
    with open(recipe_path(name), "rb") as f:
        return tomllib.load(f)


def _action(parser: argparse.ArgumentParser, key: str) -> argparse.Action:
    flag = "--" + key
    for act in parser._actions:
        if flag in act.option_strings:
            return act
    raise SystemExit(f"recipe key {key!r}: the command has no flag {flag}")


def resolve_init(value: Any) -> Any:
    if value == "bundled":
        from engine.evaluator import default_net_path

        return str(default_net_path())
    return value


def apply(parser: argparse.ArgumentParser, args: argparse.Namespace, table: dict[str, Any],
          argv: Sequence[str]) -> dict[str, Any]:
    """Sets ``args`` from ``table`` where the command line did not name the flag; returns the
    values the recipe set (by destination)."""
    given = explicit(parser, argv)
    applied: dict[str, Any] = {}
    for key, value in table.items():
        act = _action(parser, key)
        if act.nargs == 0:  # a switch: true gives it, false leaves the default
            if not isinstance(value, bool):
                raise SystemExit(f"recipe key {key!r} is a switch: true or false, not {value!r}")
            value = act.const if value else act.default
        elif act.type is not None and not isinstance(value, list):
            value = act.type(value)  # type: ignore[operator]
        if act.choices is not None and value not in act.choices and act.nargs != 0:
            raise SystemExit(f"recipe key {key!r}: {value!r} is not one of {list(act.choices)}")
        if key == "init":
            value = resolve_init(value)
        if act.dest not in given:
            setattr(args, act.dest, value)
            applied[act.dest] = value
    return applied


def explicit(parser: argparse.ArgumentParser, argv: Sequence[str]) -> set[str]:
    """The destinations of the flags ``argv`` names (abbreviations included): ``argv`` parsed
    again by a copy of the parser whose defaults are all suppressed."""
    import copy

    quiet = copy.copy(parser)
    quiet._actions = [copy.copy(a) for a in parser._actions]
    quiet._option_string_actions = {s: a for a in quiet._actions for s in a.option_strings}
    for act in quiet._actions:
        act.default = argparse.SUPPRESS
        act.required = False
    quiet.exit_on_error = False
    ns, _ = quiet.parse_known_args(list(argv))
    return set(vars(ns)) & {a.dest for a in parser._actions}
