"""A fast chess position for the search: bitboard move generation, make/unmake, repetitions and
the lc0 input encoding, with python-chess as the reference it is tested against.

Representation
--------------
Squares are 0..63 (a1=0, h8=63) and piece types/colours follow python-chess (PAWN=1..KING=6,
BLACK=0, WHITE=1). A :c:type:`State` holds one position: a bitboard per piece type and per colour,
a mailbox (piece code ``type | colour << 3`` per square), the Zobrist key, the clocks, castling
rights and en-passant square, plus the repetition count of this position within the game.

A :class:`Position` is a game: a growable C array of States, ``states[0]`` the root (from a FEN)
and ``states[ply]`` the current position. ``push`` copies the current State one slot up and
applies the move there, so ``pop`` is just a decrement and the whole history stays available
for repetition detection and for the 8-position network input, without any Python objects.

Moves are ints ``from | to << 6 | promotion << 12`` (promotion 0, or KNIGHT..QUEEN); castling is
the king's two-square move, as in UCI, or in Chess960 the king taking its own rook (UCI's Chess960
convention, python-chess's too). Chess960 castling rights name their rooks (``State.rook_sq``);
standard chess is the special case with the rooks on a and h.

Legal moves come from pin and check masks (no make/test per move): king moves are tested against
the attacks with the king lifted off the board, other pieces are limited to the squares that block
or capture a single checker, pinned pieces to the line through their king; only en passant, which
removes two pieces from one rank, is tested by recomputing the attacks on the king.

Sliding attacks use the classical ray method: one precomputed ray per direction, cut at the first
blocker found by a bit scan.
"""

from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset, memcpy

import chess

from engine import contract

cdef extern from *:
    """
    static inline int zs_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int zs_clz(unsigned long long x) { return __builtin_clzll(x); }
    static inline int zs_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    """
    int zs_ctz(uint64_t x) nogil
    int zs_clz(uint64_t x) nogil
    int zs_popcount(uint64_t x) nogil

cdef enum:
    BLACK = 0
    WHITE = 1
    INITIAL_CAPACITY = 64

cdef uint64_t DARK_SQUARES = 0xAA55AA55AA55AA55ULL

cdef uint64_t KNIGHT_ATT[64]
cdef uint64_t KING_ATT[64]
cdef uint64_t PAWN_ATT[2][64]      # squares a pawn of the given colour on a square attacks
cdef uint64_t RAYS[8][64]          # directions 0-3 increase the square index, 4-7 decrease it
cdef uint64_t ROOK_EMPTY[64]       # rook / bishop attacks on an empty board, to find pinners
cdef uint64_t BISHOP_EMPTY[64]
cdef uint64_t BETWEEN[64][64]      # squares strictly between two aligned squares
cdef uint64_t LINE[64][64]         # the whole line through two aligned squares
cdef uint64_t Z_PIECE[16][64]
cdef uint64_t Z_CASTLE[16]
cdef uint64_t Z_EP[8]
cdef uint64_t Z_SIDE
cdef int16_t POLICY[1 << 15]       # move (already mirrored, castling as king-takes-rook) -> index

_PIECE_SYMBOLS = ".pnbrqk"


cdef inline uint64_t bit(int sq) noexcept nogil:
    return (<uint64_t>1) << sq


cdef inline uint64_t ray_up(int d, int sq, uint64_t occ) noexcept nogil:
    cdef uint64_t a = RAYS[d][sq]
    cdef uint64_t b = a & occ
    if b:
        a ^= RAYS[d][zs_ctz(b)]
    return a


cdef inline uint64_t ray_down(int d, int sq, uint64_t occ) noexcept nogil:
    cdef uint64_t a = RAYS[d][sq]
    cdef uint64_t b = a & occ
    if b:
        a ^= RAYS[d][63 - zs_clz(b)]
    return a


cdef inline uint64_t rook_att(int sq, uint64_t occ) noexcept nogil:
    return ray_up(0, sq, occ) | ray_up(1, sq, occ) | ray_down(4, sq, occ) | ray_down(5, sq, occ)


cdef inline uint64_t bishop_att(int sq, uint64_t occ) noexcept nogil:
    return ray_up(2, sq, occ) | ray_up(3, sq, occ) | ray_down(6, sq, occ) | ray_down(7, sq, occ)


cdef inline uint64_t attackers_to(const State* s, int sq, uint64_t occ) noexcept nogil:
    """Pieces of both colours attacking ``sq`` given the occupancy ``occ``."""
    cdef uint64_t diag = s.pieces[BISHOP] | s.pieces[QUEEN]
    cdef uint64_t orth = s.pieces[ROOK] | s.pieces[QUEEN]
    return ((KNIGHT_ATT[sq] & s.pieces[KNIGHT])
            | (KING_ATT[sq] & s.pieces[KING])
            | (PAWN_ATT[WHITE][sq] & s.pieces[PAWN] & s.colors[BLACK])
            | (PAWN_ATT[BLACK][sq] & s.pieces[PAWN] & s.colors[WHITE])
            | (bishop_att(sq, occ) & diag)
            | (rook_att(sq, occ) & orth))


cdef inline bint attacked_by(const State* s, int sq, int by, uint64_t occ) noexcept nogil:
    """Whether colour ``by`` attacks ``sq``; cheapest tests first."""
    cdef uint64_t them = s.colors[by]
    if KNIGHT_ATT[sq] & s.pieces[KNIGHT] & them:
        return True
    if PAWN_ATT[by ^ 1][sq] & s.pieces[PAWN] & them:
        return True
    if KING_ATT[sq] & s.pieces[KING] & them:
        return True
    cdef uint64_t sliders = (s.pieces[BISHOP] | s.pieces[QUEEN]) & them
    if sliders and bishop_att(sq, occ) & sliders:
        return True
    sliders = (s.pieces[ROOK] | s.pieces[QUEEN]) & them
    if sliders and rook_att(sq, occ) & sliders:
        return True
    return False


cdef inline int king_square(const State* s, int color) noexcept nogil:
    return zs_ctz(s.pieces[KING] & s.colors[color])


cdef bint state_in_check(const State* s) noexcept nogil:
    return attacked_by(s, king_square(s, s.turn), s.turn ^ 1, s.colors[0] | s.colors[1])


cdef inline int emit(int* out, int n, int frm, uint64_t targets) noexcept nogil:
    while targets:
        out[n] = frm | (zs_ctz(targets) << 6)
        n += 1
        targets &= targets - 1
    return n


cdef inline int emit_pawn(int* out, int n, int frm, int to) noexcept nogil:
    cdef int m = frm | (to << 6)
    if (to >> 3) == 7 or (to >> 3) == 0:
        out[n] = m | (QUEEN << 12)
        out[n + 1] = m | (ROOK << 12)
        out[n + 2] = m | (BISHOP << 12)
        out[n + 3] = m | (KNIGHT << 12)
        return n + 4
    out[n] = m
    return n + 1


cdef int gen_ep(const State* s, int* out, int n, int ksq) noexcept nogil:
    """Append the legal en-passant captures. Legality by recomputing the attacks on the king,
    because the capture empties two squares of one rank (and the capturer may be pinned)."""
    cdef int ep = s.ep
    if ep < 0:
        return n
    cdef int us = s.turn
    cdef int them = us ^ 1
    cdef uint64_t own = s.colors[us]
    cdef uint64_t opp = s.colors[them]
    cdef uint64_t occ = own | opp
    cdef int capsq = ep - 8 if us == WHITE else ep + 8
    if occ & bit(ep) or not (s.pieces[PAWN] & opp & bit(capsq)):
        return n
    cdef uint64_t caps = PAWN_ATT[them][ep] & s.pieces[PAWN] & own
    cdef uint64_t occ2
    cdef int frm
    while caps:
        frm = zs_ctz(caps)
        caps &= caps - 1
        occ2 = (occ ^ bit(frm) ^ bit(capsq)) | bit(ep)
        if not (attackers_to(s, ksq, occ2) & opp & ~bit(capsq)):
            out[n] = frm | (ep << 6)
            n += 1
    return n


