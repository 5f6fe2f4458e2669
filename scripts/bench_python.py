"""Random rollouts per CPU second through each library's Python API.

Run by scripts/bench-python, which prepares the virtual environment. Each
measurement runs in its own process (so one library's thread pools cannot
burn CPU time in another's measurement) for about --seconds of CPU time, and
reports finished games per CPU second of the whole process (every thread
counts: Tabula's VecEnv runs on several).

    python scripts/bench_python.py [--seconds 10] [--only NAME ...] [--json]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

#: Environments stepped together by the VecEnv loops.
VEC_N = 512
#: Batch size of pgx (JAX on CPU).
PGX_BATCH = 256
#: The mean length of a random OpenSpiel chess game (measured: about 340).
OPENSPIEL_CHESS_PLIES = 340


def cpu():
    return time.process_time()


def measure(seconds, body):
    """Call body() (which returns (games, plies)) until `seconds` of CPU time
    have passed; returns games and plies per CPU second."""
    games = plies = 0
    start = cpu()
    while True:
        g, p = body()
        games += g
        plies += p
        spent = cpu() - start
        if spent >= seconds:
            return {
                "games_per_cpu_s": games / spent,
                "plies_per_game": plies / games if games else None,
                "plies": plies,
                "cpu_s": spent,
            }


def random_games(seconds, game):
    """Random games through an OpenSpiel-style single-state API: the same
    loop for OpenSpiel and for Tabula, so the two figures compare."""
    import random

    rng = random.Random(0)

    def one():
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            n += 1
        return 1, n

    return measure(seconds, one)


def bench_openspiel_chess(seconds):
    import pyspiel

    return random_games(seconds, pyspiel.load_game("chess"))


def bench_tabula_single(seconds, game_id="cumisitha", **options):
    import tabula

    return random_games(seconds, tabula.load_game(game_id, **options))


def numpy_sampler(env, source, seed=0):
    """Uniform sampling of one legal action per game, vectorised with numpy
    as a learning loop would, from what the environment gives:
    - "mask": `tabula.sample_legal` on the (n, A) bool mask, plain numpy
      that finds the legal actions of all rows at once (reading the mask as
      64-bit words), then one random pick per row;
    - "lists": `tabula.sample_listed` on the (n, max_legal) lists of legal
      actions and their counts: one random index per row, below its count,
      and the action there."""
    import numpy as np

    import tabula

    rng = np.random.default_rng(seed)
    if source == "mask":
        return lambda mask: tabula.sample_legal(mask, rng)
    legal, counts = env.legal_actions, env.num_legal_actions
    return lambda mask: tabula.sample_listed(legal, counts, rng)


def bench_tabula_vecenv(seconds, game_id="cumisitha", n=VEC_N, source="lists", threads=None, **options):
    import tabula

    env = tabula.VecEnv(game_id, n, seed=0, threads=threads, **options)
    obs, mask = env.reset()
    sample = numpy_sampler(env, source)
    state = {"mask": mask, "step_cpu": 0.0, "steps": 0}

    def chunk():
        games = 0
        for _ in range(20):
            actions = sample(state["mask"])
            t = cpu()
            obs, mask, rewards, terminated, truncated = env.step(actions)
            state["step_cpu"] += cpu() - t
            state["mask"] = mask
            games += int(terminated.sum())
            state["steps"] += n
        return games, 20 * n

    for _ in range(5):
        chunk()
    state["step_cpu"], state["steps"] = 0.0, 0
    r = measure(seconds, chunk)
    # All the games start together, so a short run sees the finished games
    # come in waves (a run shorter than one game, as with Dots, sees none
    # end). The loop plays uniformly random games, so its steady rate is
    # its steps per CPU second over the mean length of a random game,
    # measured outside the clock from random_rollouts of the same game.
    r["games_finished_in_loop"] = r["games_per_cpu_s"] * r["cpu_s"]
    _, lengths = tabula.VecEnv(game_id, 1, seed=1, **options).random_rollouts(2000)
    r["plies_per_game"] = float(lengths.mean())
    r["games_per_cpu_s"] = r["plies"] / r["cpu_s"] / r["plies_per_game"]
    # Where the time goes: VecEnv.step (Rust, all threads) and the rest of
    # the loop (numpy sampling), per game step.
    r["step_ns"] = state["step_cpu"] / state["steps"] * 1e9
    r["sample_ns"] = (r["cpu_s"] - state["step_cpu"]) / state["steps"] * 1e9
    return r


def bench_tabula_rollouts(seconds, game_id="cumisitha", **options):
    import tabula

    env = tabula.VecEnv(game_id, 1, seed=0, **options)

    def chunk():
        returns, lengths = env.random_rollouts(1000)
        return len(lengths), int(lengths.sum())

    return measure(seconds, chunk)


def bench_pgx_chess(seconds):
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make("chess")
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))

    @jax.jit
    def act(key, mask):
        logits = jnp.where(mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)

    key = jax.random.PRNGKey(0)
    key, sub = jax.random.split(key)
    state = init(jax.random.split(sub, PGX_BATCH))
    holder = {"state": state, "key": key}

    def run(steps):
        games = plies = 0
        state, key = holder["state"], holder["key"]
        for _ in range(steps):
            key, k1, k2 = jax.random.split(key, 3)
            action = act(k1, state.legal_action_mask)
            state = step(state, action, jax.random.split(k2, PGX_BATCH))
            done = state.terminated | state.truncated
            games += int(done.sum())
            plies += PGX_BATCH
            # Finished games start again (pgx leaves them finished).
            if bool(done.any()):
                key, k3 = jax.random.split(key)
                fresh = init(jax.random.split(k3, PGX_BATCH))
                state = jax.tree_util.tree_map(
                    lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), b, a), state, fresh
                )
        holder["state"], holder["key"] = state, key
        return games, plies

    run(3)  # compile before the clock starts
    r = measure(seconds, lambda: run(10))
    # A run sees few random chess games end (each lasts hundreds of steps
    # and they all start together), so count games from the steps, at
    # OpenSpiel's mean random game length: pgx plays the same draw rules
    # (repetition, 50 moves, material).
    r.update(games_per_cpu_s=r["plies"] / r["cpu_s"] / OPENSPIEL_CHESS_PLIES, plies_per_game=None, estimated=True)
    return r


def bench_cli(seconds, game_id):
    """`tabula bench GAME`: Rust playouts on one thread, per CPU second."""
    exe = os.path.join(REPO, "target", "release", "tabula")
    out = subprocess.run(
        [exe, "bench", game_id, "--seconds", str(seconds)], capture_output=True, text=True, check=True
    ).stdout
    per_cpu = re.search(r"playouts / second:\s*\d+ \((\d+) per CPU second\)", out)
    per_game = re.search(r"plies / playout:\s*([\d.]+)", out)
    return {"games_per_cpu_s": float(per_cpu.group(1)), "plies_per_game": float(per_game.group(1)), "cpu_s": seconds}


BENCHES = {
    "openspiel-chess": ("OpenSpiel chess, Python API (`pyspiel`)", lambda s: bench_openspiel_chess(s)),
    "pgx-chess": (f"pgx chess, JAX on CPU, batch {PGX_BATCH}", lambda s: bench_pgx_chess(s)),
    "tabula-single": ("Tabula Cumisitha, single-state API", lambda s: bench_tabula_single(s)),
    "tabula-vecenv": (
        f"Tabula Cumisitha, VecEnv loop ({VEC_N} envs, numpy sampling from the legal lists)",
        lambda s: bench_tabula_vecenv(s),
    ),
    "tabula-vecenv-1thread": (
        f"Tabula Cumisitha, VecEnv loop ({VEC_N} envs, `threads=1`, numpy sampling from the legal lists)",
        lambda s: bench_tabula_vecenv(s, threads=1),
    ),
    "tabula-vecenv-mask": (
        f"Tabula Cumisitha, VecEnv loop ({VEC_N} envs, numpy sampling from the masks)",
        lambda s: bench_tabula_vecenv(s, source="mask"),
    ),
    "tabula-rollouts": ("Tabula Cumisitha, `VecEnv.random_rollouts`", lambda s: bench_tabula_rollouts(s)),
    "cli-cumisitha": ("`tabula bench cumisitha` (Rust, one thread)", lambda s: bench_cli(s, "cumisitha")),
    "dots-vecenv": (
        f"Tabula Dots 39x32, VecEnv loop ({VEC_N} envs, numpy sampling from the legal lists)",
        lambda s: bench_tabula_vecenv(s, "dots"),
    ),
    "dots-rollouts": ("Tabula Dots 39x32, `VecEnv.random_rollouts`", lambda s: bench_tabula_rollouts(s, "dots")),
    "cli-dots": ("`tabula bench dots` (Rust, one thread)", lambda s: bench_cli(s, "dots")),
    "cordots-vecenv": (
        f"Tabula Cordots, VecEnv loop ({VEC_N} envs, numpy sampling from the legal lists)",
        lambda s: bench_tabula_vecenv(s, "cordots"),
    ),
    "cordots-rollouts": ("Tabula Cordots, `VecEnv.random_rollouts`", lambda s: bench_tabula_rollouts(s, "cordots")),
    "cli-cordots": ("`tabula bench cordots` (Rust, one thread)", lambda s: bench_cli(s, "cordots")),
}

#: The measurements compared with OpenSpiel's chess.
CHESS_LIKE = {
    "openspiel-chess",
    "pgx-chess",
    "tabula-single",
    "tabula-vecenv",
    "tabula-vecenv-1thread",
    "tabula-vecenv-mask",
    "tabula-rollouts",
    "cli-cumisitha",
}

#: Chess-like targets of issue 18: at least this many times OpenSpiel's chess.
TARGETS = {
    "tabula-single": 2,
    "tabula-vecenv": 10,
    "tabula-vecenv-1thread": 10,
    "tabula-vecenv-mask": 10,
    "tabula-rollouts": 25,
}


def run_one(name, seconds):
    cmd = [sys.executable, os.path.abspath(__file__), "--one", name, "--seconds", str(seconds)]
    # numpy's OpenBLAS threads are not used by any measurement, but their
    # start-up spinning would be counted as the process's CPU time.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per measurement (default 10)")
    ap.add_argument("--only", nargs="*", choices=sorted(BENCHES), help="run only these measurements")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    args = ap.parse_args()
    if args.seconds <= 0:
        ap.error("--seconds must be positive")
    if args.one:
        print(json.dumps(BENCHES[args.one][1](args.seconds)))
        return
    names = args.only or list(BENCHES)
    results = {}
    for name in names:
        print(f"measuring {name} ...", file=sys.stderr, flush=True)
        results[name] = run_one(name, args.seconds)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    base = results.get("openspiel-chess", {}).get("games_per_cpu_s")
    print(f"| measurement | games / CPU s | plies / game | × OpenSpiel chess | target |")
    print("|---|---:|---:|---:|---|")
    for name in names:
        label, r = BENCHES[name][0], results[name]
        if "error" in r:
            print(f"| {label} | failed: {r['error']} | | | |")
            continue
        ratio = r["games_per_cpu_s"] / base if base and name in CHESS_LIKE else None
        target = TARGETS.get(name)
        verdict = ""
        if target and ratio is not None:
            verdict = f"≥ {target}×: {'met' if ratio >= target else 'missed'}"
        games = f"{r['games_per_cpu_s']:,.1f}" if r["games_per_cpu_s"] < 100 else f"{r['games_per_cpu_s']:,.0f}"
        if r.get("estimated"):
            games = f"≈ {games} (from {r['plies'] / r['cpu_s']:,.0f} plies / CPU s)"
        plies = "" if r["plies_per_game"] is None else f"{r['plies_per_game']:.0f}"
        print(f"| {label} | {games} | {plies} | {'' if ratio is None else f'{ratio:.2g}×'} | {verdict} |")
    print()
    for name in names:
        r = results[name]
        if "step_ns" in r:
            print(
                f"{BENCHES[name][0]}: per game step, {r['step_ns']:,.0f} ns CPU in VecEnv.step "
                f"and {r['sample_ns']:,.0f} ns in the rest of the loop (numpy sampling)."
            )
    print()
    print(
        f"CPU time of the whole process (all threads), {args.seconds:g} s per measurement, "
        f"{os.cpu_count()} CPUs; Cumisitha plays until mate, stalemate or the 100-ply counter "
        "(no repetition or material draws), OpenSpiel's chess also draws by repetition and material."
    )


if __name__ == "__main__":
    main()
