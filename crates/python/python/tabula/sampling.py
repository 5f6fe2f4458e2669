"""Uniform sampling of legal actions from ``VecEnv``'s masks, in plain numpy.

A learning loop samples its actions from the legal masks; with thousands of
actions per row and a few dozen legal ones, ``np.flatnonzero`` over the
whole bool mask costs more than stepping the games. This sampler reads the
mask eight bytes at a time: it finds the non-zero 64-bit words (eight times
fewer elements to scan), expands only those to action positions, and picks
one of each row's legal actions uniformly.
"""

import numpy as np

__all__ = ["sample_legal", "sample_listed"]

def sample_legal(mask, rng=None):
    """One legal action per row of ``mask``, uniformly at random.

    ``mask`` is a bool array of shape ``(n, num_actions)`` (``VecEnv``'s
    ``legal_mask``); ``rng`` a ``numpy.random.Generator`` (default: a fresh
    one). Returns an int64 array of shape ``(n,)`` whose entry ``i`` is one
    of row ``i``'s legal actions, each with equal probability. Raises
    ``ValueError`` if a row has no legal action.

        >>> import numpy as np, tabula
        >>> env = tabula.VecEnv("cumisitha", 4, seed=0)
        >>> obs, mask = env.reset()
        >>> rng = np.random.default_rng(0)
        >>> obs, mask, rewards, terminated, truncated = env.step(tabula.sample_legal(mask, rng))
    """
    if rng is None:
        rng = np.random.default_rng()
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.dtype != np.bool_:
        raise ValueError(f"mask must be a 2-d bool array, not {mask.dtype} of shape {mask.shape}")
    n, num_actions = mask.shape
    flat = np.ascontiguousarray(mask).reshape(-1)
    if flat.size % 8:
        # Pad to whole 64-bit words (a copy, only for such odd sizes).
        flat = np.concatenate([flat, np.zeros(8 - flat.size % 8, dtype=np.bool_)])
    words = flat.view(np.uint64)
    row_starts = np.arange(n, dtype=np.int64) * num_actions
    nonzero = words != 0
    if np.count_nonzero(nonzero) * 4 > words.size:
        # A dense mask (Dots: most points are free) gains nothing from
        # skipping empty words.
        return _sample_bytes(flat, row_starts, rng)
    return _sample_words(words, np.flatnonzero(nonzero), row_starts, rng)


def _pick(starts, total, rng):
    """One index per row into a sorted list of `total` legal entries whose
    rows begin at `starts`."""
    counts = np.diff(starts, append=total)
    if counts.size and counts.min() == 0:
        raise ValueError(f"row {int(np.argmin(counts))} of the mask has no legal action")
    return starts + rng.integers(0, counts)


def _sample_bytes(flat, row_starts, rng):
    """Sampling over the positions of every set byte."""
    positions = np.flatnonzero(flat)
    return positions[_pick(np.searchsorted(positions, row_starts), positions.size, rng)] - row_starts


def _sample_words(words, words_set, row_starts, rng):
    """Sampling over the set bytes of the non-zero words only. A set byte is
    named by its index in the packed space of those words:
    8 * (index of its word in `words_set`) + (its place in the word)."""
    set_bytes = np.flatnonzero(words[words_set].view(np.bool_))
    # Where each row starts in the packed space: its first word at or after
    # the row's start, and within a word shared with the previous row, the
    # row's first byte.
    first_word = np.searchsorted(words_set, row_starts >> 3)
    shared = words_set[np.minimum(first_word, words_set.size - 1)] == row_starts >> 3 if words_set.size else False
    packed_starts = first_word * 8 + np.where(shared, row_starts & 7, 0)
    # `set_bytes` is sorted, so each row's legal actions are one run of it.
    picked = set_bytes[_pick(np.searchsorted(set_bytes, packed_starts), set_bytes.size, rng)]
    return words_set[picked >> 3] * 8 + (picked & 7) - row_starts


def sample_listed(legal_actions, num_legal, rng=None):
    """One legal action per row, uniformly at random, from lists.

    ``legal_actions`` is an integer array of shape ``(n, width)`` whose row
    ``i`` starts with row ``i``'s ``num_legal[i]`` legal actions
    (``VecEnv.legal_actions`` and ``VecEnv.num_legal_actions``); the
    entries after them are not read. Returns an array of shape ``(n,)``, of
    ``legal_actions``' dtype: for each row the action at index
    ``floor(u * num_legal[i])``, with ``u`` a uniform float of 53 random
    bits (``rng.random``), so each of a row's ``k`` actions is drawn with
    probability ``1/k`` to within ``k / 2**53`` (``sample_legal`` is exact,
    through ``rng.integers``, which costs more than the rest of this
    function). The work is a few numpy operations on ``n`` elements,
    whatever the size of the action space. Raises ``ValueError`` if a row
    has no legal action or more than ``width``.

        >>> import numpy as np, tabula
        >>> env = tabula.VecEnv("cumisitha", 4, seed=0)
        >>> env.reset()
        >>> rng = np.random.default_rng(0)
        >>> actions = tabula.sample_listed(env.legal_actions, env.num_legal_actions, rng)
        >>> obs, mask, rewards, terminated, truncated = env.step(actions)
    """
    if rng is None:
        rng = np.random.default_rng()
    legal_actions = np.asarray(legal_actions)
    num_legal = np.asarray(num_legal)
    if legal_actions.ndim != 2 or legal_actions.dtype.kind not in "iu":
        raise ValueError(
            f"legal_actions must be a 2-d integer array, not {legal_actions.dtype} of shape {legal_actions.shape}"
        )
    n, width = legal_actions.shape
    if num_legal.shape != (n,) or num_legal.dtype.kind not in "iu":
        raise ValueError(f"num_legal must be {n} integers, one per row, not {num_legal.dtype} of shape {num_legal.shape}")
    if n == 0:
        return np.zeros(0, dtype=legal_actions.dtype)
    if num_legal.min() <= 0:
        raise ValueError(f"row {int(np.argmin(num_legal))} has no legal action")
    high = int(num_legal.max())
    if high > width:
        raise ValueError(f"row {int(np.argmax(num_legal))} has {high} legal actions, more than the {width} columns")
    # u * k < k for every u < 1 and k < 2**52, so no index reaches k.
    u = rng.random(n)
    u *= num_legal
    picks = u.astype(np.intp)
    if legal_actions.flags.c_contiguous:
        picks += np.arange(0, n * width, width)
        return legal_actions.reshape(-1).take(picks)
    return legal_actions[np.arange(n), picks]
