#!/bin/bash
# The Stockfish-labelled records run h uses (not in git: about 9 MB, and reproducible from
# these seeds): the anchor mixed into every batch (--mix-data), and the held-out positions each
# generation is measured on (--heldout; the same files as the bundled nets' cards use).
# One process per core; an interrupted sf-games keeps every finished 256-position chunk.
cd "$(dirname "$0")/../../.."
python -m trainer sf-games --out runs/sfmix/a --games 600 --seed 200 &
python -m trainer sf-games --out runs/sfmix/b --games 600 --seed 201 &
wait
python -m trainer sf-games --out runs/sf-heldout/a --games 24 --seed 900 &
python -m trainer sf-games --out runs/sf-heldout/b --games 24 --seed 901 &
wait
