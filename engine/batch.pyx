"""Builds network batches from a search tree, in C: the hot path of the search.

``BatchBuilder.gather`` selects leaves of a ``Tree`` (virtual loss keeps them apart), replays
each leaf's path on the search's private ``Position`` (pushed, then popped back to the root),
scores finished games exactly (and, with tablebases, positions the tables decide), answers repeated positions from the ``NNCache``, and writes the
others' input planes straight into the batch array. ``apply`` turns the network's outputs into
priors (softmax over the legal moves' logits at the policy temperature) and values, caches them,
expands the leaves and backs the values up.

The root is never expanded here: the search does it, since only the root takes Dirichlet noise and
``searchmoves``. ``has_root`` says when the root is in the batch.

Notation as in mcts.pyx; values are W-L ("wl") and draw probability ("d") for the side to move.
"""

from libc.math cimport exp
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

import numpy as np

from engine.board cimport (
    BISHOP,
    KING,
    KNIGHT,
    MAX_MOVES,
    PAWN,
    QUEEN,
    ROOK,
    PLANE_FLOATS,
    Position,
    State,
    gen_legal,
    state_in_check,
    state_insufficient_material,
    state_policy_index,
)
from engine.mcts cimport Tree

from engine.mcts import (
    COLLISION,
    DRAW,
    FULL,
    SCHEDULE_DONE,
    TERM_GAME,
    TERM_TWOFOLD,
    TERMINAL,
    WIN,
)
from engine.tablebase import TB_PLIES

cdef extern from *:
    int zs_popcount "__builtin_popcountll"(unsigned long long) nogil

cdef int _COLLISION = COLLISION
cdef int _TERMINAL = TERMINAL
cdef int _FULL = FULL
cdef int _SCHEDULE_DONE = SCHEDULE_DONE
cdef int _WIN = WIN
cdef int _DRAW = DRAW
cdef int _TERM_GAME = TERM_GAME
cdef int _TERM_TWOFOLD = TERM_TWOFOLD
cdef int _TB_PLIES = TB_PLIES

cdef enum:
    _ROOT = 0
    ARENA_PER_ENTRY = 40  # floats of priors per cache entry: positions average fewer moves


cdef inline uint64_t cache_key(const State* s) noexcept nogil:
    # The rule-50 counter and repetitions are network inputs, so they are part of the key.
    return s.key ^ (<uint64_t>s.hmc * 0x9E3779B97F4A7C15ULL) ^ (<uint64_t>(s.reps if s.reps < 3 else 3) << 62)


cdef class NNCache:
    """Network outputs by position: a lossy hash table (two slots per key) over a ring of priors.

    Bounded: ``capacity`` entries, ``capacity * 40`` floats of priors; old entries are overwritten.
    """

    def __cinit__(self, long capacity=200_000):
        cdef int64_t size = 1
        while size < max(capacity, 2):
            size <<= 1
        self.capacity = capacity
        self.mask = size - 1
        self.entries = <CacheEntry*>calloc(size, sizeof(CacheEntry))
        self.arena_size = max(capacity, 2) * ARENA_PER_ENTRY + MAX_MOVES
        self.arena = <float*>malloc(self.arena_size * sizeof(float))
        if self.entries == NULL or self.arena == NULL:
            raise MemoryError("cannot allocate an NN cache of %d entries" % capacity)
        self.written = 0
        self.filled = 0

    def __dealloc__(self):
        free(self.entries)
        free(self.arena)

    def clear(self):
        cdef int64_t i
        for i in range(self.mask + 1):
            self.entries[i].key = 0
        self.filled = 0

    def __len__(self):
        return min(self.filled, self.capacity)

    def permille_full(self):
        return 0 if self.capacity <= 0 else min(1000, self.filled * 1000 // self.capacity)

    cdef bint _valid(self, CacheEntry* e) noexcept nogil:
        return e.count > 0 and e.start >= self.written - self.arena_size

    cdef CacheEntry* lookup(self, uint64_t key) noexcept nogil:
        cdef CacheEntry* e = &self.entries[key & self.mask]
        if e.key == key and self._valid(e):
            return e
        e = &self.entries[(key ^ 1) & self.mask]
        if e.key == key and self._valid(e):
            return e
        return NULL

    cdef const float* priors_of(self, CacheEntry* e) noexcept nogil:
        return &self.arena[e.start % self.arena_size]

    cdef void insert(self, uint64_t key, const float* priors, int count,
                     float wl, float d, float m) noexcept nogil:
        cdef CacheEntry* a = &self.entries[key & self.mask]
        cdef CacheEntry* b = &self.entries[(key ^ 1) & self.mask]
        cdef CacheEntry* e
        cdef int64_t offset
        if self.capacity <= 0:
            return
        # Keep the slot that is still useful: replace an empty or stale one, else the older.
        if a.key == key or not self._valid(a):
            e = a
        elif b.key == key or not self._valid(b):
            e = b
        else:
            e = a if a.start <= b.start else b
        if e.key == 0 or not self._valid(e):
            self.filled += 1
        offset = self.written % self.arena_size
        if offset + count > self.arena_size:
            self.written += self.arena_size - offset  # wrap: never split a run of priors
            offset = 0
        memcpy(&self.arena[offset], priors, count * sizeof(float))
        e.key = key
        e.start = self.written
        e.count = <int16_t>count
        e.wl = wl
        e.d = d
        e.m = m
        self.written += count


cdef class BatchBuilder:
    """Gathers one batch of leaves at a time for one tree; see the module docstring."""

    def __cinit__(self, int max_batch):
        self.max_batch = max(1, max_batch)
        n = self.max_batch
        self.leaves = <int32_t*>malloc(n * sizeof(int32_t))
        self.depths = <int32_t*>malloc(n * sizeof(int32_t))
        self.move_counts = <int32_t*>malloc(n * sizeof(int32_t))
        self.moves = <int*>malloc(n * MAX_MOVES * sizeof(int))
        self.indices = <int32_t*>malloc(n * MAX_MOVES * sizeof(int32_t))
        self.keys = <uint64_t*>malloc(n * sizeof(uint64_t))
        if (self.leaves == NULL or self.depths == NULL or self.move_counts == NULL or self.moves == NULL
                or self.indices == NULL or self.keys == NULL):
            raise MemoryError()
        self.path = np.zeros(1024, np.int32)
        self.count = 0

    def __dealloc__(self):
        free(self.leaves)
        free(self.depths)
        free(self.move_counts)
        free(self.moves)
        free(self.indices)
        free(self.keys)

    def reset_counters(self):
        self.playouts = self.terminals = self.cache_hits = self.collisions = self.tbhits = 0
        self.depth_sum = 0
        self.seldepth = 0
        self.full = False

    @property
    def count(self):
        return self.count

    def gather(self, Tree tree, Position root, float[:, :, :, ::1] planes, int offset,
               long budget, int max_collisions, bint two_fold_draws, NNCache cache,
               tablebase=None):
        """Fills ``planes[offset:offset + k]`` with up to ``max_batch`` leaves; returns k.

        Stops early after ``budget`` started visits (free ones included) or ``max_collisions``
        collisions. Leaves already evaluated or finished are backed up at once (free nodes).
        ``tablebase`` (engine.tablebase.Tablebases) decides the leaves it can. Does not block.
        """
        cdef int k = 0, free_nodes = 0, collisions = 0, depth, i, n, leaf
        cdef const State* s
        cdef CacheEntry* hit
        cdef uint64_t key
        cdef int* mv
        cdef int32_t* idx
        cdef int room = min(self.max_batch, planes.shape[0] - offset)
        self.has_root = False
        self.tablebase = tablebase
        self.tb_pieces = 0 if tablebase is None else tablebase.max_pieces
        while k < room and k + free_nodes < budget and collisions < max_collisions \
                and free_nodes < 4 * self.max_batch:
            leaf = tree.select(self.path)
            if leaf == _COLLISION:
                collisions += 1
                self.collisions += 1
                continue
            if leaf == _FULL:
                self.full = True
                break
            if leaf == _SCHEDULE_DONE:
                break
            depth = tree.last_depth
            if depth > self.seldepth:
                self.seldepth = depth
            if leaf == _TERMINAL:
                self.depth_sum += depth
                self.terminals += 1
                self.playouts += 1
                free_nodes += 1
                continue
            root.reserve(depth)
            for i in range(depth):
                root.push_unchecked(self.path[i])
            s = root.cur()
            mv = &self.moves[k * MAX_MOVES]
            n = gen_legal(s, mv)
            if leaf != _ROOT and self._score_terminal(tree, s, leaf, n, depth, two_fold_draws):
                for i in range(depth):
                    root.pop_c()
                tree._backup_exact(leaf)
                self.depth_sum += depth
                self.terminals += 1
                self.playouts += 1
                free_nodes += 1
                continue
            key = cache_key(s)
            hit = cache.lookup(key) if leaf != _ROOT else NULL
            if hit != NULL and hit.count == n:
                for i in range(depth):
                    root.pop_c()
                tree._expand_raw(leaf, mv, cache.priors_of(hit), n)
                tree._backup(leaf, hit.wl, hit.d, hit.m)
                self.depth_sum += depth
                self.cache_hits += 1
                self.playouts += 1
                free_nodes += 1
                continue
            idx = &self.indices[k * MAX_MOVES]
            for i in range(n):
                idx[i] = state_policy_index(s, mv[i])
            root.encode_c(&planes[offset + k, 0, 0, 0])
            for i in range(depth):
                root.pop_c()
            self.leaves[k] = leaf
            self.depths[k] = depth
            self.move_counts[k] = n
            self.keys[k] = key
            if leaf == _ROOT:
                self.has_root = True
            k += 1
        self.count = k
        return k

    cdef bint _score_terminal(self, Tree tree, const State* s, int leaf, int n, int depth,
                              bint two_fold_draws) except -1:
        """Marks the leaf terminal when its game is over; results for the side that moved in."""
        if n == 0:
            tree.set_terminal(leaf, _WIN if state_in_check(s) else _DRAW, 1, _TERM_GAME)
        elif s.hmc >= 100 or state_insufficient_material(s) or s.reps >= 2:
            tree.set_terminal(leaf, _DRAW, 1, _TERM_GAME)
        elif two_fold_draws and s.reps == 1 and 0 < s.rep_dist <= depth:
            tree.set_terminal(leaf, _DRAW, 1, _TERM_TWOFOLD)
        elif (self.tb_pieces and s.hmc == 0 and s.castling == 0
                and zs_popcount(s.colors[0] | s.colors[1]) <= self.tb_pieces):
            return self._probe_tables(tree, s, leaf)
        else:
            return False
        return True

    cdef bint _probe_tables(self, Tree tree, const State* s, int leaf) except -1:
        """Marks the leaf with the tables' exact result, if they have it; a win or loss counts
        TB_PLIES plies (no distance to mate), so any real mate ranks before it."""
        result = self.tablebase.probe_bitboards(
            s.key, s.colors[1], s.colors[0], s.pieces[PAWN], s.pieces[KNIGHT], s.pieces[BISHOP],
            s.pieces[ROOK], s.pieces[QUEEN], s.pieces[KING], s.turn, s.ep)
        if result is None:
            return False
        self.tbhits += 1
        tree.set_terminal(leaf, result, 1 if result == _DRAW else _TB_PLIES + 1, _TERM_GAME)
        return True

    def apply(self, Tree tree, NNCache cache, const float[:, ::1] policy,
              const float[:, ::1] wdl, mlh, int offset, double policy_temperature):
        """Expands and backs up the gathered leaves from rows ``offset:offset + count`` of the
        network's outputs (policy [B, 1858] logits, wdl [B, 3], mlh [B] or None)."""
        cdef int i, j, n, leaf
        cdef int32_t* idx
        cdef double z, zmax, total, inv_t = 1.0 / max(policy_temperature, 1e-3)
        cdef float wl, d, m
        cdef const float[::1] mlh_v = mlh if mlh is not None else None
        for i in range(self.count):
            leaf = self.leaves[i]
            n = self.move_counts[i]
            idx = &self.indices[i * MAX_MOVES]
            zmax = -1e30
            for j in range(n):
                z = policy[offset + i, idx[j]] * inv_t
                if z > zmax:
                    zmax = z
            total = 0.0
            for j in range(n):
                z = exp(policy[offset + i, idx[j]] * inv_t - zmax)
                self.priorbuf[j] = <float>z
                total += z
            for j in range(n):
                self.priorbuf[j] = <float>(self.priorbuf[j] / total)
            wl = wdl[offset + i, 0] - wdl[offset + i, 2]
            d = wdl[offset + i, 1]
            m = mlh_v[offset + i] if mlh is not None else 0.0
            cache.insert(self.keys[i], self.priorbuf, n, wl, d, m)
            # Counted with the visit, so depth_sum / playouts is the mean depth of done visits.
            self.depth_sum += self.depths[i]
            if leaf != _ROOT:
                tree._expand_raw(leaf, &self.moves[i * MAX_MOVES], self.priorbuf, n)
                tree._backup(leaf, wl, d, m)
        self.playouts += self.count

    def root_entry(self):
        """(row, legal moves, their policy indices) of the root in the batch, or None."""
        cdef int i
        for i in range(self.count):
            if self.leaves[i] == _ROOT:
                n = self.move_counts[i]
                moves = np.array([self.moves[i * MAX_MOVES + j] for j in range(n)], np.int32)
                idx = np.array([self.indices[i * MAX_MOVES + j] for j in range(n)], np.int64)
                return i, moves, idx
        return None
