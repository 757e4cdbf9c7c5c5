# C-level interface of the batch builder and the NN cache (see batch.pyx).
from libc.stdint cimport int16_t, int32_t, int64_t, uint64_t

from engine.board cimport Position, State
from engine.mcts cimport Tree

ctypedef struct CacheEntry:
    uint64_t key         # position key (0: empty)
    int64_t start        # logical offset of the priors in the arena
    int16_t count        # number of priors (legal moves)
    float wl             # network W-L for the side to move
    float d              # draw probability
    float m              # plies left


cdef class NNCache:
    cdef CacheEntry* entries
    cdef float* arena
    cdef int64_t mask            # table size - 1 (a power of two)
    cdef int64_t arena_size      # floats in the arena ring
    cdef int64_t written         # logical floats written so far
    cdef readonly int64_t capacity
    cdef readonly int64_t filled

    cdef bint _valid(self, CacheEntry* e) noexcept nogil
    cdef CacheEntry* lookup(self, uint64_t key) noexcept nogil
    cdef const float* priors_of(self, CacheEntry* e) noexcept nogil
    cdef void insert(self, uint64_t key, const float* priors, int count,
                     float wl, float d, float m) noexcept nogil


cdef class BatchBuilder:
    cdef int max_batch
    cdef int count               # leaves waiting for the network in the current batch
    cdef int32_t* leaves         # [max_batch] node ids
    cdef int32_t* depths         # [max_batch] their depths below the root
    cdef int32_t* move_counts    # [max_batch]
    cdef int* moves              # [max_batch, MAX_MOVES] legal moves of each leaf
    cdef int32_t* indices        # [max_batch, MAX_MOVES] their policy indices
    cdef uint64_t* keys          # [max_batch] cache keys
    cdef int[::1] path           # moves from the root to the selected leaf
    cdef int movebuf[256]
    cdef float priorbuf[256]
    # counters of the last gather, read by the search
    cdef public long playouts
    cdef public long terminals
    cdef public long cache_hits
    cdef public long collisions
    cdef public long depth_sum
    cdef public int seldepth
    cdef public long tbhits      # tablebase probes that decided a leaf
    cdef public bint full
    cdef public bint has_root
    cdef object tablebase        # engine.tablebase.Tablebases or None, for this gather
    cdef int tb_pieces           # its largest piece count; 0 when there are no tables

    cdef bint _score_terminal(self, Tree tree, const State* s, int leaf, int n, int depth,
                              bint two_fold_draws) except -1
    cdef bint _probe_tables(self, Tree tree, const State* s, int leaf) except -1
