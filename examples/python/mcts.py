"""A plain MCTS (UCT with random playouts) written in Python over Tabula
states, playing Cold War against Tabula's own MCTS.

    python examples/python/mcts.py [simulations]
"""

import math
import random
import sys

import tabula


class Node:
    def __init__(self, state, parent=None, action=None):
        self.parent, self.action = parent, action
        self.player = state.current_player()  # who moves here
        self.untried = state.legal_actions()
        random.shuffle(self.untried)
        self.children = []
        self.visits, self.value = 0, 0.0  # value for the player who moved into this node

    def best_child(self, c=1.4):
        log_n = math.log(self.visits)
        return max(self.children, key=lambda ch: ch.value / ch.visits + c * math.sqrt(log_n / ch.visits))


def mcts(root_state, simulations, rng):
    root = Node(root_state)
    for _ in range(simulations):
        node, state = root, root_state.clone()
        while not node.untried and node.children:  # selection
            node = node.best_child()
            state.apply_action(node.action)
        if node.untried:  # expansion
            action = node.untried.pop()
            state.apply_action(action)
            node.children.append(Node(state, node, action))
            node = node.children[-1]
        while not state.is_terminal():  # playout
            state.apply_action(rng.choice(state.legal_actions()))
        returns = state.returns()
        while node is not None:  # backpropagation
            node.visits += 1
            if node.parent is not None:
                node.value += (returns[node.parent.player] + 1) / 2
            node = node.parent
    return max(root.children, key=lambda ch: ch.visits).action


simulations = int(sys.argv[1]) if len(sys.argv) > 1 else 200
game = tabula.load_game("coldwar")
rng = random.Random(1)
opponent = tabula.MCTSAgent(game, iterations=simulations, seed=2)
state = game.new_initial_state()
while not state.is_terminal():
    if state.current_player() == 0:
        action = mcts(state, simulations, rng)
    else:
        action = opponent.choose(state)
    state.apply_action(action)
print(state)
print(f"after {state.move_number()} plies: {state.outcome_reason()}")
print("returns (python mcts as x, tabula mcts as o):", state.returns())
