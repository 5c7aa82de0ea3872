"""Golden observations: the encoder's arrays must stay bit-identical (the layout is frozen).

Trained policies check a hash of the observation spec, and a faster encoder must not
change a single byte of what it returns. ``tests/fixtures/encoding_golden_states.json.gz``
holds ~200 states sampled from seeded random games (``setup="random"`` and
``"decide"``, terminal states included), and ``tests/fixtures/encoding_golden.json``
the SHA-256 of the encoder's output for each of them: both viewers, with fog of war
and omniscient, and the action mask.

The test is independent of the rules core's game dynamics: it rebuilds each stored
state (``State.from_dict``), passes the stored legal actions and serves the stored
supply masks (the only thing the encoder asks the core to compute), so a change of the
rules (another random game, another supply ruling) does not touch it. What it checks
is the function state -> arrays.

Regenerate ONLY on purpose (a deliberate, versioned change of the observation layout):

    .venv/bin/python tests/test_encoding_golden.py --write

(``--rehash`` keeps the stored states and rewrites only their hashes: a deliberate value change, such as
the unit-table CF scale 1/8 -> 1/16 of reconstruction-v2.)

``tests/test_encoding_reference.py`` checks the encoder against the frozen reference
implementation on fresh games of the current core.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import random
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ffo_env.ffo.core.game import ENGINE_VERSION, Game, RulesOptions
from ffo_env.ffo.core.scenario import scenario_for
from ffo_env.ffo.core.state import State
from ffo_env.ffo.encoding.observation import encoder_for

FIXTURES = Path(__file__).parent / "fixtures"
HASHES = FIXTURES / "encoding_golden.json"
STATES = FIXTURES / "encoding_golden_states.json.gz"
VIEWS = (
    ("french", 0, False),
    ("german", 1, False),
    ("french_omniscient", 0, True),
    ("german_omniscient", 1, True),
)
SUPPLY_KEYS = ((0, False), (1, False), (1, True))

# (setup, game seeds, states sampled per game, of which from the first 60 decisions)
PLAN = (("random", range(8), 20, 3), ("decide", (100, 101), 14, 6))


@lru_cache(maxsize=4)
def _game(setup: str) -> Game:
    # the fixture's states were played on reconstruction-v1: they keep their counters whatever the default
    return Game(scenario=scenario_for("reconstruction-v1"), options=RulesOptions(setup=setup))


def digest(obs: dict[str, np.ndarray]) -> str:
    """SHA-256 of a dict of arrays: key, dtype, shape and bytes of each, in key order."""
    h = hashlib.sha256()
    for k in sorted(obs):
        a = np.ascontiguousarray(obs[k])
        h.update(f"{k}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def hashes_of(state: State, legal: list[int] | None) -> dict[str, str]:
    enc = encoder_for(state.game)
    out = {name: digest(enc.encode(state, viewer, omni, legal=legal)) for name, viewer, omni in VIEWS}
    out["mask"] = digest({"mask": enc.mask(state, legal)})
    return out


# ------------------------------------------------------------ stored states


def _pack_mask(m: bytearray) -> str:
    a = np.frombuffer(bytes(m), dtype=np.uint8)
    assert a.max(initial=0) <= 1
    return base64.b64encode(np.packbits(a).tobytes()).decode()


def _unpack_mask(s: str, n: int) -> bytearray:
    return bytearray(np.unpackbits(np.frombuffer(base64.b64decode(s), dtype=np.uint8))[:n].tobytes())


def state_record(state: State) -> dict[str, Any]:
    """What the encoder reads of ``state``, JSON-ready (history kept as its length only)."""
    d = state.to_dict()
    d["history_len"] = len(d.pop("history"))
    d["dice_log"] = []
    d["vp_log"] = []
    n = len(state.control)
    return {
        "setup": state.game.options.setup,
        "state": d,
        "legal": None if state.is_terminal() else list(state.legal_actions()),
        "supply": {
            f"{side}{int(west)}": _pack_mask(state._supply_mask(side, west)) for side, west in SUPPLY_KEYS
        },
        "n_hex": n,
    }


def rebuild(rec: dict[str, Any]) -> tuple[State, list[int] | None]:
    """The stored state, with its supply masks served from the record (not recomputed by the core)."""
    d = dict(rec["state"])
    d["history"] = [[0, 0, False]] * d.pop("history_len")
    # the stored positions were saved by ffo-engine-1; the encoder is pinned on the positions, which the
    # engine-2 corrections (R17 rail routes, R38 retreats) do not change, so they load as engine-2 states
    d["engine"] = ENGINE_VERSION
    d.setdefault("rail_log", [])
    s = State.from_dict(_game(rec["setup"]), d)
    masks = {(int(k[0]), bool(int(k[1]))): _unpack_mask(v, rec["n_hex"]) for k, v in rec["supply"].items()}
    s._supply_mask = lambda side, west: masks[(int(side), bool(west))]  # type: ignore[method-assign]
    return s, rec["legal"]


def sample_states() -> list[State]:
    """~200 states of seeded random games (uniform random legal play), terminal states included."""
    out: list[State] = []
    for setup, seeds, per_game, early in PLAN:
        g = _game(setup)
        for seed in seeds:
            rng = random.Random(1000 + seed)
            s = g.new_initial_state(seed)
            trace = [s.clone()]
            while not s.is_terminal():
                legal = s.legal_actions()
                s.apply_action(legal[rng.randrange(len(legal))])
                trace.append(s.clone())
            n = len(trace) - 1
            picks = set(rng.sample(range(min(60, n)), early))
            while len(picks) < per_game:
                picks.add(rng.randrange(n))
            out.extend(trace[i] for i in sorted(picks))
            out.append(trace[-1])
    return out


@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    meta = json.loads(HASHES.read_text(encoding="utf-8"))
    with gzip.open(STATES, "rt", encoding="utf-8") as f:
        records = json.load(f)
    return meta, records


# -------------------------------------------------------------------- tests


def test_fixture_is_consistent():
    meta, records = _load()
    assert meta["format"] == "ffo-encoding-golden" and meta["version"] == 1
    assert len(records) == len(meta["hashes"]) >= 150
    assert meta["spec"] == _spec()
    kinds = {r["state"]["decision"] for r in records}
    assert len(kinds) >= 8, f"the sample should cover many kinds of decision, got {sorted(kinds)}"
    assert sum(r["legal"] is None for r in records) >= 5, "terminal states"


@pytest.mark.parametrize("chunk", range(4))
def test_encoder_matches_golden_hashes(chunk):
    meta, records = _load()
    bad = []
    for i in range(chunk, len(records), 4):
        s, legal = rebuild(records[i])
        got = hashes_of(s, legal)
        want = meta["hashes"][i]
        diff = sorted(k for k in want if got[k] != want[k])
        if diff:
            bad.append((i, records[i]["state"]["decision"], diff))
    assert not bad, f"encoder output changed for {len(bad)} states (index, decision, views): {bad[:10]}"


def test_legal_none_equals_legal_given():
    """The ``legal=`` shortcut of the AEC env gives the same arrays as the encoder asking the core."""
    _meta, records = _load()
    for rec in records[::10]:
        s, legal = rebuild(rec)
        if legal is None or list(s.legal_actions()) != legal:
            continue  # terminal, or the core's rules changed since the fixture was written
        enc = encoder_for(s.game)
        for _name, viewer, omni in VIEWS:
            assert digest(enc.encode(s, viewer, omni)) == digest(enc.encode(s, viewer, omni, legal=legal))


def _spec() -> dict[str, Any]:
    from ffo_env.ffo.encoding.observation import GLOBAL_GROUPS, PLANE_GROUPS, UNIT_GROUPS

    return {
        "planes": [list(g[:3]) for g in PLANE_GROUPS],
        "globals": [list(g[:2]) for g in GLOBAL_GROUPS],
        "units": [list(g[:2]) for g in UNIT_GROUPS],
    }


# --------------------------------------------------------------- regenerate


def rehash_fixtures() -> None:
    """Keep the stored states, rewrite their hashes: for a deliberate change of the encoder's values."""
    meta, records = _load()
    meta["hashes"] = [hashes_of(*rebuild(rec)) for rec in records]
    meta["spec"] = _spec()
    HASHES.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"rehashed {len(records)} states in {HASHES}")


