"""Cold War's strong solution as numpy arrays.

Every board is a number below ``7**9`` (:data:`BOARDS`): square ``s``
(``a1 = 0, b1 = 1, c1 = 2, a2 = 3, … c3 = 8``) holding code ``c_s``
contributes ``c_s * 7**s``, where the code is 0 for an empty square, 1 to 3
for an X base of that many pieces and 4 to 6 for an O base of 1 to 3
pieces::

    index = sum(code(square s) * 7**s for s in range(9))

The table holds each board's value for **X to move**. The rules are the
same for both sides with the colours swapped, so a position with O to move
is looked up at the index of the colour-swapped board (X's bases become O's
and O's become X's); :func:`table_index` does both.

The repetition rule and the 500-ply cap are not part of the solution.
"""

from ._tabula import coldwar_solved_table as _solved_table
from ._tabula import coldwar_table_index as _table_index

#: The number of boards, ``7**9``.
BOARDS = 7**9

_cache = None


def solved_table():
    """``(value, distance)``: numpy arrays of :data:`BOARDS` entries for X to move.

    ``value[i]`` (int8) is 1 when the side to move wins with perfect play,
    -1 when it loses, 0 for a draw. ``distance[i]`` (uint8) is the number of
    plies to the end with perfect play: the fewest for a win (up to and
    including the winning action), the most for a loss, 0 for a draw and for
    a finished board.

    The solution is read from Tabula's cache (``$TABULA_CACHE_DIR`` or the
    user's cache directory) or solved on first use (about 20 seconds), and
    kept in memory after the first call.
    """
    global _cache
    if _cache is None:
        value, distance = _solved_table()
        value.setflags(write=False)
        distance.setflags(write=False)
        _cache = (value, distance)
    return _cache


def board_index(cells):
    """The index of a board given as nine signed counts, ``a1`` first.

    ``cells[s]`` is ``+n`` for an X base of ``n`` pieces, ``-n`` for an O
    base, 0 for an empty square.
    """
    cells = list(cells)
    if len(cells) != 9:
        raise ValueError(f"a board has 9 squares, not {len(cells)}")
    index = 0
    for s, c in enumerate(cells):
        if not isinstance(c, int) or not -3 <= c <= 3:
            raise ValueError(f"square {s}: {c!r} is not a base size between -3 and 3")
        code = c if c >= 0 else 3 - c
        index += code * 7**s
    return index


def table_index(state):
    """The index of ``state`` in :func:`solved_table` for its side to move."""
    return _table_index(state)


def evaluate(state):
    """``(value, distance)`` of a Cold War state for its side to move."""
    value, distance = solved_table()
    i = table_index(state)
    return int(value[i]), int(distance[i])
