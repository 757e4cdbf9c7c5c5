"""The opening book shipped in the package (trainer/data/README.md says what it is).

Every command's default ``--openings`` names this one file, so the installed package needs no
data beside it.
"""

from pathlib import Path

DEFAULT_OPENINGS = Path(__file__).resolve().parent / "openings-8moves_v3-2000.pgn"
"""2,000 balanced 8-move lines from official-stockfish/books' 8moves_v3.pgn (CC0-1.0)."""
