"""The trainer's folder by roles: each role imports only the roles below it, and the engine never
imports the trainer (it runs without torch)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Lowest first. A module may import its own role and the roles before it.
ORDER = ["data", "learn", "play", "arena", "muzero", "loop", "dist", "cli"]
CLI = {"__main__", "cli_rl", "recipe", "distill", "muzero.cli", "__init__"}


def role(module: str) -> str:
    """``trainer.data.records`` -> data; the command-line modules -> cli."""
    parts = module.split(".")[1:]
    name = ".".join(parts)
    if name in CLI or not parts:
        return "cli"
    return parts[0] if parts[0] in ORDER else name


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return {m for m in found if m.startswith("trainer.")}


def test_each_role_imports_only_the_roles_below_it() -> None:
    wrong = []
    for path in sorted((REPO / "trainer").rglob("*.py")):
        rel = path.relative_to(REPO).with_suffix("")
        module = ".".join(rel.parts).removesuffix(".__init__")
        mine = role(module)
        assert mine in ORDER, f"{module}: no role (put it in a role's folder)"
        for target in imports(path):
            theirs = role(target)
            if theirs in ORDER and ORDER.index(theirs) > ORDER.index(mine):
                wrong.append(f"{module} ({mine}) imports {target} ({theirs})")
    assert not wrong, "\n".join(wrong)


def test_the_engine_does_not_import_the_trainer() -> None:
    for path in sorted((REPO / "engine").glob("*.py")):
        assert not imports(path), f"{path.name} imports the trainer"


def test_no_stray_modules_at_the_top_of_the_trainer() -> None:
    top = {p.stem for p in (REPO / "trainer").glob("*.py")}
    assert top <= CLI | {"loop"}, top - CLI - {"loop"}
