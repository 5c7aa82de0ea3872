"""Every rule 3.1-13.20 of the rulebook and every ruling R1-R37 has at least one test named after it."""

from __future__ import annotations

import re
from pathlib import Path

RULES = {3: 7, 4: 6, 5: 6, 6: 7, 7: 9, 8: 4, 9: 6, 10: 6, 11: 7, 12: 8, 13: 20}  # section: last rule number


def _test_names() -> list[str]:
    names = []
    for f in sorted(Path(__file__).parent.glob("test_rules_*.py")):
        names += re.findall(r"^def (test_\w+)\(", f.read_text(encoding="utf-8"), flags=re.M)
    return names


def _cited(names: list[str]) -> set[str]:
    out = set()
    for n in names:
        for tok in re.finditer(r"(?<=_)(\d+)_(\d+)(?=_)", n + "_"):
            out.add(f"{int(tok.group(1))}.{int(tok.group(2))}")
        # overlapping pairs such as test_13_6_13_20_... are caught by a second pass
        parts = n.split("_")
        for i in range(len(parts) - 1):
            if parts[i].isdigit() and parts[i + 1].isdigit():
                out.add(f"{int(parts[i])}.{int(parts[i + 1])}")
            if re.fullmatch(r"r\d\d", parts[i]):
                out.add(f"R{int(parts[i][1:])}")
        if re.fullmatch(r"r\d\d", parts[-1]):
            out.add(f"R{int(parts[-1][1:])}")
    return out


def test_every_rule_and_ruling_has_a_test():
    cited = _cited(_test_names())
    want = {f"{s}.{r}" for s, last in RULES.items() for r in range(1, last + 1)} | {f"R{i}" for i in range(1, 38)}
    missing = sorted(want - cited, key=lambda x: (x[0] == "R", [int(p) for p in re.findall(r"\d+", x)]))
    assert not missing, f"rules/rulings without a test named after them: {missing}"
