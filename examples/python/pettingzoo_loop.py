"""A PettingZoo AEC loop over Tabula's Dots: random legal moves from the
action masks until the game ends.

    python examples/python/pettingzoo_loop.py
"""

from tabula.pettingzoo import env

e = env("dots", width=12, height=12)
e.reset(seed=42)
totals = {agent: 0.0 for agent in e.possible_agents}
for agent in e.agent_iter():
    observation, reward, termination, truncation, info = e.last()
    totals[agent] += reward
    if termination or truncation:
        action = None
    else:
        action = e.action_space(agent).sample(observation["action_mask"])
    e.step(action)
print(e.unwrapped.state)
print("rewards:", totals)
e.close()