def write_fixtures() -> None:
    states = sample_states()
    records, hashes = [], []
    for s in states:
        rec = json.loads(json.dumps(state_record(s)))
        live = hashes_of(s, rec["legal"])
        t, legal = rebuild(rec)
        again = hashes_of(t, legal)
        assert live == again, f"state did not survive the fixture round trip at {s.decision.name}"
        records.append(rec)
        hashes.append(live)
    FIXTURES.mkdir(exist_ok=True)
    with gzip.open(STATES, "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump(records, f, separators=(",", ":"))
    meta = {
        "format": "ffo-encoding-golden",
        "version": 1,
        "written_by": "python tests/test_encoding_golden.py --write",
        "plan": [[setup, list(seeds), n, early] for setup, seeds, n, early in PLAN],
        "views": [v[0] for v in VIEWS] + ["mask"],
        "spec": _spec(),
        "hashes": hashes,
    }
    HASHES.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    kinds: dict[str, int] = {}
    for r in records:
        kinds[r["state"]["decision"]] = kinds.get(r["state"]["decision"], 0) + 1
    print(f"wrote {len(records)} states to {STATES} and their hashes to {HASHES}")
    print("decisions:", dict(sorted(kinds.items(), key=lambda kv: -kv[1])))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description="Write the golden observation fixtures (deliberate layout changes only)."
    )
    ap.add_argument("--write", action="store_true", help="overwrite tests/fixtures/encoding_golden*.json*")
    ap.add_argument("--rehash", action="store_true", help="keep the stored states, rewrite only their hashes")
    a = ap.parse_args(argv)
    if a.rehash:
        rehash_fixtures()
        return 0
    if not a.write:
        ap.error("refusing to overwrite the golden fixtures without --write")
    write_fixtures()
    return 0


if __name__ == "__main__":
    sys.exit(main())
