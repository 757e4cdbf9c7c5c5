"""The MCTS tree: preallocated arrays of nodes and edges, PUCT selection and backup.

Notation (as in lc0 and minigo):
    N   visits of a node (completed), plus ``inflight`` visits started but not yet backed up
    W   sum of values (win minus loss) backed up through a node
    Q   W / N, the mean value, always for the side to move at the node's *parent*, so a parent
        picks the child with the highest Q + U
    P   the network's prior of the move (an edge)
    U   cpuct(N_parent) * P * sqrt(N_parent) / (1 + N_child); zero for a proven child
    cpuct(N) = cpuct + cpuct_factor * log((N + cpuct_base) / cpuct_base)

An expanded node owns a contiguous run of edges (its legal moves, sorted by prior, highest
first); an edge points to a child node once that move has been visited. Nodes and edges live in two
growable C arrays addressed by integer ids; the root is node ``ROOT``.

Leaves are gathered for batched evaluation with virtual loss: every node on the path of a leaf
waiting for the network counts ``inflight`` visits that look like losses to other selections, so
the next selection goes elsewhere. Selecting a leaf that is already waiting is a collision.

Exact values: a node whose game is over (mate, stalemate, draw rules) is terminal and backs up its
exact value without the network. Proofs propagate upwards (an MCTS solver): a node with a winning
child is lost for the side that moved into it, a node whose children are all proven takes the
best of them. ``bound`` is stored, like W, for the parent's side to move.

Two root rules for self-play (both off by default):
    forced playouts (KataGo, Wu 2019): a visited root child with N < sqrt(k * P * N_parent) is
        selected before any PUCT comparison, so noise-boosted moves get enough visits to be
        judged; the policy target then prunes those visits again (engine/gumbel.py).
    a root schedule (Gumbel AlphaZero's sequential halving, Danihelka et al. 2022): the caller
        names the considered moves and a visit target per move for the current phase; selection
        at the root gives the next visit to the considered move with the fewest started visits,
        and reports SCHEDULE_DONE once every one has reached the target. Below the root, PUCT.

Concurrency: a Tree is not thread-safe; the search holds one lock around every call.
"""

from libc.math cimport fabs, log, sqrt
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

import numpy as np



ROOT = 0
NO_NODE = -1
COLLISION = -1
TERMINAL = -2
FULL = -3
SCHEDULE_DONE = -4

WIN = 1
DRAW = 0
LOSS = -1
UNKNOWN = 2

TERM_NONE = 0
TERM_GAME = 1
TERM_TWOFOLD = 2
TERM_PROVEN = 3

cdef enum:
    MAX_DEPTH = 1024
    EDGES_PER_NODE = 40  # edges allowed per node on average (positions average about 35 moves)

cdef enum:
    _ROOT = 0
    _NO_NODE = -1
    _COLLISION = -1
    _TERMINAL = -2
    _FULL = -3
    _SCHEDULE_DONE = -4

cdef int8_t _UNKNOWN = 2
cdef int8_t _TERM_NONE = 0
cdef int8_t _TERM_GAME = 1
cdef int8_t _TERM_TWOFOLD = 2
cdef int8_t _TERM_PROVEN = 3


