"""The layout docstring (ffo_env.ffo.encoding.layout) is the spec: its tables must match the code's layout."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ffo_env.ffo.encoding import layout
from ffo_env.ffo.encoding import observation as ob

_ROW = re.compile(r"^(\d+)(?:-(\d+))?\s+([a-z_0-9]+)(?:\[(\d+)\])?\s+(\d+\s+)?")


def _sections() -> dict[str, tuple[tuple[int, ...], list[tuple[str, int, int, int, int | None]]]]:
    doc = layout.__doc__ or ""
    parts = re.split(r"\n(Planes|Globals|Units) ``\(([\d, ]+)\)``", doc)
    out = {}
    for i in range(1, len(parts), 3):
        name, shape, body = parts[i], parts[i + 1], parts[i + 2]
        rows = []
        for line in body.splitlines():
            m = _ROW.match(line)
            if m:
                a = int(m.group(1))
                b = int(m.group(2) or a)
                mx = int(m.group(5)) if m.group(5) else None
                rows.append((m.group(3), a, b, int(m.group(4) or 1), mx))
        out[name] = (tuple(int(x) for x in shape.replace(" ", "").split(",") if x), rows)
    return out


def _expected(groups):  # type: ignore[no-untyped-def]
    k = 0
    out = []
    for g in groups:
        out.append((g[0], k, k + g[1] - 1, g[1]))
        k += g[1]
    return out, k


@pytest.mark.parametrize(
    "name,groups", [("Planes", ob.PLANE_GROUPS), ("Globals", ob.GLOBAL_GROUPS), ("Units", ob.UNIT_GROUPS)]
)
def test_docstring_table_matches_layout(name, groups):  # type: ignore[no-untyped-def]
    shape, rows = _sections()[name]
    exp, total = _expected(groups)
    assert [r[:4] for r in rows] == exp, f"{name}: docstring table and {name.upper()}_GROUPS differ"
    assert shape[0] == total if name != "Units" else shape[1] == total


def test_plane_max_column_matches_code():
    _, rows = _sections()["Planes"]
    assert [r[4] for r in rows] == [g[2] for g in ob.PLANE_GROUPS]


def test_encoded_shapes_match_spec():
    from ffo_env.ffo.core.game import Game, RulesOptions

    g = Game(options=RulesOptions(setup="random"))
    o = ob.encode(g.new_initial_state(0), 0)
    secs = _sections()
    assert o["planes"].shape == secs["Planes"][0]
    assert o["globals"].shape == secs["Globals"][0]
    assert o["units"].shape == (len(g.units), secs["Units"][0][1])
    assert (
        o["planes"].dtype == np.uint8 and o["globals"].dtype == np.float32 and o["units"].dtype == np.float32
    )
    assert len(ob.expand_names(ob.PLANE_GROUPS)) == o["planes"].shape[0]
