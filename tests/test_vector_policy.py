"""The shared vector-MLP policy (:mod:`agents.vector_policy`, issue 62 D1/D2): Springtime for Hitler's and
France 1940's policy files, loader, agent and training hook are one code with a descriptor per game.

The shipped policies of both games load unchanged and play as they did: ``tests/fixtures/vector_policies.json``
holds, measured with each game's own modules before they were folded into the shared one (session 44), each
shipped file's sha256, the actions of the ``pretrained`` agent at fixed decisions of a seeded random game, and
its logits on fixed observation vectors (the argmax, the 8 largest and the sum). Re-measure with
``python tests/test_vector_policy.py --write`` only when a new release of the shipped policies changes them.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents import policy_io  # noqa: E402
from agents import vector_policy as vp  # noqa: E402
from agents.network_spec import network_of  # noqa: E402
from ffo_env.games import SIDES, game_info  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "vector_policies.json"
GAMES = ("springtime", "france1940")  # the games whose network is the vector MLP (checked below)


def measure(game: str, side: str) -> dict[str, Any]:
    """The shipped ``side`` policy of ``game``: its files' sha256, its choices at fixed decisions of a seeded
    random game, and its logits on seeded observation vectors."""
    import torch

    mod = importlib.import_module(f"agents.{game}.policy")
    pt = mod.PRETRAINED_DIR / f"{side}.pt"
    agent = mod.load_pretrained(side)
    rng, state, k = random.Random(7), game_info(game).new_state(11), 0
    choices: list[list[int]] = []
    while len(choices) < 4 and not state.is_terminal():
        legal = state.legal_actions()
        if SIDES[state.current_player] == side and len(legal) > 1 and k % 7 == 0:
            choices.append([k, int(agent.act_state(state))])
        state.apply_action(rng.choice(legal))
        k += 1
    x = np.random.default_rng(5).random((2, int(agent.policy.observation_space.shape[0])), dtype=np.float32)
    with torch.inference_mode():
        logits = agent.policy.action_net(agent.policy.mlp_extractor.forward_actor(torch.as_tensor(x))).numpy()
    rows = []
    for row in logits.astype(np.float64):
        top = np.argsort(-row, kind="stable")[:8]
        rows.append(
            {"argmax": int(top[0]), "top": [[int(i), float(row[i])] for i in top], "sum": float(row.sum())}
        )
    return {
        "pt_sha256": hashlib.sha256(pt.read_bytes()).hexdigest(),
        "json_sha256": hashlib.sha256(pt.with_suffix(".json").read_bytes()).hexdigest(),
        "choices": choices,
        "logits": rows,
    }


@pytest.fixture(scope="module")
def pinned() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return doc


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("game", GAMES)
def test_the_shipped_policies_load_unchanged_and_give_the_same_actions_and_logits(
    game: str, side: str, pinned: dict[str, Any]
) -> None:
    want, got = pinned[game][side], measure(game, side)
    assert got["pt_sha256"] == want["pt_sha256"] and got["json_sha256"] == want["json_sha256"]
    assert got["choices"] == want["choices"]
    for g, w in zip(got["logits"], want["logits"], strict=True):
        assert g["argmax"] == w["argmax"] and [i for i, _ in g["top"]] == [i for i, _ in w["top"]]
        assert np.allclose([v for _, v in g["top"]], [v for _, v in w["top"]], rtol=1e-5, atol=1e-5)
        assert g["sum"] == pytest.approx(w["sum"], rel=1e-4, abs=1e-3)


@pytest.mark.parametrize("game", GAMES)
def test_the_games_hook_and_agent_are_the_shared_vector_mlp(game: str) -> None:
    mod = importlib.import_module(f"agents.{game}.policy")
    hook = network_of(game)
    assert isinstance(hook, vp.VectorMlpNetwork) and hook.kind is mod.KIND and mod.KIND.game == game
    assert issubclass(hook.agent, vp.VectorPolicyAgent) and hook.agent.kind is mod.KIND
    assert hook.policy_load_error is mod.PolicyLoadError and hook.pretrained_dir == mod.PRETRAINED_DIR
    name, kwargs = hook.policy_spec(hook.policy_section())
    assert name == "MlpPolicy" and kwargs["net_arch"]["pi"] == kwargs["net_arch"]["vf"]
    assert hook.env_kwargs("random", "win", 9)["observation_format"] == (mod.KIND.observation or "flat")
    # the suite's convention that tells a file's game (agents.policy_io.FORMATS): '<game>-policy'
    assert policy_io.FORMATS[game] == mod.KIND.format == f"{game}-policy"


@pytest.mark.parametrize("game", GAMES)
def test_the_descriptor_decides_format_network_record_and_errors(game: str, tmp_path: Path) -> None:
    """What differs between the games is the descriptor's: the file's format and game, whether the network
    records its observation, the error class and its words."""
    import torch

    mod = importlib.import_module(f"agents.{game}.policy")
    kind = mod.KIND
    torch.manual_seed(0)
    pt = vp.export_policy(kind, vp.build_policy(kind, [8], "relu"), tmp_path / "p", "german", [8], "relu")
    meta = json.loads(pt.with_suffix(".json").read_text())
    assert (meta["format"], meta["game"], meta["env"]) == (kind.format, game, kind.env_name)
    assert ("observation" in meta["network"]) == (kind.observation is not None)
    assert vp.is_policy_of(kind, pt) and mod.load_policy(pt).side == "german"
    with pytest.raises(mod.PolicyLoadError, match=f"no pretrained {kind.title} french policy"):
        mod.load_pretrained("french", tmp_path / "empty")
    meta["network"]["activation"] = "gelu"
    pt.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(mod.PolicyLoadError, match="network: expected net_arch"):
        mod.load_policy(pt)


if __name__ == "__main__":  # python tests/test_vector_policy.py --write: re-measure the fixture
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python tests/test_vector_policy.py --write")
    FIXTURE.write_text(
        json.dumps({g: {s: measure(g, s) for s in SIDES} for g in GAMES}, indent=1) + "\n", encoding="utf-8"
    )


@pytest.mark.parametrize("threads", [1, 2, None])
@pytest.mark.parametrize("game", GAMES)
def test_the_forward_pass_runs_on_the_agents_threads_and_restores_the_process_setting(
    game: str, threads: int | None
) -> None:
    """agents/torch_threads.py: a vector policy agent answers on ``threads`` torch threads (one by default: two
    spin-wait beside any busy process) and leaves the process's setting as it found it."""
    import torch

    mod = importlib.import_module(f"agents.{game}.policy")
    agent = mod.load_pretrained("german")
    assert agent.threads == 1
    agent.threads = threads
    seen: list[int] = []
    forward = agent.policy.mlp_extractor.forward_actor

    def spy(x: Any) -> Any:
        seen.append(torch.get_num_threads())
        return forward(x)

    agent.policy.mlp_extractor.forward_actor = spy
    before = torch.get_num_threads()
    torch.set_num_threads(3)
    try:
        mask = np.ones(agent.kind.n_actions(), dtype=bool)
        agent.act(np.zeros(int(agent.policy.observation_space.shape[0]), dtype=np.float32), mask)
        assert seen == [3 if threads is None else threads]
        assert torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "2"])
def test_a_bad_thread_count_is_refused_by_a_vector_policy_agent(threads: object) -> None:
    from agents.france1940.policy import France1940PolicyAgent

    with pytest.raises(ValueError, match="threads must be an integer >= 1 or None"):
        France1940PolicyAgent(None, "german", {}, threads=threads)  # type: ignore[arg-type]