cdef class Tree:
    """A search tree. ``max_nodes`` bounds memory: at most ``max_nodes`` nodes and
    ``EDGES_PER_NODE * max_nodes`` edges are ever allocated (``bytes_bound(max_nodes)`` bytes);
    selection reports FULL when either is reached."""

    def __cinit__(self, long max_nodes=10_000_000, int32_t initial_nodes=4096):
        self.max_nodes = max(16, max_nodes)
        self.node_capacity = min(max(16, initial_nodes), self.max_nodes)
        self.edge_capacity = self.node_capacity * 8
        self.nodes = <Node*>malloc(self.node_capacity * sizeof(Node))
        self.edges = <Edge*>malloc(self.edge_capacity * sizeof(Edge))
        if self.nodes == NULL or self.edges == NULL:
            raise MemoryError("cannot allocate the search tree")
        self.configure()
        self.reset()

    def __dealloc__(self):
        free(self.nodes)
        free(self.edges)

    def configure(self, *, double cpuct=1.745, double cpuct_base=38739.0,
                  double cpuct_factor=3.894, cpuct_root=None, double fpu_reduction=0.330,
                  fpu_root=None, double virtual_loss=1.0, max_nodes=None,
                  double forced_playouts=0.0, double moves_left_max_effect=0.0,
                  double moves_left_threshold=0.8, double moves_left_slope=0.0027,
                  double moves_left_constant=0.0, double moves_left_scaled=1.6521,
                  double moves_left_quadratic=-0.6521):
        """Sets the PUCT parameters (lc0's names and defaults); ``forced_playouts`` is KataGo's
        k (2 in KataGo's self-play; 0: off); ``moves_left_*`` lc0's moves-left utility (see
        :meth:`moves_left_utility`; a max effect of 0 turns it off)."""
        self.forced_k = forced_playouts
        self.m_cap = moves_left_max_effect
        self.m_threshold = moves_left_threshold
        self.m_slope = moves_left_slope
        self.m_constant = moves_left_constant
        self.m_scaled = moves_left_scaled
        self.m_quadratic = moves_left_quadratic
        self.cpuct = cpuct
        self.cpuct_base = cpuct_base
        self.cpuct_factor = cpuct_factor
        self.cpuct_root = cpuct if cpuct_root is None else cpuct_root
        self.fpu_reduction = fpu_reduction
        self.fpu_root = fpu_reduction if fpu_root is None else fpu_root
        self.virtual_loss = virtual_loss
        if max_nodes is not None:
            self.max_nodes = max(16, max_nodes)

    def reset(self):
        """Empties the tree down to a fresh, unexpanded root."""
        self.root_target = 0
        self.num_nodes = 0
        self.num_edges = 0
        self._new_node(_NO_NODE, 0)

    # ----------------------------------------------------------------- storage

    cdef int _grow_nodes(self, int32_t need) except -1:
        cdef int32_t cap = self.node_capacity
        cdef Node* p
        if need <= cap:
            return 0
        while cap < need:
            cap *= 2
        # Never past the bound: the doubling must not overshoot the memory the user allowed.
        cap = max(need, min(cap, self.max_nodes))
        p = <Node*>realloc(self.nodes, cap * sizeof(Node))
        if p == NULL:
            raise MemoryError("search tree: cannot grow to %d nodes" % cap)
        self.nodes = p
        self.node_capacity = cap
        return 0

    cdef int _grow_edges(self, int32_t need) except -1:
        cdef int32_t cap = self.edge_capacity
        cdef Edge* p
        if need <= cap:
            return 0
        while cap < need:
            cap *= 2
        cap = max(need, min(cap, self._max_edges()))
        p = <Edge*>realloc(self.edges, cap * sizeof(Edge))
        if p == NULL:
            raise MemoryError("search tree: cannot grow to %d edges" % cap)
        self.edges = p
        self.edge_capacity = cap
        return 0

    cdef int32_t _new_node(self, int32_t parent, int32_t move) except -2:
        cdef int32_t n = self.num_nodes
        self._grow_nodes(n + 1)
        cdef Node* node = &self.nodes[n]
        node.parent = parent
        node.move = move
        node.edge_begin = -1
        node.num_edges = 0
        node.bound = _UNKNOWN
        node.terminal = _TERM_NONE
        node.bound_plies = 0
        node.visits = 0
        node.inflight = 0
        node.wl = 0.0
        node.d = 0.0
        node.m = 0.0
        self.num_nodes = n + 1
        return n

    cdef inline long _max_edges(self) noexcept nogil:
        # The room one more expansion needs (a position has at most 218 moves) is kept free.
        return self.max_nodes * EDGES_PER_NODE + 256

    @staticmethod
    def bytes_bound(long max_nodes):
        """Bytes the arrays of a tree with this ``max_nodes`` can reach at most."""
        return max_nodes * sizeof(Node) + (max_nodes * EDGES_PER_NODE + 256) * sizeof(Edge)

    @property
    def num_nodes(self):
        return self.num_nodes

    def memory_bytes(self):
        """Bytes held by the node and edge arrays."""
        return self.node_capacity * sizeof(Node) + self.edge_capacity * sizeof(Edge)

    @staticmethod
    def bytes_per_node():
        return sizeof(Node)

    @staticmethod
    def bytes_per_edge():
        return sizeof(Edge)

    # ---------------------------------------------------------------- selection

    cdef int32_t _select_child(self, int32_t n, bint is_root) noexcept nogil:
        """Index (0-based, within n's edges) of the edge with the highest Q + U."""
        cdef Node* node = &self.nodes[n]
        cdef Edge* e = &self.edges[node.edge_begin]
        cdef Node* c
        cdef int32_t i, best = 0, started, cn
        cdef double parent_n = node.visits + node.inflight
        cdef double base_cpuct = self.cpuct_root if is_root else self.cpuct
        cdef double cpuct = base_cpuct + self.cpuct_factor * log(
            (parent_n + self.cpuct_base) / self.cpuct_base)
        cdef double sqrt_n = sqrt(parent_n if parent_n > 1.0 else 1.0)
        cdef double parent_q = 0.0
        cdef double visited_policy = 0.0
        cdef double fpu, q, u, score, best_score = -1e300
        cdef double parent_m = 0.0
        cdef bint m_on = False
        if node.visits > 0:
            parent_q = -node.wl / node.visits
            # lc0: the moves-left utility applies only where the parent is nearly decided.
            m_on = self.m_cap > 0.0 and fabs(parent_q) > self.m_threshold
            parent_m = node.m / node.visits
        for i in range(node.num_edges):
            cn = e[i].child
            if cn >= 0 and self.nodes[cn].visits + self.nodes[cn].inflight > 0:
                visited_policy += e[i].prior
        fpu = parent_q - (self.fpu_root if is_root else self.fpu_reduction) * sqrt(visited_policy)
        for i in range(node.num_edges):
            cn = e[i].child
            if cn < 0:
                # Edges are sorted by prior, so the first unvisited edge beats all later ones.
                score = fpu + cpuct * e[i].prior * sqrt_n
                if score > best_score:
                    best = i
                break
            c = &self.nodes[cn]
            started = c.visits + c.inflight
            if c.terminal != _TERM_NONE and c.bound != _UNKNOWN:
                # A proven value is exact: nothing to explore, so no U (else a strong prior
                # keeps feeding visits to, say, a stalemate).
                score = c.bound
            elif is_root and self.forced_k > 0.0 and started > 0 and \
                    started < sqrt(self.forced_k * e[i].prior * parent_n):
                return i
            else:
                if started == 0:
                    q = fpu
                else:
                    q = (c.wl - self.virtual_loss * c.inflight) / started
                u = cpuct * e[i].prior * sqrt_n / (1.0 + started)
                score = q + u
                if m_on and c.visits > 0:
                    score += self._m_utility(c.m / c.visits, parent_m, c.wl / c.visits)
            if score > best_score:
                best_score = score
                best = i
        return best

    cdef double _m_utility(self, double child_m, double parent_m, double q) noexcept nogil:
        # lc0's GetMUtility: a bonus of at most m_cap for a child expected to end the game
        # sooner when q > 0 (later when q < 0), scaled up as |q| passes the threshold.
        cdef double m = self.m_slope * (child_m - parent_m)
        cdef double a
        if m > self.m_cap:
            m = self.m_cap
        elif m < -self.m_cap:
            m = -self.m_cap
        if q > 0.0:
            m = -m
        a = fabs(q)
        if 0.0 < self.m_threshold < 1.0:
            a = max(0.0, a - self.m_threshold) / (1.0 - self.m_threshold)
        return m * (self.m_constant + self.m_scaled * a + self.m_quadratic * a * a)

    def moves_left_utility(self, double child_m, double parent_m, double q):
        """The term the selection adds to a visited child's Q + U where the parent's |Q| is
        above the threshold: child_m and parent_m are plies left (the nodes' mean M), q the
        child's Q for the side choosing."""
        return self._m_utility(child_m, parent_m, q)

    cdef int32_t _select_scheduled(self) noexcept nogil:
        """The root edge the schedule visits next, or -1 when every considered move has
        reached ``root_target``."""
        cdef Node* node = &self.nodes[_ROOT]
        cdef Edge* e = &self.edges[node.edge_begin]
        cdef int32_t i, cn, started, best = -1, best_started = 0
        for i in range(min(node.num_edges, 256)):
            if self.root_rank[i] < 0:
                continue
            cn = e[i].child
            started = self.nodes[cn].visits + self.nodes[cn].inflight if cn >= 0 else 0
            if started >= self.root_target:
                continue
            if best < 0 or started < best_started or (
                    started == best_started and self.root_rank[i] < self.root_rank[best]):
                best, best_started = i, started
        return best

    def set_root_schedule(self, ranks, int target):
        """Root schedule (see the module docstring): ``ranks[i]`` for root edge ``i`` (edge order
        of ``children(ROOT)``), -1 for moves not considered; ``target`` visits per considered
        move; 0 returns the root to PUCT."""
        cdef Node* node = &self.nodes[_ROOT]
        cdef int32_t i, k = node.num_edges if node.edge_begin >= 0 else 0
        if target > 0 and len(ranks) != k:
            raise ValueError(f"{len(ranks)} ranks for {k} root moves")
        for i in range(256):
            self.root_rank[i] = <int16_t>ranks[i] if i < k and target > 0 else -1
        self.root_target = max(0, target)

    cpdef int select(self, int[::1] path):
        """Descends from the root to a leaf, marking the path in flight.

        Returns the leaf's node id (>= 0) when it needs the network; ``path[:last_depth]`` then
        holds the moves from the root to it. Returns _TERMINAL after backing up a visit to a node
        whose value is exact, _COLLISION (path reverted) when the leaf is already waiting for the
        network, _FULL when the tree holds ``max_nodes`` nodes, _SCHEDULE_DONE when the root
        schedule has no visit left to give. Does not block.
        """
        cdef int32_t n = _ROOT, child, k
        cdef int depth = 0
        cdef Node* node
        cdef Edge* e
        while True:
            node = &self.nodes[n]
            if n != _ROOT and node.terminal != _TERM_NONE:
                node.inflight += 1
                self.last_depth = depth
                self._backup_exact(n)
                return _TERMINAL
            if node.edge_begin < 0:
                if node.inflight > 0:
                    # This descent marked the ancestors only; the leaf's count is another's.
                    self._revert(node.parent)
                    self.last_depth = depth
                    return _COLLISION
                node.inflight += 1
                self.last_depth = depth
                return n
            if node.num_edges == 0:
                # An expanded root without moves: the game is over at the root.
                self.last_depth = depth
                return _COLLISION
            if n == _ROOT and self.root_target > 0:
                k = self._select_scheduled()
                if k < 0:
                    self.last_depth = depth
                    return _SCHEDULE_DONE
                node.inflight += 1
            else:
                node.inflight += 1  # counted before selecting: PUCT's N includes this visit
                k = self._select_child(n, n == _ROOT)
            e = &self.edges[node.edge_begin + k]
            if depth >= MAX_DEPTH or depth >= path.shape[0]:
                self._revert(n)
                self.last_depth = depth
                return _COLLISION
            path[depth] = e.move
            depth += 1
            child = e.child
            if child < 0:
                if self.num_nodes >= self.max_nodes or self.num_edges >= self._max_edges() - 256:
                    self._revert(n)
                    self.last_depth = depth
                    return _FULL
                child = self._new_node(n, e.move)
                # _new_node may have moved the arrays; look the edge up again.
                self.edges[self.nodes[n].edge_begin + k].child = child
            n = child

    cdef void _revert(self, int32_t n) noexcept nogil:
        while n != _NO_NODE:
            self.nodes[n].inflight -= 1
            n = self.nodes[n].parent

    # ------------------------------------------------------------------ backup

    cpdef void expand(self, int32_t n, int[::1] moves, float[::1] priors):
        """Gives node n its legal moves with their priors (any order; sorted here)."""
        if moves.shape[0] != priors.shape[0]:
            raise ValueError("moves and priors differ in length")
        self._expand_raw(n, &moves[0] if moves.shape[0] else NULL,
                         &priors[0] if priors.shape[0] else NULL, moves.shape[0])

    cdef int _expand_raw(self, int32_t n, const int* moves, const float* priors,
                         int32_t count) except -1:
        cdef int32_t i, j, begin
        cdef Edge tmp
        if self.nodes[n].edge_begin >= 0:
            return 0
        self._grow_edges(self.num_edges + count)
        begin = self.num_edges
        for i in range(count):
            self.edges[begin + i].move = moves[i]
            self.edges[begin + i].prior = priors[i]
            self.edges[begin + i].child = _NO_NODE
        # Insertion sort, highest prior first; stable, so equal priors keep the move order.
        for i in range(1, count):
            tmp = self.edges[begin + i]
            j = i - 1
            while j >= 0 and self.edges[begin + j].prior < tmp.prior:
                self.edges[begin + j + 1] = self.edges[begin + j]
                j -= 1
            self.edges[begin + j + 1] = tmp
        self.nodes[n].edge_begin = begin
        self.nodes[n].num_edges = <int16_t>count
        self.num_edges = begin + count
        return 0

    cpdef void backup(self, int32_t n, double wl, double d, double m):
        """Backs up a network value of leaf n: wl and d for the side to move at n, m plies left."""
        self._backup(n, wl, d, m)

    cdef void _backup(self, int32_t n, double wl, double d, double m) noexcept nogil:
        cdef double v = -wl
        cdef Node* node
        while n != _NO_NODE:
            node = &self.nodes[n]
            node.inflight -= 1
            node.visits += 1
            node.wl += v
            node.d += d
            node.m += m
            v = -v
            m += 1.0
            n = node.parent

    cpdef void set_terminal(self, int32_t n, int result, int plies, int kind):
        """Marks n as a position whose value is exact.

        result is for the side that moved into n (WIN, DRAW or LOSS), plies the plies from n's
        parent to the game's end (1 when the game ends at n), kind TERM_GAME or TERM_TWOFOLD.
        """
        self.nodes[n].terminal = <int8_t>kind
        self.nodes[n].bound = <int8_t>result
        self.nodes[n].bound_plies = plies
        if n != _ROOT:
            self._prove(self.nodes[n].parent)

    def backup_terminal(self, int32_t n):
        """Backs up the in-flight visit of leaf n just marked terminal."""
        self._backup_exact(n)

    cdef void _backup_exact(self, int32_t n) noexcept nogil:
        cdef Node* node = &self.nodes[n]
        cdef double plies = node.bound_plies - 1
        self._backup(n, -<double>node.bound, 1.0 if node.bound == 0 else 0.0,
                    plies if plies > 0 else 0.0)

    cdef void _prove(self, int32_t n) noexcept nogil:
        """Re-derives n's proof from its children, and its parent's, up to the root."""
        cdef Node* node
        cdef Node* c
        cdef Edge* e
        cdef int32_t i, cn, win_plies, loss_plies, draw_plies
        cdef bint all_proven, any_draw
        while n != _NO_NODE:
            node = &self.nodes[n]
            if node.edge_begin < 0 or node.terminal == _TERM_GAME:
                return
            e = &self.edges[node.edge_begin]
            win_plies = 1 << 30
            loss_plies = 0
            draw_plies = 0
            all_proven = True
            any_draw = False
            for i in range(node.num_edges):
                cn = e[i].child
                if cn < 0 or self.nodes[cn].terminal == _TERM_NONE:
                    all_proven = False
                    continue
                c = &self.nodes[cn]
                if c.bound == 1:
                    if c.bound_plies < win_plies:
                        win_plies = c.bound_plies
                elif c.bound == 0:
                    any_draw = True
                    if c.bound_plies > draw_plies:
                        draw_plies = c.bound_plies
                elif c.bound_plies > loss_plies:
                    loss_plies = c.bound_plies
            if win_plies != (1 << 30):
                node.bound = -1
                node.bound_plies = win_plies + 1
            elif all_proven and any_draw:
                node.bound = 0
                node.bound_plies = draw_plies + 1
            elif all_proven:
                node.bound = 1
                node.bound_plies = loss_plies + 1
            else:
                return
            node.terminal = _TERM_PROVEN
            n = node.parent

    # --------------------------------------------------------------- reporting

    def is_expanded(self, int32_t n):
        """Whether node n has its moves (the network has seen it, or its game is over)."""
        return self.nodes[n].edge_begin >= 0

    def node_stats(self, int32_t n):
        """(visits, inflight, q, d, m, bound, bound_plies, terminal) of node n; q for n's parent."""
        cdef Node* node = &self.nodes[n]
        cdef double q = node.wl / node.visits if node.visits else 0.0
        cdef double d = node.d / node.visits if node.visits else 0.0
        cdef double m = node.m / node.visits if node.visits else 0.0
        return (node.visits, node.inflight, q, d, m, node.bound, node.bound_plies, node.terminal)

    def children(self, int32_t n):
        """Arrays over n's edges, in edge order: moves, priors, visits, q (for n's side to move),
        d, m, bound (for n's side to move, UNKNOWN if unproven), bound_plies, child ids."""
        cdef Node* node = &self.nodes[n]
        cdef int32_t k = node.num_edges if node.edge_begin >= 0 else 0
        moves = np.empty(k, dtype=np.int32)
        priors = np.empty(k, dtype=np.float32)
        visits = np.zeros(k, dtype=np.int64)
        q = np.zeros(k, dtype=np.float64)
        d = np.zeros(k, dtype=np.float64)
        m = np.zeros(k, dtype=np.float64)
        bound = np.full(k, UNKNOWN, dtype=np.int8)
        plies = np.zeros(k, dtype=np.int32)
        ids = np.full(k, _NO_NODE, dtype=np.int32)
        cdef int32_t i, cn
        cdef Edge* e
        cdef Node* c
        for i in range(k):
            e = &self.edges[node.edge_begin + i]
            moves[i] = e.move
            priors[i] = e.prior
            cn = e.child
            ids[i] = cn
            if cn < 0:
                continue
            c = &self.nodes[cn]
            visits[i] = c.visits
            if c.visits:
                q[i] = c.wl / c.visits
                d[i] = c.d / c.visits
                m[i] = c.m / c.visits
            if c.terminal != _TERM_NONE:
                bound[i] = c.bound
                plies[i] = c.bound_plies
        return moves, priors, visits, q, d, m, bound, plies, ids

    # ----------------------------------------------------------------- reuse

    def reroot(self, moves):
        """Makes the node reached by ``moves`` from the root the new root, dropping the rest.

        Returns True when that node existed (its subtree is kept, compacted to the front of the
        arrays), False when the tree was reset (also when that node was a repetition draw, which
        leaves nothing to reuse). Proofs and repetition draws depend on the path from the root,
        so they are cleared and found again by the search.
        """
        cdef int32_t n = _ROOT, i, k, cn
        cdef Node* node
        for mv in moves:
            node = &self.nodes[n]
            if node.edge_begin < 0:
                self.reset()
                return False
            cn = _NO_NODE
            for i in range(node.num_edges):
                if self.edges[node.edge_begin + i].move == mv:
                    cn = self.edges[node.edge_begin + i].child
                    break
            if cn < 0:
                self.reset()
                return False
            n = cn
        self.root_target = 0
        if n == _ROOT:
            self._clear_proofs()
            return True
        self._compact(n)
        self._clear_proofs()
        if self.nodes[_ROOT].edge_begin < 0:
            # The new root was a repetition draw seen from the old root (its moves dropped just
            # now): its visits were draws that no longer hold, and a root with visits but no
            # moves would let a node-limited search stop before the net has seen it.
            self.reset()
            return False
        return True

    cdef void _clear_proofs(self) noexcept nogil:
        cdef int32_t i
        cdef Node* node
        for i in range(self.num_nodes):
            node = &self.nodes[i]
            if node.terminal == _TERM_PROVEN:
                node.terminal = _TERM_NONE
                node.bound = _UNKNOWN
            elif node.terminal == _TERM_TWOFOLD:
                # The earlier occurrence may now lie before the root: look again.
                node.terminal = _TERM_NONE
                node.bound = _UNKNOWN
                node.edge_begin = -1
                node.num_edges = 0

    cdef void _compact(self, int32_t new_root) noexcept:
        """Copies the subtree of new_root into fresh arrays, breadth first."""
        cdef Node* old_nodes = self.nodes
        cdef Edge* old_edges = self.edges
        cdef int32_t old_count = self.num_nodes
        cdef int32_t cap_n = self.node_capacity, cap_e = self.edge_capacity
        cdef Node* nodes = <Node*>malloc(cap_n * sizeof(Node))
        cdef Edge* edges = <Edge*>malloc(cap_e * sizeof(Edge))
        cdef int32_t head = 0, tail = 1, ne = 0, i, oc
        cdef int32_t* order
        if nodes == NULL or edges == NULL:
            free(nodes)
            free(edges)
            self.reset()
            return
        order = <int32_t*>malloc(old_count * sizeof(int32_t))  # old ids in new-id order
        if order == NULL:
            free(nodes)
            free(edges)
            self.reset()
            return
        order[0] = new_root
        nodes[0] = old_nodes[new_root]
        nodes[0].parent = _NO_NODE
        while head < tail:
            if nodes[head].edge_begin >= 0:
                memcpy(&edges[ne], &old_edges[nodes[head].edge_begin],
                       nodes[head].num_edges * sizeof(Edge))
                nodes[head].edge_begin = ne
                for i in range(nodes[head].num_edges):
                    oc = edges[ne + i].child
                    if oc >= 0:
                        order[tail] = oc
                        nodes[tail] = old_nodes[oc]
                        nodes[tail].parent = head
                        edges[ne + i].child = tail
                        tail += 1
                ne += nodes[head].num_edges
            head += 1
        free(order)
        free(old_nodes)
        free(old_edges)
        self.nodes = nodes
        self.edges = edges
        self.num_nodes = tail
        self.num_edges = ne