cdef int gen_legal(const State* s, int* out) noexcept nogil:
    """Write the legal moves of ``s`` to ``out`` (room for MAX_MOVES) and return their number."""
    cdef int us = s.turn
    cdef int them = us ^ 1
    cdef uint64_t own = s.colors[us]
    cdef uint64_t opp = s.colors[them]
    cdef uint64_t occ = own | opp
    cdef uint64_t kbb = s.pieces[KING] & own
    cdef int ksq = zs_ctz(kbb)
    cdef int n = 0
    cdef int frm, to, sq, i
    cdef uint64_t b, t, x, allowed
    cdef uint64_t checkers = attackers_to(s, ksq, occ) & opp

    # The king is tested with itself lifted off, so it cannot hide behind itself from a slider.
    t = KING_ATT[ksq] & ~own
    while t:
        to = zs_ctz(t)
        t &= t - 1
        if not attacked_by(s, to, them, occ ^ kbb):
            out[n] = ksq | (to << 6)
            n += 1
    if checkers & (checkers - 1):
        return n

    cdef uint64_t target = ~own
    if checkers:
        target &= checkers | BETWEEN[ksq][zs_ctz(checkers)]

    cdef uint64_t pinned = 0
    cdef uint64_t diag = s.pieces[BISHOP] | s.pieces[QUEEN]
    cdef uint64_t orth = s.pieces[ROOK] | s.pieces[QUEEN]
    b = ((ROOK_EMPTY[ksq] & orth) | (BISHOP_EMPTY[ksq] & diag)) & opp
    while b:
        sq = zs_ctz(b)
        b &= b - 1
        x = BETWEEN[ksq][sq] & occ
        if x and not (x & (x - 1)):
            pinned |= x & own

    # A pinned knight can never stay on its pin line.
    b = s.pieces[KNIGHT] & own & ~pinned
    while b:
        frm = zs_ctz(b)
        b &= b - 1
        t = KNIGHT_ATT[frm] & target
        n = emit(out, n, frm, t)

    b = diag & own
    while b:
        frm = zs_ctz(b)
        b &= b - 1
        t = bishop_att(frm, occ) & target
        if pinned & bit(frm):
            t &= LINE[ksq][frm]
        n = emit(out, n, frm, t)

    b = orth & own
    while b:
        frm = zs_ctz(b)
        b &= b - 1
        t = rook_att(frm, occ) & target
        if pinned & bit(frm):
            t &= LINE[ksq][frm]
        n = emit(out, n, frm, t)

    cdef int fwd = 8 if us == WHITE else -8
    cdef int start_rank = 1 if us == WHITE else 6
    b = s.pieces[PAWN] & own
    while b:
        frm = zs_ctz(b)
        b &= b - 1
        allowed = target
        if pinned & bit(frm):
            allowed &= LINE[ksq][frm]
        to = frm + fwd
        if not (occ & bit(to)):
            if allowed & bit(to):
                n = emit_pawn(out, n, frm, to)
            if (frm >> 3) == start_rank:
                to += fwd
                if not (occ & bit(to)) and allowed & bit(to):
                    out[n] = frm | (to << 6)
                    n += 1
        t = PAWN_ATT[us][frm] & opp & allowed
        while t:
            n = emit_pawn(out, n, frm, zs_ctz(t))
            t &= t - 1

    n = gen_ep(s, out, n, ksq)

    # Clean castling rights guarantee king and rook on their home squares.
    cdef int first = 0 if us == WHITE else 2
    if not checkers and s.castling & (3 << first):
        for i in range(first, first + 2):
            if s.castling & (1 << i):
                n = gen_castle(s, out, n, ksq, s.rook_sq[i], occ)
    return n


cdef int gen_castle(const State* s, int* out, int n, int ksq, int rsq, uint64_t occ) noexcept nogil:
    """Adds castling with the rook on ``rsq`` if legal (the side to move is not in check).

    The rules of Chess960, which hold for standard chess too (python-chess's test): the squares
    king and rook cross and land on are empty but for the two of them, no square the king
    crosses is attacked, nor its destination once the rook has moved."""
    cdef int home = ksq & 56
    cdef int them = s.turn ^ 1
    cdef bint h_side = rsq > ksq
    cdef int king_to = home + (6 if h_side else 2)
    cdef int rook_to = home + (5 if h_side else 3)
    cdef uint64_t kbb = bit(ksq)
    cdef uint64_t rbb = bit(rsq)
    cdef uint64_t path = BETWEEN[ksq][king_to] | BETWEEN[rsq][rook_to] | bit(king_to) | bit(rook_to)
    cdef uint64_t crossed = BETWEEN[ksq][king_to]
    if (occ ^ kbb ^ rbb) & path:
        return n
    while crossed:
        if attacked_by(s, zs_ctz(crossed), them, occ ^ kbb):
            return n
        crossed &= crossed - 1
    if attacked_by(s, king_to, them, occ ^ kbb ^ rbb ^ bit(rook_to)):
        return n
    out[n] = ksq | ((rsq if s.chess960 else king_to) << 6)
    return n + 1


cdef inline void put_piece(State* s, int sq, int code) noexcept nogil:
    s.board[sq] = code
    s.pieces[code & 7] |= bit(sq)
    s.colors[code >> 3] |= bit(sq)
    s.key ^= Z_PIECE[code][sq]


cdef inline void remove_piece(State* s, int sq) noexcept nogil:
    cdef int code = s.board[sq]
    s.board[sq] = 0
    s.pieces[code & 7] &= ~bit(sq)
    s.colors[code >> 3] &= ~bit(sq)
    s.key ^= Z_PIECE[code][sq]


