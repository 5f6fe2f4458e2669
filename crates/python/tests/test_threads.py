"""The GIL is released while Rust works, rayon's thread count does not
change results, and time budgets cap an agent's thinking."""

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import tabula


def python_runs_during(call):
    """Run `call` in a thread while the main thread keeps running Python
    code. True when the main thread kept going through the call (the GIL
    was released); with the GIL held it stalls for the call's length."""
    window = {}

    def worker():
        window["start"] = time.perf_counter()
        call()
        window["end"] = time.perf_counter()

    ticks = []
    t = threading.Thread(target=worker)
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
    t.join()
    length = window["end"] - window["start"]
    assert length > 0.2, "the call was too short to tell"
    inside = [window["start"]] + [x for x in ticks if window["start"] < x < window["end"]] + [window["end"]]
    longest_stall = max(b - a for a, b in zip(inside, inside[1:]))
    return longest_stall < length / 2


def test_the_check_sees_a_call_that_holds_the_gil():
    # sum() over a range runs in C without releasing the GIL.
    k = 10**6
    while True:  # long enough to tell, on any machine
        t = time.perf_counter()
        sum(range(k))
        if time.perf_counter() - t > 0.3:
            break
        k *= 2
    assert not python_runs_during(lambda: sum(range(k)))


def test_random_rollouts_release_the_gil():
    env = tabula.VecEnv("cumisitha", 1, seed=0)
    k = 50
    while True:  # enough games for a call of a few tenths of a second
        t = time.perf_counter()
        env.random_rollouts(k)
        if time.perf_counter() - t > 0.3:
            break
        k *= 2
    assert python_runs_during(lambda: env.random_rollouts(k))


def test_vecenv_step_releases_the_gil():
    n = 1024
    env = tabula.VecEnv("dots", n, seed=0, width=20, height=20)
    env.reset()
    # Every game plays the same opening, point by point along rows 2 and 3
    # (away from the starting cross): legal in every game, nothing captured.
    batches = [np.full(n, a) for a in range(20, 60)]

    def step_all(repeat):
        for _ in range(repeat):
            env.reset()
            for actions in batches:
                env.step(actions)

    t = time.perf_counter()
    step_all(1)
    repeat = max(1, int(0.4 / (time.perf_counter() - t)) + 1)
    assert python_runs_during(lambda: step_all(repeat))


def test_agents_release_the_gil():
    agent = tabula.MCTSAgent("cordots", time=0.4, seed=0)
    state = tabula.load_game("cordots").new_initial_state()
    assert python_runs_during(lambda: agent.choose(state))


def test_a_time_budget_caps_a_long_level():
    # uct:600000 would think ten minutes a move; the budget stops it.
    agent = tabula.Agent("cordots", "uct:600000", seed=0, time=0.2)
    state = tabula.load_game("cordots").new_initial_state()
    t = time.perf_counter()
    action = agent.choose(state)
    assert time.perf_counter() - t < 10
    assert action in state.legal_actions()
    t = time.perf_counter()
    agent.choose(state, time=0.1)
    assert time.perf_counter() - t < 10


ROLLOUTS = """
import sys, tabula
returns, lengths = tabula.VecEnv("cordots", 1, seed=9).random_rollouts(400)
env = tabula.VecEnv("coldwar", 300, seed=1)
import numpy as np
import pytest
rng = np.random.default_rng(2)
mask = env.legal_mask
total = 0.0
for _ in range(30):
    actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
    obs, mask, rewards, terminated, truncated = env.step(actions)
    total += float(obs.sum()) + float(rewards.sum()) + int(terminated.sum())
print(lengths.tolist(), returns[:, 0].tolist(), total)
"""


def test_results_do_not_depend_on_the_thread_count():
    outputs = []
    for threads in ("1", "2", "5"):
        env = dict(os.environ, RAYON_NUM_THREADS=threads)
        run = subprocess.run([sys.executable, "-c", ROLLOUTS], env=env, capture_output=True, text=True, check=True)
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1] == outputs[2]


def play_with(threads, game="cumisitha", n=300, steps=40):
    """Random play of a VecEnv given `threads`: every array it returns, and
    rollouts, as one digest."""
    env = tabula.VecEnv(game, n, seed=3, threads=threads)
    rng = np.random.default_rng(4)
    digest = []
    for _ in range(steps):
        actions = tabula.sample_listed(env.legal_actions, env.num_legal_actions, rng)
        obs, mask, rewards, terminated, truncated = env.step(actions)
        digest.append((obs.tobytes(), mask.tobytes(), rewards.tobytes(), terminated.tobytes(), truncated.tobytes()))
    returns, lengths = env.random_rollouts(64)
    digest.append((returns.tobytes(), lengths.tobytes()))
    return env.threads, digest


def test_the_threads_option_caps_the_threads_and_changes_no_result():
    # 300 environments are split over up to 4 threads (64 at least each).
    default_threads, default = play_with(None)
    assert default_threads >= 1
    for threads in (1, 2, 3):
        used, digest = play_with(threads)
        assert used == threads
        assert digest == default, f"threads={threads} changed a result"


POOL_THREADS = """
import os, time, tabula
def names():
    out = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                out.append(f.read().strip())
        except OSError:  # the thread ended meanwhile
            pass
    return sorted(n for n in out if n.startswith("tabula-vec-"))
default = tabula.VecEnv("cordots", 4).threads
before = names()
one = tabula.VecEnv("cordots", 4, threads=1)
env = tabula.VecEnv("cordots", 4, threads=default + 1)
# A new thread names itself once it runs: wait for them (at most 10 s).
for _ in range(1000):
    if len(names()) > default:
        break
    time.sleep(0.01)
print(default, before, names())
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads Linux's /proc")
def test_a_thread_count_other_than_the_pools_gets_a_pool_of_its_own():
    run = subprocess.run([sys.executable, "-c", POOL_THREADS], capture_output=True, text=True, check=True)
    default, rest = run.stdout.split(" ", 1)
    # Neither the default nor threads=1 starts a pool; threads=default+1 does.
    expected = sorted(f"tabula-vec-{i}" for i in range(int(default) + 1))
    assert rest.strip() == f"[] {expected}"
