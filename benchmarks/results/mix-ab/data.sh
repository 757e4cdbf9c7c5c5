#!/bin/bash
# The Stockfish-labelled records of this A/B (not in git: about 9 MB, and reproducible from
# these seeds): the anchor mixed into every batch (--mix-data; stopped at 98,304 positions, 191
# and 193 files), and the held-out positions (--heldout; the nets' cards use them).
# One process per core; an interrupted sf-games keeps every finished 256-position chunk.
cd "$(dirname "$0")/../../.."
python -m trainer sf-games --out runs/sfmix/a --games 600 --seed 200 &
python -m trainer sf-games --out runs/sfmix/b --games 600 --seed 201 &
wait
python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900 &
python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901 &
wait
