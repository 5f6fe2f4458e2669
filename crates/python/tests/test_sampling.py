"""tabula.sample_legal: always a legal action, uniform over the legal ones."""

import numpy as np
import pytest

import tabula


def chi2_critical(df, z=3.719):
    """The 99.99th percentile of chi-square with `df` degrees of freedom
    (Wilson and Hilferty's approximation; z is the normal 99.99th)."""
    h = 2 / (9 * df)
    return df * (1 - h + z * h**0.5) ** 3


def small_mask(num_actions):
    """Rows with 1, 3, all and a scattered few legal actions, including
    ones at the row's edges (where rows share a 64-bit word)."""
    mask = np.zeros((4, num_actions), dtype=bool)
    mask[0, num_actions - 1] = True
    mask[1, [0, 5, num_actions - 2]] = True
    mask[2, :] = True
    mask[3, [1, 2, 7, 8, num_actions - 1]] = True
    return mask


# 13 actions: 52 bytes, not whole words (the padded path); 16: whole words;
# 9: rows that straddle words everywhere; 203: a sparse mask (few non-zero
# words: the word path), the others are dense (the byte path).
@pytest.mark.parametrize("num_actions", [13, 16, 9, 203])
def test_samples_are_legal_and_uniform(num_actions):
    mask = small_mask(num_actions)
    if num_actions == 203:
        mask[2, :] = False
        mask[2, [0, 8, 9, 100, 202]] = True
    rng = np.random.default_rng(5)
    draws = 20_000
    counts = np.zeros(mask.shape, dtype=np.int64)
    for _ in range(draws):
        actions = tabula.sample_legal(mask, rng)
        assert actions.shape == (4,)
        assert mask[np.arange(4), actions].all()
        counts[np.arange(4), actions] += 1
    for row, legal in zip(counts, mask):
        # Exactly the legal actions are drawn, each about equally often:
        # Pearson's chi-square against the uniform distribution stays below
        # its 99.99th percentile (so this fails with a biased sampler and,
        # with a fixed seed, never by chance).
        assert (row[~legal] == 0).all()
        k = int(legal.sum())
        assert (row[legal] > 0).all()
        if k > 1:
            expected = draws / k
            chi2 = float((((row[legal] - expected) ** 2) / expected).sum())
            critical = chi2_critical(k - 1)
            assert chi2 < critical, (row, chi2)


@pytest.mark.parametrize("game_id", ["cumisitha", "dots"])
def test_samples_follow_a_vecenv_mask(game_id):
    env = tabula.VecEnv(game_id, 67, seed=1)
    obs, mask = env.reset()
    rng = np.random.default_rng(2)
    for _ in range(60):
        actions = tabula.sample_legal(mask, rng)
        assert mask[np.arange(67), actions].all()
        obs, mask, rewards, terminated, truncated = env.step(actions)


def test_both_paths_pick_the_same_actions():
    # The word path (sparse masks) and the byte path (dense ones) are two
    # ways to the same sample.
    from tabula.sampling import _sample_bytes, _sample_words

    rng = np.random.default_rng(3)
    mask = rng.random((37, 120)) < 0.05
    mask[np.arange(37), rng.integers(0, 120, 37)] = True
    flat = mask.reshape(-1)
    words = flat.view(np.uint64)
    row_starts = np.arange(37, dtype=np.int64) * 120
    a = _sample_words(words, np.flatnonzero(words != 0), row_starts, np.random.default_rng(4))
    b = _sample_bytes(flat, row_starts, np.random.default_rng(4))
    np.testing.assert_array_equal(a, b)
    assert mask[np.arange(37), a].all()


def test_same_seed_same_actions():
    mask = small_mask(13)
    a = [tabula.sample_legal(mask, np.random.default_rng(9)) for _ in range(2)]
    np.testing.assert_array_equal(a[0], a[1])


def test_bad_masks_are_refused():
    with pytest.raises(ValueError, match="row 1 of the mask has no legal action"):
        tabula.sample_legal(np.array([[True, False], [False, False]]), np.random.default_rng(0))
    with pytest.raises(ValueError, match="2-d bool array"):
        tabula.sample_legal(np.ones((2, 3), dtype=np.int8))
    with pytest.raises(ValueError, match="2-d bool array"):
        tabula.sample_legal(np.ones(3, dtype=bool))


def test_listed_samples_are_legal_and_uniform():
    # Rows with 1, 3 and 6 legal actions, padded with -1 (never drawn).
    legal = np.full((3, 8), -1, dtype=np.int32)
    legal[0, :1] = [7]
    legal[1, :3] = [4, 0, 9]
    legal[2, :6] = [1, 2, 3, 5, 6, 8]
    counts = np.array([1, 3, 6], dtype=np.int32)
    rng = np.random.default_rng(6)
    draws = 20_000
    seen = [dict() for _ in range(3)]
    for _ in range(draws):
        actions = tabula.sample_listed(legal, counts, rng)
        assert actions.dtype == np.int32 and actions.shape == (3,)
        for row, a in enumerate(actions):
            seen[row][int(a)] = seen[row].get(int(a), 0) + 1
    for row in range(3):
        assert sorted(seen[row]) == sorted(legal[row, : counts[row]].tolist())
        k = int(counts[row])
        if k > 1:
            expected = draws / k
            chi2 = sum((c - expected) ** 2 / expected for c in seen[row].values())
            assert chi2 < chi2_critical(k - 1), (row, seen[row])


@pytest.mark.parametrize("game_id", ["cumisitha", "dots", "cordots"])
def test_listed_samples_follow_a_vecenv(game_id):
    env = tabula.VecEnv(game_id, 67, seed=1)
    obs, mask = env.reset()
    rng = np.random.default_rng(2)
    for _ in range(60):
        actions = tabula.sample_listed(env.legal_actions, env.num_legal_actions, rng)
        assert mask[np.arange(67), actions].all()
        obs, mask, rewards, terminated, truncated = env.step(actions)


def test_bad_lists_are_refused():
    legal = np.array([[3, -1], [2, 5]], dtype=np.int32)
    with pytest.raises(ValueError, match="row 0 has no legal action"):
        tabula.sample_listed(legal, np.array([0, 2]))
    with pytest.raises(ValueError, match="row 1 has 3 legal actions, more than the 2 columns"):
        tabula.sample_listed(legal, np.array([1, 3]))
    with pytest.raises(ValueError, match="num_legal must be 2 integers"):
        tabula.sample_listed(legal, np.array([1]))
    with pytest.raises(ValueError, match="2-d integer array"):
        tabula.sample_listed(legal.astype(np.float32), np.array([1, 2]))


def test_listed_sampling_reads_non_contiguous_lists():
    # Every other column of a wider array: the fancy-indexing path.
    wide = np.full((2, 8), -1, dtype=np.int64)
    wide[0, [0, 2]] = [5, 6]
    wide[1, [0]] = [4]
    legal = wide[:, ::2]
    assert not legal.flags.c_contiguous
    rng = np.random.default_rng(1)
    drawn = {tuple(tabula.sample_listed(legal, np.array([2, 1]), rng)) for _ in range(200)}
    assert drawn == {(5, 4), (6, 4)}