cdef bint ep_capture_exists(const State* s) noexcept nogil:
    cdef int buf[2]
    return gen_ep(s, buf, 0, king_square(s, s.turn)) > 0


cdef void finish_ep(State* s) noexcept nogil:
    """Decide whether the en-passant square counts (python-chess keys it only when a legal
    en-passant capture exists) and fold it into the key."""
    s.ep_legal = 0
    if s.ep >= 0 and PAWN_ATT[s.turn ^ 1][s.ep] & s.pieces[PAWN] & s.colors[s.turn]:
        s.ep_legal = ep_capture_exists(s)
        if s.ep_legal:
            s.key ^= Z_EP[s.ep & 7]


cdef void make_move(const State* src, State* dst, int move) noexcept nogil:
    """``dst`` = ``src`` after ``move`` (assumed legal); repetition fields are left at zero."""
    dst[0] = src[0]
    cdef int frm = move & 63
    cdef int to = (move >> 6) & 63
    cdef int promo = (move >> 12) & 7
    cdef int us = src.turn
    cdef int code = src.board[frm]
    cdef int pt = code & 7
    cdef int captured = src.board[to]
    cdef int diff = to - frm
    cdef int i, rsq
    cdef uint8_t rights = src.castling
    if src.ep_legal:
        dst.key ^= Z_EP[src.ep & 7]
    dst.key ^= Z_CASTLE[src.castling] ^ Z_SIDE
    dst.hmc += 1
    dst.ep = -1
    if pt == KING and ((captured and (captured >> 3) == us)
                       or (not src.chess960 and (diff == 2 or diff == -2))):
        # Castling: king onto its own rook (Chess960), or the standard two-square move.
        rsq = to if captured else (frm + 3 if diff > 0 else frm - 4)
        remove_piece(dst, frm)
        remove_piece(dst, rsq)
        put_piece(dst, (frm & 56) + (6 if rsq > frm else 2), code)
        put_piece(dst, (frm & 56) + (5 if rsq > frm else 3), ROOK | (us << 3))
    else:
        if captured:
            remove_piece(dst, to)
            dst.hmc = 0
        remove_piece(dst, frm)
        put_piece(dst, to, (promo | (us << 3)) if promo else code)
        if pt == PAWN:
            dst.hmc = 0
            if diff == 16 or diff == -16:
                dst.ep = (frm + to) >> 1
            elif to == src.ep and not captured and (diff & 7):
                to = to - 8 if us == WHITE else to + 8
                if dst.board[to]:
                    remove_piece(dst, to)
    if rights:
        # A king move loses both rights, a move from or onto a right's rook square that one.
        if pt == KING:
            rights &= ~((WK | WQ) if us == WHITE else (BK | BQ))
        to = (move >> 6) & 63
        for i in range(4):
            if rights & (1 << i) and (frm == src.rook_sq[i] or to == src.rook_sq[i]):
                rights &= ~(1 << i)
    dst.castling = rights
    dst.key ^= Z_CASTLE[dst.castling]
    dst.turn = us ^ 1
    if us == BLACK:
        dst.fullmove += 1
    dst.move = move
    dst.reps = 0
    dst.rep_dist = 0
    finish_ep(dst)


cdef uint64_t compute_key(State* s) noexcept nogil:
    cdef int sq
    s.key = 0
    for sq in range(64):
        if s.board[sq]:
            s.key ^= Z_PIECE[s.board[sq]][sq]
    s.key ^= Z_CASTLE[s.castling]
    if s.turn == WHITE:
        s.key ^= Z_SIDE
    finish_ep(s)
    return s.key


cdef bint side_insufficient(const State* s, int color) noexcept nogil:
    cdef uint64_t own = s.colors[color]
    cdef uint64_t bishops = s.pieces[BISHOP]
    if own & (s.pieces[PAWN] | s.pieces[ROOK] | s.pieces[QUEEN]):
        return False
    if own & s.pieces[KNIGHT]:
        return zs_popcount(own) <= 2 and not (s.colors[color ^ 1] & ~s.pieces[KING] & ~s.pieces[QUEEN])
    if own & bishops:
        return (not (bishops & DARK_SQUARES) or not (bishops & ~DARK_SQUARES)) \
            and not s.pieces[PAWN] and not s.pieces[KNIGHT]
    return True


cdef bint state_insufficient_material(const State* s) noexcept nogil:
    return side_insufficient(s, WHITE) and side_insufficient(s, BLACK)


cdef int state_policy_index(const State* s, int move) noexcept nogil:
    cdef int frm = move & 63
    cdef int to = (move >> 6) & 63
    cdef int promo = (move >> 12) & 7
    if not s.chess960 and (s.board[frm] & 7) == KING and (to - frm == 2 or frm - to == 2):
        to = (frm & 56) | (7 if to > frm else 0)  # lc0 spells castling king-takes-rook
    if s.turn == BLACK:
        frm ^= 56
        to ^= 56
    if promo == KNIGHT:
        promo = 0
    return POLICY[frm | (to << 6) | (promo << 12)]


cdef inline void set_plane_bits(float* plane, uint64_t bb, int flip) noexcept nogil:
    while bb:
        plane[zs_ctz(bb) ^ flip] = 1.0
        bb &= bb - 1


cdef inline void fill_plane(float* plane, float value) noexcept nogil:
    cdef int i
    for i in range(64):
        plane[i] = value


cdef Position _blank():
    return Position.__new__(Position)


cdef class Position:
    """A game: the position reached from a root FEN by a sequence of moves, with the history
    needed for repetitions and for the 8-position network input."""

    def __cinit__(self, *args, **kwargs):
        self.states = <State*>malloc(INITIAL_CAPACITY * sizeof(State))
        if self.states == NULL:
            raise MemoryError()
        self.cap = INITIAL_CAPACITY
        self.n = 0
        memset(self.states, 0, sizeof(State))

    def __dealloc__(self):
        free(self.states)

    def __init__(self, fen: str = chess.STARTING_FEN, chess960: bool = False):
        try:
            board = chess.Board(fen, chess960=chess960)
        except ValueError as exc:
            raise ValueError(f"bad FEN {fen!r}: {exc}") from None
        self._set_root(board)

    def _set_root(self, board: chess.Board) -> None:
        """Make ``board``'s position (its move stack ignored) the root of this game; Chess960
        when ``board.chess960``."""
        bad = board.status() & (chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING
                                | chess.STATUS_TOO_MANY_KINGS | chess.STATUS_PAWNS_ON_BACKRANK
                                | chess.STATUS_OPPOSITE_CHECK)
        if bad:
            raise ValueError(f"unplayable position {board.fen()!r}: status {chess.Status(bad)!r}")
        cdef State* s = &self.states[0]
        memset(s, 0, sizeof(State))
        for sq, piece in board.piece_map().items():
            put_piece(s, sq, piece.piece_type | (int(piece.color) << 3))
        s.turn = int(board.turn)
        s.chess960 = board.chess960
        # Standard chess's rooks; unused where a right is absent.
        s.rook_sq[0], s.rook_sq[1], s.rook_sq[2], s.rook_sq[3] = 7, 0, 63, 56
        s.castling = 0
        for rsq in chess.scan_forward(board.clean_castling_rights()):
            color = chess.WHITE if rsq < 8 else chess.BLACK
            i = (0 if color == chess.WHITE else 2) + (0 if rsq > board.king(color) else 1)
            s.castling |= 1 << i
            s.rook_sq[i] = rsq
        s.hmc = board.halfmove_clock
        s.fullmove = board.fullmove_number
        self.root_ep = -1 if board.ep_square is None else board.ep_square
        s.ep = -1
        cdef int ep = self.root_ep
        # Move generation trusts the FEN's en-passant square only when it is on the right rank,
        # empty, with the pawn that just moved behind it; the raw square still feeds the encoding.
        if ep >= 0 and (ep >> 3) == (5 if s.turn == WHITE else 2) and not s.board[ep]:
            if s.board[ep - 8 if s.turn == WHITE else ep + 8] == (PAWN | ((s.turn ^ 1) << 3)):
                s.ep = ep
        compute_key(s)
        self.n = 0
        self.root_fen = board.fen(en_passant="fen")
        self.root_is_start = (board.board_fen() == chess.STARTING_BOARD_FEN and s.turn == WHITE
                              and s.castling == (WK | WQ | BK | BQ))

    @staticmethod
    def from_board(board: chess.Board) -> Position:
        """The game of a python-chess board: its root position, then its move stack replayed."""
        cdef Position pos = _blank()
        pos._set_root(board.root())
        for m in board.move_stack:
            if not m or m.drop:
                raise ValueError(f"unsupported move in the move stack: {m.uci()}")
            pos.push(m.from_square | (m.to_square << 6) | ((m.promotion or 0) << 12))
        return pos

    cdef int reserve(self, int plies) except -1 nogil:
        """Make room for ``plies`` more pushes (so that push_unchecked may be used)."""
        cdef int need = self.n + plies + 1
        cdef int cap = self.cap
        cdef State* grown
        if need <= cap:
            return 0
        while cap < need:
            cap *= 2
        grown = <State*>realloc(self.states, cap * sizeof(State))
        if grown == NULL:
            with gil:
                raise MemoryError()
        self.states = grown
        self.cap = cap
        return 0

    cdef void push_unchecked(self, int move) noexcept nogil:
        """Push with no capacity check: the caller reserved room."""
        cdef State* s = &self.states[self.n + 1]
        cdef int i, limit
        make_move(&self.states[self.n], s, move)
        self.n += 1
        # Positions across an irreversible move (pawn move, capture) can never repeat, and a
        # position cannot repeat within 2 plies; the nearest match already counts the older ones.
        limit = s.hmc if s.hmc < self.n else self.n
        i = 4
        while i <= limit:
            if self.states[self.n - i].key == s.key:
                s.reps = self.states[self.n - i].reps + 1
                s.rep_dist = i
                break
            i += 2

    cdef int push_c(self, int move) except -1 nogil:
        self.reserve(1)
        self.push_unchecked(move)
        return 0

    cdef void pop_c(self) noexcept nogil:
        if self.n > 0:
            self.n -= 1

    cpdef Position copy(self):
        """An independent copy with the same root and history."""
        cdef Position p = _blank()
        p.n = 0
        p.reserve(self.n)
        memcpy(p.states, self.states, (self.n + 1) * sizeof(State))
        p.n = self.n
        p.root_fen = self.root_fen
        p.root_ep = self.root_ep
        p.root_is_start = self.root_is_start
        return p

    cpdef void push(self, int move) except *:
        """Play ``move`` (assumed legal: only the moving piece's colour is checked)."""
        cdef const State* s = self.cur()
        if move < 0 or move >= (1 << 15) or not s.board[move & 63] \
                or (s.board[move & 63] >> 3) != s.turn:
            raise ValueError(f"no piece of the side to move on the from-square of {move_to_uci(move)}")
        self.push_c(move)

    cpdef void pop(self) except *:
        """Undo the last push."""
        if self.n == 0:
            raise IndexError("pop from a position at its root")
        self.n -= 1

    cpdef int ply(self):
        """Number of moves pushed since the root FEN."""
        return self.n

    cpdef int legal_moves(self, int[::1] out) except -1:
        """Write the legal moves to ``out`` and return their number (at most 218)."""
        cdef int buf[MAX_MOVES]
        cdef int count = gen_legal(self.cur(), buf)
        if count > out.shape[0]:
            raise ValueError(f"output buffer holds {out.shape[0]} moves, {count} needed")
        if count:
            memcpy(&out[0], buf, count * sizeof(int))
        return count

    def legal_move_list(self) -> list[int]:
        """The legal moves as a list of ints."""
        cdef int buf[MAX_MOVES]
        cdef int count = gen_legal(self.cur(), buf)
        return [buf[i] for i in range(count)]

    cpdef bint in_check(self):
        """Whether the side to move is in check."""
        return state_in_check(self.cur())

    cpdef int turn(self):
        """1 if white is to move, 0 if black (chess.WHITE == True)."""
        return self.cur().turn

    cpdef int halfmove_clock(self):
        """Plies since the last capture or pawn move (the rule-50 counter)."""
        return self.cur().hmc

    cpdef unsigned long long key(self):
        """Zobrist key: equal keys mean equal python-chess transposition keys (pieces, side to
        move, castling rights, en-passant square only when a legal en-passant capture exists)."""
        return self.cur().key

    cpdef int repetitions(self):
        """How many times the current position occurred before in this game (0: first time)."""
        return self.cur().reps

    cpdef int repetition_distance(self):
        """Plies back to the most recent earlier occurrence of the position, 0 if none."""
        return self.cur().rep_dist

    cpdef bint insufficient_material(self):
        """Neither side can ever mate (python-chess's is_insufficient_material)."""
        return state_insufficient_material(self.cur())

    cpdef int policy_index(self, int move):
        """Index of legal ``move`` in contract.MOVES (the 1858-wide policy), as contract.move_index."""
        return state_policy_index(self.cur(), move)

    cdef void encode_c(self, float* out) noexcept nogil:
        """Fill ``out`` (PLANE_FLOATS contiguous floats) with the network input, as contract.encode."""
        cdef const State* s = self.cur()
        cdef const State* h
        cdef int us = s.turn
        cdef int them = us ^ 1
        cdef int flip = 56 if us == BLACK else 0
        cdef int i, pt, base, idx, pusher, now, before, ep
        cdef bint filler
        cdef uint64_t pawns
        memset(out, 0, PLANE_FLOATS * sizeof(float))
        cdef int our_k = WK if us == WHITE else BK
        cdef int their_k = BK if us == WHITE else WK
        if s.castling & (our_k << 1):
            fill_plane(out + 104 * 64, 1.0)
        if s.castling & our_k:
            fill_plane(out + 105 * 64, 1.0)
        if s.castling & (their_k << 1):
            fill_plane(out + 106 * 64, 1.0)
        if s.castling & their_k:
            fill_plane(out + 107 * 64, 1.0)
        if us == BLACK:
            fill_plane(out + 108 * 64, 1.0)
        fill_plane(out + 109 * 64, <float>s.hmc)
        fill_plane(out + 111 * 64, 1.0)
        for i in range(8):
            idx = self.n - i
            filler = idx < 0
            if filler and self.root_is_start:
                break
            h = &self.states[0 if filler else idx]
            base = i * 13
            for pt in range(1, 7):
                set_plane_bits(out + (base + pt - 1) * 64, h.pieces[pt] & h.colors[us], flip)
                set_plane_bits(out + (base + pt + 5) * 64, h.pieces[pt] & h.colors[them], flip)
            if h.reps and not filler:
                fill_plane(out + (base + 12) * 64, 1.0)
            if filler and self.root_ep >= 0:
                # The FEN's en-passant square says the side not to move just pushed a pawn two
                # squares; the filled-in older position is the one before that push.
                ep = self.root_ep
                pusher = h.turn ^ 1
                now = ep + 8 if pusher == WHITE else ep - 8
                before = ep - 8 if pusher == WHITE else ep + 8
                if 0 <= now < 64 and 0 <= before < 64:
                    pawns = (h.pieces[PAWN] & h.colors[pusher] & ~bit(now)) | bit(before)
                    base += 0 if pusher == us else 6
                    memset(out + base * 64, 0, 64 * sizeof(float))
                    set_plane_bits(out + base * 64, pawns, flip)

    cpdef void encode(self, float[:, :, ::1] out) except *:
        """Fill a C-contiguous [112, 8, 8] float32 buffer with the network input planes (see
        engine.contract); a slice ``batch[i]`` of a [B, 112, 8, 8] array qualifies."""
        if out.shape[0] != NUM_PLANES or out.shape[1] != 8 or out.shape[2] != 8:
            raise ValueError(f"encode needs a [112, 8, 8] buffer, got "
                             f"{(out.shape[0], out.shape[1], out.shape[2])}")
        self.encode_c(&out[0, 0, 0])

    def fen(self) -> str:
        """FEN of the current position (en-passant square only if a legal capture exists, as
        python-chess's default; X-FEN castling in Chess960, as python-chess writes it)."""
        cdef const State* s = self.cur()
        if s.chess960:
            return self.to_board().fen()
        placement = chess.BaseBoard.empty()
        for sq in range(64):
            if s.board[sq]:
                placement._set_piece_at(sq, s.board[sq] & 7, bool(s.board[sq] >> 3))
        castling = "".join(c for bit_, c in ((WK, "K"), (WQ, "Q"), (BK, "k"), (BQ, "q"))
                           if s.castling & bit_) or "-"
        ep = chess.SQUARE_NAMES[s.ep] if s.ep_legal else "-"
        return f"{placement.board_fen()} {'w' if s.turn else 'b'} {castling} {ep} {s.hmc} {s.fullmove}"

    def to_board(self) -> chess.Board:
        """A python-chess board with the same root and move stack."""
        board = chess.Board(self.root_fen, chess960=bool(self.states[0].chess960))
        for i in range(1, self.n + 1):
            m = self.states[i].move
            promo = (m >> 12) & 7
            board.push(chess.Move(m & 63, (m >> 6) & 63, promo or None))
        return board

    def __repr__(self) -> str:
        return f"Position({self.fen()!r}, ply={self.n})"


