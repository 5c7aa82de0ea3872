"""agents.ffo.search and training.expert_iteration: the search operator and its loop (issue 39).

Small search budgets (horizon 0 or 1, one or two samples), so the module runs in seconds."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import default_game, swap_hidden

from agents.ffo.pretrained import load_pretrained
from agents.ffo.search import PolicySearchAgent, TeacherSettings
from agents.registry import make_agent
from ffo_env.ffo.core.determinize import hidden_slots
from ffo_env.ffo.core.state import State
from ffo_env.ffo.encoding.observation import encode
from ffo_env.ffo.env import make_game
from training.expert_iteration import ExpertIterationError, load_config, main

SEARCHED = ("attack_target", "evacuate", "german_order")


@lru_cache(maxsize=2)
def _policy(side: str) -> Any:
    return load_pretrained(side)


def _agent(side: str, horizon: int = 0, seed: int = 1, rollout: str = "bots") -> PolicySearchAgent:
    """Searches every listed decision with a choice and deviates on any gain (the policy's rollouts: two
    candidates in one sample, to stay fast)."""
    k, dets = (3, 2) if rollout == "bots" else (2, 1)
    s = TeacherSettings(
        decisions=SEARCHED,
        top_k=k,
        determinizations=dets,
        horizon_turns=horizon,
        min_gain=0.0,
        min_z=0.0,
        rollout=rollout,
    )
    return PolicySearchAgent(_policy(side), s, seed=seed)


@lru_cache(maxsize=1)
def _positions() -> tuple[State, ...]:
    """Searched decisions with a choice and units hidden from the side to play, from a heuristic game."""
    st = default_game().new_initial_state(5)
    bots = {s: make_agent("heuristic", s, seed=9) for s in ("french", "german")}
    out: list[State] = []
    while not st.is_terminal() and len(out) < 12:
        side = int(st.current_side)
        if st.decision.name.lower() in SEARCHED and len(st.legal_actions()) > 1 and hidden_slots(st, side):
            out.append(st.clone())
        st.apply_action(bots[st.current_agent].act_state(st))
    return tuple(out)


@pytest.mark.parametrize("rollout", ["bots", "policy"])
def test_search_teacher_plays_only_legal_actions(rollout: str) -> None:
    states = _positions()
    assert len(states) >= 4
    searched = 0
    for st in states:
        agent = _agent("french" if int(st.current_side) == 0 else "german", rollout=rollout)
        before = st.to_dict()
        chosen, own = agent.label(st)
        assert chosen in st.legal_actions() and own in st.legal_actions()
        assert st.to_dict() == before  # the search works on copies
        searched += agent.stats.searched
    assert searched == len(states)


@lru_cache(maxsize=1)
def _hidden_pairs() -> tuple[tuple[State, State], ...]:
    """Searched decisions and a copy with units hidden from the side to play swapped between stacks."""
    st = make_game("random").new_initial_state(5)
    bots = {s: make_agent("heuristic", s, seed=9) for s in ("french", "german")}
    out: list[tuple[State, State]] = []
    while not st.is_terminal() and len(out) < 2:
        side = int(st.current_side)
        if (
            st.decision.name.lower() in SEARCHED
            and len(st.legal_actions()) > 1
            and len(hidden_slots(st, side)) > 1
        ):
            other = swap_hidden(st, side)
            if other is not None and other.loc != st.loc:
                out.append((st.clone(), other))
        st.apply_action(bots[st.current_agent].act_state(st))
    return tuple(out)


@pytest.mark.parametrize("rollout", ["bots", "policy"])
def test_3_6_search_teacher_ignores_units_it_cannot_see(rollout: str) -> None:
    """A position and a copy with hidden units swapped between stacks: same probabilities, same choice."""
    pairs = _hidden_pairs()
    assert pairs
    for st, other in pairs:
        side = int(st.current_side)
        a_obs, b_obs = encode(st, side), encode(other, side)
        assert all(np.array_equal(a_obs[k], b_obs[k]) for k in a_obs)  # the side cannot tell them apart
        name = "french" if side == 0 else "german"
        a, b = _agent(name, horizon=1, rollout=rollout), _agent(name, horizon=1, rollout=rollout)
        assert np.allclose(
            a.probabilities(st, st.legal_actions()), b.probabilities(other, other.legal_actions())
        )
        assert a.label(st) == b.label(other)
        assert a.stats.searched == b.stats.searched == 1


class _CountingPolicy:
    """The shipped policy agent, counting the decisions it is asked to play."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def act_state(self, state: State) -> int:
        self.calls += 1
        return int(self.inner.act_state(state))


@pytest.mark.parametrize("rollout", ["bots", "policy"])
def test_search_teacher_rollouts_are_played_on_by_the_policy_only_when_asked(rollout: str) -> None:
    """rollout 'policy': the policy itself plays its side on after each candidate; 'bots': it plays none."""
    st = next(s for s in _positions() if int(s.current_side) == 1)
    spy = _CountingPolicy(_policy("german"))
    s = TeacherSettings(decisions=SEARCHED, top_k=2, determinizations=1, horizon_turns=1, rollout=rollout)
    agent = PolicySearchAgent(spy, s, seed=3)
    assert agent.label(st)[0] in st.legal_actions()
    assert agent.stats.searched == 1
    assert (spy.calls > 0) == (rollout == "policy")


def test_search_teacher_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown decision 'fly'"):
        TeacherSettings(decisions=("fly",))
    with pytest.raises(ValueError, match="top_k"):
        TeacherSettings(top_k=1)
    with pytest.raises(ValueError, match="rollout must be one of bots, policy"):
        TeacherSettings(rollout="dice")
    with pytest.raises(ValueError, match="opponent_model 'nobody'"):
        TeacherSettings(rollout="policy", opponent_model="nobody")


def _write(tmp: Path, text: str) -> Path:
    p = tmp / "ei.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_expert_iteration_config_errors_name_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ExpertIterationError, match=r"ei\.yaml: unknown key 'gamez'"):
        load_config(_write(tmp_path, "gamez: 3\n"))
    with pytest.raises(ExpertIterationError, match=r"key 'changed_weight'"):
        load_config(_write(tmp_path, "changed_weight: 0\n"))
    with pytest.raises(ExpertIterationError, match=r"key 'setup': expected one of .*random"):
        load_config(_write(tmp_path, "setup: shuffle\n"))
    assert load_config(_write(tmp_path, "seed: 1\n")).setup == "random"  # as ffo eval and ffo compare play
    with pytest.raises(ExpertIterationError, match=r"key 'teacher': .*top_k"):
        load_config(_write(tmp_path, "teacher: {top_k: 99}\n"))
    assert main(["--config", str(_write(tmp_path, "sides: [russian]\n")), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "sides" in err and not (tmp_path / "o").exists()


def test_expert_iteration_smoke_through_ffo_train_resumes_and_loads(tmp_path: Path) -> None:
    """`ffo train` with `method: expert_iteration`: one game against the German expert, one iteration; a
    student that loads; `ffo train --resume` does not replay the finished iteration."""
    from agents.ffo.policy import load_policy
    from ffo_env.cli import main as ffo

    cfg = _write(
        tmp_path,
        "method: expert_iteration\nrun_name: smoke\nsides: [french]\niterations: 1\ngames: 1\n"
        "opponents: {expert: 1.0}\nkeep_unchanged: 0.05\n"
        "teacher: {decisions: [attack_target], determinizations: 1, horizon_turns: 0, min_gain: 0.0, min_z: 0.0}\n",
    )
    assert ffo(["train", "--config", str(cfg), "--out", str(tmp_path / "runs")]) == 0
    (out,) = (tmp_path / "runs").iterdir()
    assert out.name.startswith("smoke-")
    progress = json.loads((out / "progress.json").read_text())
    (row,) = progress["french"]
    assert row["games"] == 1 and row["searched"] > 0 and row["samples"] > 0
    agent = load_policy(out / "policies" / "french.pt")
    assert agent.side == "french" and agent.meta["extra"]["method"] == "expert_iteration"
    stamp = (out / "students" / "french_it0.pt").stat().st_mtime_ns
    assert ffo(["train", "--resume", str(out)]) == 0  # the iteration is not replayed
    assert (out / "students" / "french_it0.pt").stat().st_mtime_ns == stamp
    assert json.loads((out / "progress.json").read_text()) == progress
