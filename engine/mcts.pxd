# C-level interface of the MCTS tree (see mcts.pyx for the notation and the algorithm).
from libc.stdint cimport int8_t, int16_t, int32_t

ctypedef struct Node:
    int32_t parent       # parent node id, NO_NODE for the root
    int32_t move         # the move that leads here from the parent (board.pyx move encoding)
    int32_t edge_begin   # first edge id, NO_EDGES until the node is expanded
    int16_t num_edges    # number of legal moves, valid once expanded
    int8_t bound         # proven result for the parent's side to move: WIN, DRAW, LOSS or UNKNOWN
    int8_t terminal      # TERM_NONE, TERM_GAME (game over here), TERM_TWOFOLD, TERM_PROVEN
    int32_t bound_plies  # plies from the parent to the end of the game, when proven
    int32_t visits       # N: visits backed up through this node
    int32_t inflight     # visits started but not yet backed up (virtual loss)
    double wl            # W: sum of win-minus-loss, for the parent's side to move
    double d             # sum of draw probabilities
    double m             # sum of plies left

ctypedef struct Edge:
    int32_t move         # move of the parent position
    float prior          # P: network prior after the policy softmax
    int32_t child        # node id, NO_NODE until the move is first visited


cdef class Tree:
    cdef Node* nodes
    cdef Edge* edges
    cdef int32_t num_nodes
    cdef int32_t num_edges
    cdef int32_t node_capacity
    cdef int32_t edge_capacity
    cdef readonly long max_nodes
    cdef readonly int last_depth
    # PUCT settings, lc0's names; set with configure()
    cdef double cpuct
    cdef double cpuct_base
    cdef double cpuct_factor
    cdef double cpuct_root
    cdef double fpu_reduction
    cdef double fpu_root
    cdef double virtual_loss
    cdef double forced_k         # KataGo's forced playouts at the root: n_forced = sqrt(k P N)
    # lc0's moves-left utility (MovesLeft* options): cap (0: off), |Q| threshold, slope, and
    # the constant, |q| and q^2 factors of its scale
    cdef double m_cap
    cdef double m_threshold
    cdef double m_slope
    cdef double m_constant
    cdef double m_scaled
    cdef double m_quadratic
    # Gumbel root (sequential halving): while root_target > 0, the root visits only the moves
    # whose root_rank >= 0, each up to root_target started visits, fewest first, ties by rank.
    cdef int32_t root_target
    cdef int16_t root_rank[256]

    cdef long _max_edges(self) noexcept nogil
    cdef int _grow_nodes(self, int32_t need) except -1
    cdef int _grow_edges(self, int32_t need) except -1
    cdef int32_t _new_node(self, int32_t parent, int32_t move) except -2
    cdef int32_t _select_child(self, int32_t n, bint is_root) noexcept nogil
    cdef double _m_utility(self, double child_m, double parent_m, double q) noexcept nogil
    cdef int32_t _select_scheduled(self) noexcept nogil
    cdef void _prove(self, int32_t n) noexcept nogil
    cdef void _revert(self, int32_t n) noexcept nogil
    cdef void _backup_exact(self, int32_t n) noexcept nogil
    cdef void _clear_proofs(self) noexcept nogil
    cdef void _compact(self, int32_t new_root) noexcept
    cpdef int select(self, int[::1] path)
    cpdef void expand(self, int32_t n, int[::1] moves, float[::1] priors)
    cdef int _expand_raw(self, int32_t n, const int* moves, const float* priors,
                         int32_t count) except -1
    cdef void _backup(self, int32_t n, double wl, double d, double m) noexcept nogil
    cpdef void backup(self, int32_t n, double wl, double d, double m)
    cpdef void set_terminal(self, int32_t n, int result, int plies, int kind)
