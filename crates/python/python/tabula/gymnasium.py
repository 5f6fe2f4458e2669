"""A Gymnasium single-agent environment: play a Tabula game against one of
Tabula's AIs.

    >>> from tabula.gymnasium import SingleAgentEnv
    >>> env = SingleAgentEnv("cordots", opponent="easy", player=0)
    >>> obs, info = env.reset(seed=0)
    >>> action = env.action_space.sample(info["action_mask"])
    >>> obs, reward, terminated, truncated, info = env.step(action)

The agent plays ``player`` (0 moves first); after each of its actions the
opponent AI answers until it is the agent's turn again or the game ends.
Observations are the game's planes from the agent's point of view
(float32, docs/python.md); ``info["action_mask"]`` (int8) marks the legal
actions, and ``action_masks()`` returns it too (sb3-contrib's convention).
The reward is +1, -1 or 0 when the game ends, else 0. An illegal action
raises :class:`tabula.IllegalActionError`; with ``illegal="lose"`` it ends
the episode instead, as a loss (reward -1, ``info["illegal_action"]``),
which suits learners that sample without the mask and checkers such as
``gymnasium.utils.env_checker.check_env``. ``max_plies`` truncates long
games.

Needs the ``gymnasium`` package (``pip install "tabula[gymnasium]"``).
"""

import gymnasium
import numpy as np
from gymnasium import spaces

from . import Agent, load_game

__all__ = ["SingleAgentEnv"]


class SingleAgentEnv(gymnasium.Env):
    """A Tabula game against a fixed Tabula AI (see the module docs)."""

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(
        self,
        game,
        opponent="random",
        player=0,
        opponent_time=None,
        max_plies=None,
        illegal="raise",
        render_mode=None,
        **options,
    ):
        super().__init__()
        self.game = load_game(game, **options)
        if player not in (0, 1):
            raise ValueError(f"player must be 0 (first to move) or 1, not {player!r}")
        if max_plies is not None and (not isinstance(max_plies, int) or max_plies < 1):
            raise ValueError(f"max_plies must be a positive integer, not {max_plies!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        if illegal not in ("raise", "lose"):
            raise ValueError(f"illegal must be 'raise' or 'lose', not {illegal!r}")
        self.illegal = illegal
        self.player = player
        self.opponent_level = opponent
        self.opponent_time = opponent_time
        self.max_plies = max_plies
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, shape=self.game.observation_shape(), dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions())
        # Checks the level now, so a typo fails at construction.
        self.opponent = Agent(self.game, opponent, seed=0, time=opponent_time)
        self.state = None
        self._lost_by_illegal = False

    def _observe(self):
        return self.state.observation_tensor(self.player)

    def action_masks(self):
        """The legal actions of the agent (int8, 1 where legal)."""
        mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        if not self.state.is_terminal() and self.state.current_player() == self.player:
            mask[self.state.legal_actions()] = 1
        return mask

    def _info(self):
        return {"action_mask": self.action_masks(), "plies": self.state.move_number()}

    def _opponent_moves(self):
        while not self.state.is_terminal() and self.state.current_player() != self.player:
            self.opponent.step(self.state)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.opponent = Agent(self.game, self.opponent_level, seed=seed, time=self.opponent_time)
            self.action_space.seed(seed)
        self.state = self.game.new_initial_state()
        self._lost_by_illegal = False
        self._opponent_moves()
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.state.is_terminal() or self._lost_by_illegal:
            raise RuntimeError("the game is over: call reset()")
        action = int(action)
        if self.illegal == "lose" and action not in self.state.legal_actions():
            self._lost_by_illegal = True
            info = dict(self._info(), illegal_action=True)
            return self._observe(), -1.0, True, False, info
        self.state.apply_action(action)
        self._opponent_moves()
        terminated = self.state.is_terminal()
        reward = float(self.state.returns()[self.player]) if terminated else 0.0
        truncated = (
            not terminated and self.max_plies is not None and self.state.move_number() >= self.max_plies
        )
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def render(self):
        if self.render_mode is None or self.state is None:
            return None
        if self.render_mode == "human":
            print(self.state)
            return None
        return str(self.state)
