"""Random rollouts per CPU second: Tabula's single-state API, a VecEnv loop
with numpy-sampled actions, and VecEnv.random_rollouts.

    python examples/python/random_rollouts.py [game] [seconds]
"""

import random
import sys
import time

import numpy as np

import tabula

game_id = sys.argv[1] if len(sys.argv) > 1 else "cumisitha"
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
game = tabula.load_game(game_id)


def per_cpu_second(play):
    games, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        games += play()
    return games / (time.process_time() - start)


# 1. One state at a time, as with OpenSpiel.
rng = random.Random(0)


def one_game():
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return 1


# 2. 512 games stepped together; numpy picks a uniformly random legal action
#    per game from the environment's lists of legal actions
#    (tabula.sample_listed: a few numpy operations on n elements, whatever
#    the size of the action space; tabula.sample_legal(mask, np_rng) samples
#    the same way from the masks, reading all of them).
n = 512
env = tabula.VecEnv(game, n, seed=0)
obs, mask = env.reset()
np_rng = np.random.default_rng(0)


def vec_steps():
    global mask
    finished = 0
    for _ in range(10):
        actions = tabula.sample_listed(env.legal_actions, env.num_legal_actions, np_rng)
        obs, mask, rewards, terminated, truncated = env.step(actions)
        finished += int(terminated.sum())
    return finished


# 3. Whole random games in Rust, across threads.
def rollouts():
    returns, lengths = env.random_rollouts(1000)
    return len(lengths)


print(f"{game_id}: random games per CPU second")
print(f"  single-state API      {per_cpu_second(one_game):>10,.0f}")
print(f"  VecEnv + numpy        {per_cpu_second(vec_steps):>10,.0f}")
print(f"  VecEnv.random_rollouts{per_cpu_second(rollouts):>10,.0f}")
