"""Scripted bots: legality over full games, determinism, visibility, config validation, registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents import make_agent
from agents.ffo.botconfig import BotConfigError, available_configs, load_params
from agents.ffo.french_heuristic import FrenchParams, make_french
from agents.ffo.german_heuristic import GermanParams, make_german
from agents.harness import wilson_interval  # noqa: F401  (import check)
from agents.registry import AGENT_NAMES
from ffo_env.ffo.core import hexgrid as hg
from ffo_env.ffo.core.game import Game, RulesOptions
from ffo_env.ffo.core.phases import Decision

GAME = Game(options=RulesOptions(setup="random"))


def _play(french, german, seed: int):
    s = GAME.new_initial_state(seed)
    agents = {"french": french, "german": german}
    while not s.is_terminal():
        legal = s.legal_actions()
        a = agents[s.current_agent].act_state(s)
        assert a in legal, f"{agents[s.current_agent].name} chose {a} at {s.decision_string()}"
        s.apply_action(a)
    return s


PAIRINGS = [
    ("heuristic", "random"),
    ("random", "heuristic"),
    ("heuristic", "heuristic"),
    ("pass", "heuristic"),
    ("heuristic", "pass"),
]


@pytest.mark.parametrize("french,german", PAIRINGS)
def test_bots_only_choose_legal_actions(french: str, german: str) -> None:
    n = 8 if (french, german) == ("heuristic", "heuristic") else 6
    for seed in range(n):
        f = make_agent(
            french, "french", seed=2 * seed + 1, **({"strict": True} if "heuristic" in french else {})
        )
        g = make_agent(
            german, "german", seed=2 * seed + 2, **({"strict": True} if "heuristic" in german else {})
        )
        s = _play(f, g, 1000 + seed)
        assert s.is_terminal()
        for a in (f, g):
            assert getattr(a, "fallbacks", 0) == 0, f"{a.name} fell back to the first legal action"


def test_level_variants_play_legally() -> None:
    for lvl in ("cautious", "aggressive"):
        s = _play(
            make_agent(f"heuristic:{lvl}", "french", seed=1, strict=True),
            make_agent(f"heuristic:{lvl}", "german", seed=2, strict=True),
            77,
        )
        assert s.is_terminal()


def test_decide_setup_is_handled() -> None:
    game = Game(options=RulesOptions(setup="decide"))
    s = game.new_initial_state(5)
    agents = {"french": make_french(seed=1, strict=True), "german": make_german(seed=2, strict=True)}
    while s.turn == 1 and not s.is_terminal():
        s.apply_action(agents[s.current_agent].act_state(s))
    assert s.turn == 2


def test_bots_are_deterministic_given_seed() -> None:
    def history(seed: int):
        s = _play(make_agent("heuristic", "french", seed=3), make_agent("heuristic", "german", seed=4), seed)
        return s.history, s.vp

    assert history(11) == history(11)


def test_bots_do_not_read_hidden_units() -> None:
    """Rule 3.6: swapping units hidden under an unrevealed top unit never changes the bot's choice."""
    s = GAME.new_initial_state(3)
    f, g = make_french(seed=1), make_german(seed=2)
    agents = {"french": f, "german": g}
    checked = 0
    while not s.is_terminal() and checked < 40:
        side = s.player
        hidden = [
            h
            for h, st in s.stacks.items()
            if len(st) > 1 and s.units[st[0]].side != side and h not in s.revealed[side]
        ]
        if hidden and s.decision.name in ("MOVE_DEST", "ATTACK_TARGET", "REFUGEE_HEX", "AIR_TARGET"):
            t = s.clone()
            st = t.stacks[hidden[0]]
            # change what only the hidden units know: their strength
            for u in st[:-1]:
                t.steps[u] = 1
            a1 = agents[s.current_agent].act_state(s)
            agents[s.current_agent].reset(None)
            a2 = agents[s.current_agent].act_state(t)
            assert a1 == a2
            checked += 1
        s.apply_action(agents[s.current_agent].act_state(s))
    assert checked > 0


def test_registry_names() -> None:
    for name in (
        "random",
        "pass",
        "heuristic",
        "heuristic:cautious",
        "heuristic:aggressive",
        "french_heuristic",
        "german_heuristic",
        "german_heuristic_cautious",
        "german_heuristic_aggressive",
    ):
        assert name in AGENT_NAMES
    with pytest.raises(ValueError, match="german side only"):
        make_agent("german_heuristic", "french")
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("nope", "french")


def test_shipped_configs_load() -> None:
    for name in available_configs():
        cls, side = (FrenchParams, "french") if name.startswith("french") else (GermanParams, "german")
        load_params(name, cls, side)
    assert load_params("german_heuristic_aggressive", GermanParams, "german").aggression == "aggressive"


