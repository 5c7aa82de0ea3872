"""Springtime for Hitler's citations point at real rules, and the project's copies of the binding texts
stay in step with ``shared/springtime/`` (checked when that folder sits beside the repository).

- ``rule N.N`` / ``rule N.N.N`` in the game's code and tests names a paragraph of
  ``docs/springtime/rulebook_index.md``; ``S12`` names a binding ruling, ``P3`` a project ruling.
- Test names cite the same way: ``test_10_4_4_overrun`` -> 10.4.4, ``test_s21_...`` -> S21, ``test_p3_`` -> P3.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "springtime"
SHARED = ROOT.parent / "shared" / "springtime"
CODE = [ROOT / "ffo_env" / "springtime", ROOT / "tests" / "springtime"]
RULE_CITE = re.compile(r"\brules?\s+(\d+\.\d+(?:\.\d+)?(?:\s*(?:,|and|or)\s*\d+\.\d+(?:\.\d+)?)*)", re.I)
NUMBER = re.compile(r"\d+\.\d+(?:\.\d+)?")
RULING_CITE = re.compile(r"(?<![\w.§-])([SP])(\d{1,2})\b")


def paragraphs() -> set[str]:
    text = (DOCS / "rulebook_index.md").read_text(encoding="utf-8")
    return set(re.findall(r"^- (\d+\.\d+(?:\.\d+)?) ", text, flags=re.M))


def rulings() -> set[str]:
    s = set(re.findall(r"^- \*\*(S\d+) ", (DOCS / "rulings.md").read_text(encoding="utf-8"), flags=re.M))
    p = set(
        re.findall(r"^- \*\*(P\d+) ", (DOCS / "project_rulings.md").read_text(encoding="utf-8"), flags=re.M)
    )
    return s | p


def cited_by_name(name: str, paras: set[str]) -> set[str]:
    """``test_10_4_4_x`` -> {10.4.4}; ``test_8_1_x`` -> {8.1}; ``test_s21_x`` -> {S21}."""
    out = set()
    parts = name.split("_")[1:]
    i = 0
    while i < len(parts):
        if parts[i].isdigit() and i + 1 < len(parts) and parts[i + 1].isdigit():
            three = i + 2 < len(parts) and parts[i + 2].isdigit()
            if three and f"{parts[i]}.{parts[i + 1]}.{parts[i + 2]}" in paras:
                out.add(f"{parts[i]}.{parts[i + 1]}.{parts[i + 2]}")
                i += 3
                continue
            out.add(f"{parts[i]}.{parts[i + 1]}")
            i += 2
            continue
        m = re.fullmatch(r"([sp])(\d{1,2})", parts[i])
        if m:
            out.add(f"{m.group(1).upper()}{int(m.group(2))}")
        i += 1
    return out


def files() -> list[Path]:
    """The game's packages, and every module of the shared folders named after it (agents/springtime,
    training/springtime, webplay/springtime/session.py, tests/test_springtime_render.py, ...)."""
    found = {p for base in CODE for p in base.rglob("*")}
    for shared in ("agents", "training", "webplay", "benchmarks", "tests"):
        found |= {p for p in (ROOT / shared).rglob("*") if "springtime" in p.relative_to(ROOT).as_posix()}
    return sorted(p for p in found if p.suffix in (".py", ".yaml") and p.is_file())


def test_every_citation_names_a_rule_or_ruling() -> None:
    paras, ids = paragraphs(), rulings()
    bad = []
    for f in files():
        text = f.read_text(encoding="utf-8")
        for m in RULE_CITE.finditer(text):
            bad += [f"{f.name}: rule {n}" for n in NUMBER.findall(m.group(1)) if n not in paras]
        bad += [f"{f.name}: {k}{n}" for k, n in RULING_CITE.findall(text) if f"{k}{int(n)}" not in ids]
        if f.name.startswith("test_"):
            for name in re.findall(r"^def (test_\w+)\(", text, flags=re.M):
                bad += [f"{name}: {c}" for c in sorted(cited_by_name(name, paras) - paras - ids)]
    assert not bad, "citations of rules that do not exist:\n" + "\n".join(sorted(set(bad)))


def test_every_rule_paragraph_and_ruling_is_cited_by_a_test() -> None:
    paras = paragraphs()
    want = {p for p in paras if not p.endswith(".0")} | rulings()
    cited: set[str] = set()
    for f in files():
        if f.name.startswith("test_"):
            for name in re.findall(r"^def (test_\w+)\(", f.read_text(encoding="utf-8"), flags=re.M):
                cited |= cited_by_name(name, paras)
    missing = sorted(want - cited)
    assert not missing, f"rules/rulings that no test is named after: {missing}"


def test_citation_scanner() -> None:
    paras = {"10.4.4", "10.4", "8.1"}
    assert cited_by_name("test_10_4_4_overrun_s36", paras) == {"10.4.4", "S36"}
    assert cited_by_name("test_8_1_3_pass", paras) == {"8.1"}
    assert [m.group(1) for m in RULE_CITE.finditer("# rule 10.4.4, 10.5 and rules 6.1")] == [
        "10.4.4, 10.5",
        "6.1",
    ]


@pytest.mark.parametrize("name", ["rulings.md", "components.md"])
def test_docs_copy_is_in_step_with_the_binding_original(name: str) -> None:
    original = SHARED / name
    if not original.is_file():
        pytest.skip(f"{original} is not beside this checkout")
    assert (DOCS / name).read_text(encoding="utf-8") == original.read_text(encoding="utf-8"), (
        f"docs/springtime/{name} differs from {original}: copy the binding text into docs/springtime/"
    )
