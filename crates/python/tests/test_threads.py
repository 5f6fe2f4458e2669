"""The GIL is released while Rust works, rayon's thread count does not
change results, and time budgets cap an agent's thinking."""

import os
import subprocess
import sys
import threading
import time

import numpy as np

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
