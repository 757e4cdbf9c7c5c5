"""Data: the record format, the replay window, Stockfish's labels, PGN positions, the openings
(the packaged book lies here too), atomic files. Imports no other role."""