cdef long long _perft(Position pos, int depth) noexcept nogil:
    cdef int moves[MAX_MOVES]
    cdef int count = gen_legal(pos.cur(), moves)
    cdef long long total = 0
    cdef int i
    if depth == 1:
        return count
    for i in range(count):
        pos.push_unchecked(moves[i])
        total += _perft(pos, depth - 1)
        pos.n -= 1
    return total


cpdef long long perft(Position pos, int depth) except -1:
    """Number of leaf nodes of the legal move tree ``depth`` plies deep (bulk-counted at the
    last ply). ``pos`` is left as it was."""
    if depth <= 0:
        return 1
    pos.reserve(depth)
    with nogil:
        return _perft(pos, depth)


def move_to_uci(int move) -> str:
    """UCI spelling of an int move (castling as the king's two-square move, or in Chess960 as
    the king taking its own rook: the int says which)."""
    promo = (move >> 12) & 7
    return (chess.SQUARE_NAMES[move & 63] + chess.SQUARE_NAMES[(move >> 6) & 63]
            + (_PIECE_SYMBOLS[promo] if promo else ""))


def move_from_uci(str uci) -> int:
    """Int move of a UCI string; ValueError for null moves, drops or malformed strings."""
    m = chess.Move.from_uci(uci)
    if not m or m.drop or m.promotion == chess.KING or m.promotion == chess.PAWN:
        raise ValueError(f"not a standard chess move: {uci!r}")
    return m.from_square | (m.to_square << 6) | ((m.promotion or 0) << 12)


