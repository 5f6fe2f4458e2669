"""The programs in examples/python run and print what they promise."""

import subprocess
import sys

from conftest import REPO

EXAMPLES = REPO / "examples" / "python"


def run(name, *args):
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_random_rollouts_example():
    out = run("random_rollouts.py", "coldwar", "0.2")
    for line in ("single-state API", "VecEnv + numpy", "VecEnv.random_rollouts"):
        assert line in out


def test_mcts_example():
    out = run("mcts.py", "30")
    assert "returns (python mcts as x, tabula mcts as o):" in out


def test_pettingzoo_loop_example():
    out = run("pettingzoo_loop.py")
    assert "rewards:" in out
