# C-level declarations of the chess core, so that other Cython modules (the MCTS) can
# `from engine.board cimport Position, State, ...` and call the hot paths without Python.

from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint64_t

cdef enum:
    MAX_MOVES = 256          # no legal chess position has more than 218 moves
    NUM_PLANES = 112
    PLANE_FLOATS = 112 * 64  # one encoded position, [112, 8, 8] float32

# Piece types follow python-chess (PAWN=1 .. KING=6); colours too (BLACK=0, WHITE=1).
# A square's piece code is `type | colour << 3`, 0 when empty.
cdef enum:
    PAWN = 1
    KNIGHT = 2
    BISHOP = 3
    ROOK = 4
    QUEEN = 5
    KING = 6

# Castling-right bits of State.castling: WK, BK the h-side rook (kingside), WQ, BQ the a-side
# rook (queenside), on any file in Chess960.
cdef enum:
    WK = 1
    WQ = 2
    BK = 4
    BQ = 8

ctypedef struct State:
    uint64_t pieces[7]   # by piece type, index 1..6 (index 0 unused), both colours
    uint64_t colors[2]   # by colour: [BLACK, WHITE]
    uint64_t key         # Zobrist key: same value iff same python-chess _transposition_key
    uint8_t board[64]    # piece code per square
    int32_t move         # the move that led here (0 at the root)
    int32_t hmc          # half-move clock
    int32_t fullmove
    int16_t reps         # earlier occurrences of this key in the history
    int16_t rep_dist     # plies back to the most recent earlier occurrence, 0 if none
    int8_t ep            # en-passant target after a double push (python-chess's ep_square), -1 if none
    uint8_t castling     # WK | WQ | BK | BQ, always "clean" (king and rook on their squares)
    uint8_t turn         # 1 white, 0 black
    uint8_t ep_legal     # a legal en-passant capture exists (then ep is part of the key)
    uint8_t chess960     # castling is written king-takes-own-rook (UCI's Chess960 convention)
    int8_t rook_sq[4]    # the rook of each castling right, by bit index (WK, WQ, BK, BQ)

# Pure functions on one State; nogil so the MCTS can run them without the interpreter.
cdef int gen_legal(const State* s, int* out) noexcept nogil
cdef void make_move(const State* src, State* dst, int move) noexcept nogil
cdef bint state_in_check(const State* s) noexcept nogil
cdef bint state_insufficient_material(const State* s) noexcept nogil
cdef int state_policy_index(const State* s, int move) noexcept nogil

cdef class Position:
    cdef State* states       # states[0] is the root, states[n] the current position
    cdef int n               # = ply
    cdef int cap
    cdef str root_fen        # python-chess FEN of the root, raw en-passant square kept
    cdef int root_ep         # the root FEN's en-passant square as written (-1 if none)
    cdef bint root_is_start  # root is the standard start position (history fill stays zero)

    cdef inline State* cur(self) noexcept nogil:
        return &self.states[self.n]
    cdef int reserve(self, int plies) except -1 nogil
    cdef int push_c(self, int move) except -1 nogil
    cdef void push_unchecked(self, int move) noexcept nogil   # after reserve()
    cdef void pop_c(self) noexcept nogil
    cdef void encode_c(self, float* out) noexcept nogil

    cpdef Position copy(self)
    cpdef void push(self, int move) except *
    cpdef void pop(self) except *
    cpdef int ply(self)
    cpdef int legal_moves(self, int[::1] out) except -1
    cpdef bint in_check(self)
    cpdef int turn(self)
    cpdef int halfmove_clock(self)
    cpdef unsigned long long key(self)
    cpdef int repetitions(self)
    cpdef int repetition_distance(self)
    cpdef bint insufficient_material(self)
    cpdef int policy_index(self, int move)
    cpdef void encode(self, float[:, :, ::1] out) except *

cpdef long long perft(Position pos, int depth) except -1