def test_the_bot_files_moved_to_configs_ffo_bots_and_their_old_paths_still_load(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """issue 62 step 8: configs/bots/ -> configs/ffo/bots/; a path under the old folder names the same file."""
    from agents.ffo.botconfig import CONFIG_DIR, config_path

    assert CONFIG_DIR.parts[-2:] == ("ffo", "bots") and (CONFIG_DIR / "german_heuristic.yaml").is_file()
    monkeypatch.chdir(tmp_path)  # no configs/bots/ here: the old relative path is resolved to the new folder
    old = Path("configs/bots/expert/german_expert.yaml")
    assert config_path(old) == CONFIG_DIR / "expert" / "german_expert.yaml"
    assert load_params(
        "configs/bots/german_heuristic_aggressive.yaml", GermanParams, "german"
    ) == load_params("german_heuristic_aggressive", GermanParams, "german")
    (tmp_path / "configs" / "bots").mkdir(parents=True)  # a user's own file there is theirs: used as is
    own = tmp_path / "configs" / "bots" / "mine.yaml"
    own.write_text("version: 1\nside: german\nparams: {risk_weight: 2}\n", encoding="utf-8")
    assert config_path("configs/bots/mine.yaml") == Path("configs/bots/mine.yaml")
    assert load_params("configs/bots/mine.yaml", GermanParams, "german").risk_weight == 2


@pytest.mark.parametrize(
    "body,match",
    [
        ("version: 1\nside: german\nparams: {attack_min_evv: 1}\n", r"params\.attack_min_evv"),
        ("version: 1\nside: german\nparams: {attack_min_ev: high}\n", r"params\.attack_min_ev.*number"),
        ("version: 1\nside: german\nparams: {risk_weight: -1}\n", r"params\.risk_weight.*>= 0"),
        ("version: 1\nside: german\nparams: {order: sideways}\n", r"params\.order.*one of"),
        (
            "version: 1\nside: german\nparams: {use_replacements: 1}\n",
            r"params\.use_replacements.*true or false",
        ),
        ("version: 1\nside: french\nparams: {}\n", r"'side' must be 'german'"),
        ("version: 2\nside: german\n", r"'version' must be 1"),
        ("version: 1\nside: german\ncolour: red\n", r"unknown top-level key 'colour'"),
        ("version: 1\nside: german\nextends: missing_file\n", r"cannot read"),
        ("[1, 2\n", r"not valid YAML"),
    ],
)
def test_config_validation_errors_name_file_and_key(tmp_path, body: str, match: str) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text(body)
    with pytest.raises(BotConfigError, match=match) as e:
        load_params(p, GermanParams, "german")
    assert "bad.yaml" in str(e.value) or "missing_file" in str(e.value)


def test_config_extends_and_explicit_path(tmp_path) -> None:
    (tmp_path / "base.yaml").write_text("version: 1\nside: german\nparams: {attack_min_ev: 2.0}\n")
    (tmp_path / "child.yaml").write_text(
        "version: 1\nside: german\nextends: base\nparams: {risk_weight: 0.0}\n"
    )
    p = load_params(tmp_path / "child.yaml", GermanParams, "german")
    assert (p.attack_min_ev, p.risk_weight) == (2.0, 0.0)
    bot = make_agent("heuristic", "german", seed=0, config=str(tmp_path / "child.yaml"))
    assert bot.params.attack_min_ev == 2.0


def test_11_7_rail_stage_sends_a_far_french_unit_to_a_city_a_rail_move_reaches_a_port_from() -> None:
    """With ``rail_stage`` the French bot walks a unit that is turns from the ports to the nearest city from
    which a rail move (rule 11.7, R17) reaches an open port, rather than all the way; without, it walks on."""
    from conftest import U, act, plain_game, position, ua

    from agents.ffo.french_heuristic import FrenchHeuristic

    game = plain_game()
    text = "turn 3 phase FRENCH_MOVEMENT\nfrench: fr-I@5515"
    staging, walking = FrenchHeuristic(FrenchParams(rail_stage=1)), FrenchHeuristic(FrenchParams())
    s = position(text, game)
    assert staging.roles(s)[U("fr-I")] == "stage" and walking.roles(s)[U("fr-I")] == "evac"
    stage, port = staging.stage_map(s), staging.port_map(s)
    start = s.loc[U("fr-I")]
    act(s, ua("fr-I"))
    to_rail, on_foot = staging.act_state(s), walking.act_state(s)
    assert stage[to_rail] < stage[start] and port[on_foot] < port[start] and to_rail != on_foot
    assert stage[to_rail] == 0  # in the city (3 MP away, MF 4): next turn's first move is the rail move
    ports = set(staging.open_ports(s))
    s = position(f"turn 4 phase FRENCH_MOVEMENT\nfrench: fr-I@{hg.hex_name(to_rail)}", game)
    assert s.decision == Decision.RAIL_UNIT and staging.act_state(s) == ua("fr-I")
    assert ports & set(s.rail_options()[U("fr-I")])
