"""PettingZoo AEC environments for Tabula's games.

    >>> from tabula.pettingzoo import env
    >>> e = env("dots", width=10, height=10)
    >>> e.reset(seed=0)
    >>> for agent in e.agent_iter():
    ...     obs, reward, termination, truncation, info = e.last()
    ...     if termination or truncation:
    ...         action = None
    ...     else:
    ...         action = e.action_space(agent).sample(obs["action_mask"])
    ...     e.step(action)

The agents are the game's player names (``"blue"`` and ``"red"`` for Dots).
Each observation is a dict with ``"observation"`` (the game's observation
planes from that agent's point of view, float32) and ``"action_mask"``
(int8, 1 for the legal actions of the agent to move, all zeros for the
other). Rewards are +1/-1/0 at the end of the game. An illegal action raises
:class:`tabula.IllegalActionError`.

Needs the ``pettingzoo`` and ``gymnasium`` packages
(``pip install "tabula[pettingzoo]"``).
"""

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import load_game

__all__ = ["env", "raw_env"]


def env(game, render_mode=None, **options):
    """A Tabula game as a PettingZoo AEC environment, with PettingZoo's
    standard wrappers (order enforcing, out-of-bounds actions)."""
    e = raw_env(game, render_mode=render_mode, **options)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """The unwrapped AEC environment (see :func:`env`)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "tabula_v0", "is_parallelizable": False}

    def __init__(self, game, render_mode=None, **options):
        super().__init__()
        self.game = load_game(game, **options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"tabula_{self.game.id}_v0")
        self.possible_agents = list(self.game.players())
        n = self.game.num_distinct_actions()
        shape = self.game.observation_shape()
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=0.0, high=1.0, shape=shape, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        # The games have no chance: the seed only matters to the callers'
        # own samplers (the action spaces are seeded for them).
        if seed is not None:
            for i, a in enumerate(self.possible_agents):
                self.action_spaces[a].seed(seed + i)
        self.state = self.game.new_initial_state()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent):
        player = self.possible_agents.index(agent)
        mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        if not self.state.is_terminal() and self.state.current_player() == player:
            mask[self.state.legal_actions()] = 1
        return {"observation": self.state.observation_tensor(player), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.state.apply_action(int(action))
        if self.state.is_terminal():
            for a, r in zip(self.possible_agents, self.state.returns()):
                self.rewards[a] = float(r)
                self.terminations[a] = True
            # Each agent still gets its last() after the end.
            self.agent_selection = self.possible_agents[1 - self.possible_agents.index(agent)]
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None
        text = str(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass
