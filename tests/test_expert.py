"""agents.ffo.expert: the expert bots (issue 17). Small search budgets, no time limits."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from conftest import default_game

from agents.ffo.botconfig import BotConfigError
from agents.ffo.expert import (
    EXPERT_CONFIG_DIR,
    LEVELS,
    ExpertBot,
    expert_config_path,
    load_expert,
    make_expert,
)
from agents.registry import AGENT_NAMES, make_agent
from ffo_env.ffo.core.datasets import DEFAULT_DATA
from ffo_env.ffo.core.determinize import determinize, hidden_slots
from ffo_env.ffo.core.state import State
from ffo_env.ffo.env import make_game

NAMES = ("expert", "expert:fast", "expert:strong")


def _tiny(bot: ExpertBot, search: str, horizon: int = 0) -> ExpertBot:
    """The same bot with a small search budget at ``search`` (it deviates on any gain)."""
    p = dataclasses.replace(
        bot.params, search=search, determinizations=2, horizon_turns=horizon, min_z=0.0, min_gain=0.0
    )
    return ExpertBot(bot.side, p, bot._bases[None].params, seed=3, name=bot.name, by_data=bot.by_data)


def _play(french: object, german: object, seed: int, max_decisions: int | None = None) -> State:
    st = default_game().new_initial_state(seed)
    bots = {"french": french, "german": german}
    n = 0
    while not st.is_terminal() and (max_decisions is None or n < max_decisions):
        legal = st.legal_actions()
        a = bots[st.current_agent].act_state(st)  # type: ignore[attr-defined]
        assert a in legal, f"illegal action {a} at {st.decision_string()}"
        st.apply_action(a)
        n += 1
    return st


def test_expert_names_resolve_for_both_sides() -> None:
    for name in (*NAMES, "french_expert", "german_expert"):
        assert name in AGENT_NAMES
    for name in NAMES:
        for side in ("french", "german"):
            bot = make_agent(name, side, seed=1)
            assert isinstance(bot, ExpertBot) and bot.side == (0 if side == "french" else 1)
    assert make_agent("german_expert", "german").side == 1
    with pytest.raises(ValueError, match="german side only"):
        make_agent("german_expert", "french")


def test_shipped_expert_configs_load() -> None:
    files = sorted(EXPERT_CONFIG_DIR.glob("*_expert*.yaml"))
    assert len(files) == 6
    for f in files:
        side = f.name.split("_")[0]
        params, hparams, by_data = load_expert(f, side)
        kind = "FrenchParams" if side == "french" else "GermanParams"
        assert params.heuristic and type(hparams).__name__ == kind
        assert all(type(p).__name__ == kind for p in by_data.values())


def test_expert_plays_the_parameters_tuned_on_the_game_data(tmp_path: Path) -> None:
    """``<version>/<heuristic>.yaml`` beside the expert file is played in games of that data version only."""
    (tmp_path / "german_expert.yaml").write_text("version: 1\nside: german\nparams:\n  heuristic: g\n")
    (tmp_path / "g.yaml").write_text("version: 1\nside: german\nparams: {attack_min_ev: 0.3}\n")
    (tmp_path / "reconstruction-v1").mkdir()
    (tmp_path / "reconstruction-v1" / "g.yaml").write_text(
        "version: 1\nside: german\nparams: {attack_min_ev: 2.5, risk_weight: 6.0}\n"
    )
    _params, hp, by_data = load_expert(tmp_path / "german_expert.yaml", "german")
    assert hp.attack_min_ev == 0.3 and set(by_data) == {"reconstruction-v1"}
    assert by_data["reconstruction-v1"].risk_weight == 6.0
    bot = make_expert("german", seed=1, config=tmp_path / "german_expert.yaml")
    for data, expected in (("reconstruction-v1", 2.5), ("reconstruction-v2", 0.3)):
        st = make_game(data=data).new_initial_state(3)
        while st.current_agent != "german":
            st.apply_action(make_agent("heuristic", "french", seed=0).act_state(st))
        bot.act_state(st)
        assert bot.base.params.attack_min_ev == expected
        assert bot.rollout_bots[1].params.attack_min_ev == expected


def test_shipped_experts_have_parameters_tuned_on_v2_for_v2_and_the_default_v3() -> None:
    """Both experts play parameters tuned on v2 in games of v2 and v3 (the German against the French heuristic,
    the French against that German expert: README, Expert bots) and their folder's own file elsewhere."""
    for side in ("german", "french"):
        _p, hp, by_data = load_expert(EXPERT_CONFIG_DIR / f"{side}_expert.yaml", side)
        # v3 (the default) was chosen with the v2-tuned experts and plays them unchanged
        assert set(by_data) == {"reconstruction-v2", DEFAULT_DATA} and by_data[DEFAULT_DATA] != hp
        assert by_data[DEFAULT_DATA] == by_data["reconstruction-v2"]
        for level in LEVELS:
            assert set(load_expert(expert_config_path(side, level), side)[2]) == {
                "reconstruction-v2",
                DEFAULT_DATA,
            }


def test_expert_config_errors_name_file_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "german_expert.yaml"
    bad.write_text("version: 1\nside: german\nparams:\n  heuristic: nope\n")
    with pytest.raises(BotConfigError, match=r"german_expert\.yaml: key 'params\.heuristic'"):
        load_expert(bad, "german")
    bad.write_text(
        "version: 1\nside: german\nparams:\n  heuristic: german_tuned\n  search: attack_target, fly\n"
    )
    (tmp_path / "german_tuned.yaml").write_text("version: 1\nside: german\nparams: {}\n")
    with pytest.raises(BotConfigError, match=r"key 'params\.search': unknown decision 'fly'"):
        load_expert(bad, "german")
    bad.write_text("version: 1\nside: german\nparams:\n  heuristic: german_tuned\n  determinizations: 0\n")
    with pytest.raises(BotConfigError, match=r"key 'params\.determinizations' must be >= 1"):
        load_expert(bad, "german")
    (tmp_path / "german_tuned.yaml").write_text("version: 1\nside: german\nparams: {risk_weight: -1}\n")
    bad.write_text("version: 1\nside: german\nparams:\n  heuristic: german_tuned\n")
    with pytest.raises(BotConfigError, match=r"german_tuned\.yaml: key 'params\.risk_weight'"):
        load_expert(bad, "german")
    # a per-data-version file is read as strictly, and its error names that file (in its version folder)
    (tmp_path / "german_tuned.yaml").write_text("version: 1\nside: german\nparams: {}\n")
    (tmp_path / "reconstruction-v1").mkdir()
    (tmp_path / "reconstruction-v1" / "german_tuned.yaml").write_text(
        "version: 1\nside: german\nparams: {attack_min_ev: fast}\n"
    )
    with pytest.raises(
        BotConfigError, match=r"reconstruction-v1/german_tuned\.yaml: key 'params\.attack_min_ev'"
    ):
        load_expert(bad, "german")


def test_expert_plays_only_legal_actions_over_a_full_game() -> None:
    g = _tiny(make_expert("german", seed=1), "german_order,attack_target")
    st = _play(make_expert("french", seed=2), g, seed=11)
    assert st.is_terminal() and g.searched > 0


def test_expert_is_deterministic_given_its_seed() -> None:
    def run() -> list[int]:
        f = _tiny(make_expert("french", seed=4), "attack_target,evacuate")
        g = _tiny(make_expert("german", seed=5), "german_order,attack_target")
        st = _play(f, g, seed=21, max_decisions=400)
        return [a for _s, a, _auto in st.history]

    assert run() == run()


def test_3_6_expert_choice_ignores_what_it_cannot_see() -> None:
    """Two positions that differ only in the units hidden from the expert get the same choices."""
    st = default_game().new_initial_state(5)
    bots = {s: make_agent("heuristic", s, seed=9) for s in ("french", "german")}
    checked = 0
    for _ in range(2000):
        if st.is_terminal() or checked >= 6:
            break
        side = int(st.current_side)
        if st.decision.name.lower() in ("attack_target", "german_order", "evacuate") and hidden_slots(
            st, side
        ):
            other = determinize(st, side, random.Random(checked))
            name = "german" if side == 1 else "french"
            search = "attack_target,german_order,evacuate"
            a = _tiny(make_expert(name, seed=1), search, 1).act_state(st)
            b = _tiny(make_expert(name, seed=1), search, 1).act_state(other)
            assert a == b
            checked += 1
        st.apply_action(bots[st.current_agent].act_state(st))
    assert checked > 0


def test_time_budget_stops_new_determinizations_but_plays_one() -> None:
    """``time_budget``: no determinization starts once the budget is spent; the first always runs, and every
    candidate is scored on the same samples (paired)."""
    from agents.ffo.expert_search import score_candidates

    st = default_game().new_initial_state(7)
    bots = {s: make_agent("heuristic", s, seed=9) for s in ("french", "german")}
    while st.decision.name.lower() != "german_order" or len(st.legal_actions()) < 2:
        st.apply_action(bots[st.current_agent].act_state(st))
    g = make_expert("german", seed=1)
    cands = st.legal_actions()[:2]
    for budget, expected in ((0.0, 3), (1e-9, 1), (3600.0, 3)):
        s = dataclasses.replace(g.params, determinizations=3, horizon_turns=0, time_budget=budget).settings()
        values = score_candidates(st, 1, cands, g.rollout_bots, s, random.Random(2))
        assert [len(v) for v in values] == [expected, expected], budget


def test_time_budget_is_validated(tmp_path: Path) -> None:
    (tmp_path / "german_tuned.yaml").write_text("version: 1\nside: german\nparams: {}\n")
    bad = tmp_path / "german_expert.yaml"
    bad.write_text("version: 1\nside: german\nparams:\n  heuristic: german_tuned\n  time_budget: -1\n")
    with pytest.raises(BotConfigError, match=r"key 'params\.time_budget' must be >= 0"):
        load_expert(bad, "german")
    bad.write_text("version: 1\nside: german\nparams:\n  heuristic: german_tuned\n  time_budget: 2.5\n")
    assert load_expert(bad, "german")[0].settings().time_budget == 2.5
