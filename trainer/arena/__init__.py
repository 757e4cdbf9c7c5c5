"""Measurement: matches and their PGN, Elo and SPRT, the ladder of real opponents, held-out
agreement with Stockfish, SPSA tuning. Imports the roles below it (data, learn, play)."""
