"""Tree utilities shared by metrics, baselines and probes.

Conventions: a sentence of ``n`` words has 0-based word indices ``0..n-1``; heads are
1-based with ``0`` for the root, as in CoNLL-U; undirected edges are pairs ``(i, j)``
with ``i < j``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = [
    "heads_to_edges",
    "tree_distances",
    "minimum_spanning_edges",
    "prim_maximum_spanning_tree",
    "edges_to_distances",
    "edges_to_heads",
]


def heads_to_edges(heads: Sequence[int]) -> list[tuple[int, int]]:
    """Undirected edges ``(i, j)``, ``i < j``, of a tree given by 1-based heads.

    Parameters
    ----------
    heads : array-like of int of shape (n_words,)
        ``heads[k]`` is the 1-based head of word ``k``, ``0`` for the root.

    Returns
    -------
    list of (int, int)
        ``n_words - 1`` edges for a single-rooted tree, 0-based.
    """
    edges = []
    for child, head in enumerate(heads):
        head = int(head)
        if head > 0:
            a, b = child, head - 1
            edges.append((a, b) if a < b else (b, a))
    return edges


def edges_to_heads(n: int, edges: Sequence[tuple[int, int]], root: int = 0) -> list[int]:
    """Orient an undirected tree from ``root``: 1-based heads, 0 for the root.

    Raises
    ------
    ValueError
        If ``edges`` do not form a spanning tree of ``n`` nodes.
    """
    if n == 0:
        return []
    if len(edges) != n - 1:
        raise ValueError(f"a tree on {n} words has {n - 1} edges, got {len(edges)}")
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    heads = [-1] * n
    heads[root] = 0
    stack = [root]
    while stack:
        u = stack.pop()
        for v in adj[u]:
            if heads[v] == -1 and v != root:
                heads[v] = u + 1
                stack.append(v)
    if -1 in heads:
        raise ValueError("edges do not connect every word")
    return heads


def edges_to_distances(n: int, edges: Sequence[tuple[int, int]]) -> np.ndarray:
    """Tree distances of a spanning tree given by undirected edges.

    Parameters
    ----------
    n : int
        Number of words.
    edges : sequence of (int, int)
        ``n - 1`` 0-based undirected edges forming a tree.

    Returns
    -------
    ndarray of float64 of shape (n, n)

    Raises
    ------
    ValueError
        If ``edges`` is not a spanning tree.
    """
    return tree_distances(edges_to_heads(n, edges))


def tree_distances(heads: Sequence[int]) -> np.ndarray:
    """Gold tree distances d_T(i, j): the number of edges between words i and j.

    This is the target of the structural probe (Hewitt & Manning, 2019, §2). With ``A`` the
    ancestor-or-self matrix of the tree, ``d(i, j) = |A_i| + |A_j| - 2 |A_i ∩ A_j|``: the two
    depths minus twice the depth of the lowest common ancestor. One small matrix product
    per sentence, no graph search.

    Parameters
    ----------
    heads : array-like of int of shape (n_words,)
        1-based heads, ``0`` for the root; must form a tree.

    Returns
    -------
    ndarray of float64 of shape (n_words, n_words)
        Symmetric, zero diagonal, integer-valued.

    Raises
    ------
    ValueError
        If the heads contain a cycle.
    """
    parent = np.asarray(heads, dtype=np.int64) - 1
    n = len(parent)
    anc = np.zeros((n, n), dtype=np.float64)
    cur = np.arange(n)
    rows = np.arange(n)
    for _ in range(n + 1):
        live = cur >= 0
        if not live.any():
            break
        anc[rows[live], cur[live]] = 1.0
        cur = np.where(live, parent[np.maximum(cur, 0)], -1)
    else:
        raise ValueError("heads contain a cycle")
    size = anc.sum(axis=1)
    return size[:, None] + size[None, :] - 2.0 * (anc @ anc.T)


def minimum_spanning_edges(distances: np.ndarray, keep: np.ndarray | None = None) -> set[tuple[int, int]]:
    """Minimum spanning tree over predicted distances, with Hewitt & Manning's tie-breaking.

    Hewitt & Manning (2019) decode a tree from a distance matrix with Kruskal's algorithm
    over the word pairs sorted by distance (a stable sort, so equal distances are taken
    in ``(i, j)`` order), skipping punctuation words. This function returns exactly that
    tree. It replaces each candidate edge's weight by its rank in that order; Kruskal's
    tree is the minimum spanning tree for these distinct weights, which is unique, so the
    dense O(n^2) Prim of :func:`prim_maximum_spanning_tree` (on negated ranks) finds it.
    On sentence-sized matrices this is several times faster than building a sparse graph
    for :func:`scipy.sparse.csgraph.minimum_spanning_tree`, which gives the same tree.

    Parameters
    ----------
    distances : array-like of shape (n_words, n_words)
        Predicted distances. An asymmetric matrix is symmetrised with the elementwise
        minimum, which is what Kruskal over all ordered pairs does.
    keep : array-like of bool of shape (n_words,), optional
        Words that take part (for example, not punctuation). Default: all.

    Returns
    -------
    set of (int, int)
        Edges ``(i, j)``, ``i < j``, in original 0-based word indices; ``k - 1`` edges
        for ``k`` kept words.

    Raises
    ------
    ValueError
        If ``distances`` is not square or contains NaN.
    """
    d = np.asarray(distances, dtype=np.float64)
    if d.ndim != 2 or d.shape[0] != d.shape[1]:
        raise ValueError(f"distances must be a square matrix, got shape {d.shape}")
    if np.isnan(d).any():
        raise ValueError("distances contain NaN")
    n = d.shape[0]
    idx = np.arange(n) if keep is None else np.flatnonzero(np.asarray(keep, dtype=bool))
    k = len(idx)
    if k < 2:
        return set()
    sub = d[np.ix_(idx, idx)]
    sub = np.minimum(sub, sub.T)
    iu, ju = np.triu_indices(k, 1)
    # Rank by (distance, i, j): lexsort sorts by the last key first.
    order = np.lexsort((ju, iu, sub[iu, ju]))
    ranks = np.empty((k, k), dtype=np.float64)
    r = np.empty(len(order), dtype=np.float64)
    r[order] = np.arange(1, len(order) + 1)
    ranks[iu, ju] = r
    ranks[ju, iu] = r
    # Distinct weights make the minimum spanning tree unique, so Prim finds Kruskal's tree.
    tree = prim_maximum_spanning_tree(-ranks)
    return {(int(idx[a]), int(idx[b])) for a, b in tree}


def prim_maximum_spanning_tree(weights: np.ndarray) -> list[tuple[int, int]]:
    """Maximum spanning tree with Prim's algorithm (dense, O(n^2)).

    Used by the Majority baseline of Hall Maudslay & Cotterell (2021, §5.1). The tree is
    grown from word 0; among equal weights the lowest-index candidate wins, which makes
    the result deterministic.

    Parameters
    ----------
    weights : array-like of shape (n_words, n_words)
        Symmetric edge weights (for example, edge counts).

    Returns
    -------
    list of (int, int)
        ``n_words - 1`` undirected edges ``(i, j)``, ``i < j``, in the order Prim added them.

    Raises
    ------
    ValueError
        If ``weights`` is not square.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"weights must be a square matrix, got shape {w.shape}")
    n = w.shape[0]
    if n < 2:
        return []
    in_tree = np.zeros(n, dtype=bool)
    in_tree[0] = True
    best = w[0].copy()
    parent = np.zeros(n, dtype=np.int64)
    edges = []
    for _ in range(n - 1):
        cand = np.where(in_tree, -np.inf, best)
        v = int(np.argmax(cand))  # first maximum: lowest index on ties
        in_tree[v] = True
        u = int(parent[v])
        edges.append((u, v) if u < v else (v, u))
        better = (~in_tree) & (w[v] > best)
        best[better] = w[v][better]
        parent[better] = v
    return edges


def random_tree(rng, n: int) -> list[int]:
    """Heads of a uniformly attached random tree over ``n`` words (1-based, 0 = root), for tests
    and examples.

    Parameters
    ----------
    rng : numpy.random.Generator
    n : int
        At least 1.

    Returns
    -------
    list of int of length n
    """
    order = rng.permutation(n)
    heads = [0] * n
    for k in range(1, n):
        heads[int(order[k])] = int(order[rng.integers(0, k)]) + 1
    return heads