cdef uint64_t _rng_state = 0x9E3779B97F4A7C15ULL


cdef uint64_t _splitmix() noexcept:
    global _rng_state
    _rng_state += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = _rng_state
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef uint64_t _step_mask(int sq, const int* deltas, int count):
    """Squares one step away along each (file, rank) delta pair, staying on the board."""
    cdef uint64_t bb = 0
    cdef int i, f, r
    for i in range(count):
        f = (sq & 7) + deltas[2 * i]
        r = (sq >> 3) + deltas[2 * i + 1]
        if 0 <= f < 8 and 0 <= r < 8:
            bb |= bit(r * 8 + f)
    return bb


def _init_tables() -> None:
    global Z_SIDE
    cdef int knight_d[16]
    cdef int king_d[16]
    cdef int ray_d[16]
    cdef int wp_d[4]
    cdef int bp_d[4]
    cdef int sq, d, f, r, a, b, i
    cdef uint64_t x
    knight_d[:] = [1, 2, 2, 1, 2, -1, 1, -2, -1, -2, -2, -1, -2, 1, -1, 2]
    king_d[:] = [1, 0, 1, 1, 0, 1, -1, 1, -1, 0, -1, -1, 0, -1, 1, -1]
    # Order matters: 0-3 (N, E, NE, NW) increase the square index, 4-7 are their opposites.
    ray_d[:] = [0, 1, 1, 0, 1, 1, -1, 1, 0, -1, -1, 0, -1, -1, 1, -1]
    wp_d[:] = [-1, 1, 1, 1]
    bp_d[:] = [-1, -1, 1, -1]
    for sq in range(64):
        KNIGHT_ATT[sq] = _step_mask(sq, knight_d, 8)
        KING_ATT[sq] = _step_mask(sq, king_d, 8)
        PAWN_ATT[WHITE][sq] = _step_mask(sq, wp_d, 2)
        PAWN_ATT[BLACK][sq] = _step_mask(sq, bp_d, 2)
        for d in range(8):
            RAYS[d][sq] = 0
            f, r = (sq & 7) + ray_d[2 * d], (sq >> 3) + ray_d[2 * d + 1]
            while 0 <= f < 8 and 0 <= r < 8:
                RAYS[d][sq] |= bit(r * 8 + f)
                f += ray_d[2 * d]
                r += ray_d[2 * d + 1]
        ROOK_EMPTY[sq] = RAYS[0][sq] | RAYS[1][sq] | RAYS[4][sq] | RAYS[5][sq]
        BISHOP_EMPTY[sq] = RAYS[2][sq] | RAYS[3][sq] | RAYS[6][sq] | RAYS[7][sq]
    for a in range(64):
        for b in range(64):
            BETWEEN[a][b] = 0
            LINE[a][b] = 0
        for d in range(8):
            # Direction d and d ^ 4 are opposite: (N, S), (E, W), (NE, SW), (NW, SE).
            x = RAYS[d][a]
            while x:
                b = zs_ctz(x)
                x &= x - 1
                BETWEEN[a][b] = RAYS[d][a] & ~RAYS[d][b] & ~bit(b)
                LINE[a][b] = RAYS[d][a] | RAYS[d ^ 4][a] | bit(a)
    for i in range(16):
        for sq in range(64):
            Z_PIECE[i][sq] = _splitmix()
        Z_CASTLE[i] = _splitmix()
    for i in range(8):
        Z_EP[i] = _splitmix()
    Z_SIDE = _splitmix()
    for i in range(1 << 15):
        POLICY[i] = -1
    promos = {"": 0, "q": QUEEN, "r": ROOK, "b": BISHOP}
    for i, uci in enumerate(contract.MOVES):
        a = chess.parse_square(uci[0:2])
        b = chess.parse_square(uci[2:4])
        POLICY[a | (b << 6) | (promos[uci[4:]] << 12)] = i
    for a in range(48, 56):
        for b in range(56, 64):
            if POLICY[a | (b << 6)] >= 0:
                POLICY[a | (b << 6) | (KNIGHT << 12)] = POLICY[a | (b << 6)]


_init_tables()
