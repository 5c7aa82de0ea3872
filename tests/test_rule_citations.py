"""Rule citations point at real rules, and every rule is tested.

- Every ``rule N.N`` / ``RN`` citation in the project's code and data names a paragraph of the rulebook
  (``docs/rulebook_index.md``) or a ruling (``docs/rulings.md``).
- Every numbered paragraph of the rulebook and every ruling is cited by the name of at least one test
  (``test_13_6_...``, ``test_r38_...``), so a rule that is broken has a test that fails.
- The project's copies of the rulings and of the component reconstruction stay in step with the binding
  originals in ``shared/ffo/`` (checked when that folder sits beside the repository, as in CI).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SHARED = ROOT.parent / "shared" / "ffo"
CODE_DIRS = (
    "ffo_env",
    "agents",
    "training",
    "benchmarks",
    "tools",
    "tests",
    "examples",
    "webplay",
    "configs",
)
CODE_SUFFIXES = {".py", ".yaml", ".yml", ".js", ".html"}

_RULE_LIST = r"\d+\.\d+(?:\s*(?:-|–|,|/|&|and|or)\s*\d+\.\d+)*"
RULE_CITE = re.compile(rf"\b(?:rules?|sections?)\s+({_RULE_LIST})", re.IGNORECASE)
RULING_CITE = re.compile(r"(?<![\w.])R(\d{1,3})\b")
NUMBER = re.compile(r"\d+\.\d+")


def paragraphs() -> dict[str, str]:
    """Paragraph number -> heading, from the index (section headings ``N.0`` included)."""
    out = {}
    for line in (DOCS / "rulebook_index.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"- (\d+\.\d+) (.+)", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def rulings() -> set[str]:
    text = (DOCS / "rulings.md").read_text(encoding="utf-8")
    return {f"R{n}" for n in re.findall(r"^- \*\*R(\d+) ", text, flags=re.M)}


def code_files() -> list[Path]:
    files = []
    for d in CODE_DIRS:
        base = ROOT / d
        if base.is_dir():
            files += [p for p in base.rglob("*") if p.suffix in CODE_SUFFIXES and p.is_file()]
    return sorted(f for f in files if not of_springtime(f))


def of_springtime(f: Path) -> bool:
    """Springtime for Hitler cites its own rulebook (tests/springtime/test_rule_citations.py checks it): its
    packages and the shared folders' modules named after it (webplay/springtime/session.py,
    tests/test_springtime_render.py, ...)."""
    return "springtime" in f.relative_to(ROOT).as_posix()


def citations_in(text: str) -> tuple[set[str], set[str]]:
    rules = {n for m in RULE_CITE.finditer(text) for n in NUMBER.findall(m.group(1))}
    return rules, {f"R{int(n)}" for n in RULING_CITE.findall(text)}


def all_test_names() -> list[str]:
    names = []
    for f in sorted((ROOT / "tests").rglob("test_*.py")):
        if of_springtime(f):
            continue
        names += re.findall(r"^\s*(?:async )?def (test_\w+)\(", f.read_text(encoding="utf-8"), flags=re.M)
    return names


def cited_by_name(name: str) -> set[str]:
    """Rules a test name cites: ``test_13_6_13_20_x`` -> {13.6, 13.20}; ``test_r07_x`` -> {R7}."""
    out = set()
    parts = name.split("_")[1:]
    i = 0
    while i < len(parts):
        if i + 1 < len(parts) and parts[i].isdigit() and parts[i + 1].isdigit():
            out.add(f"{int(parts[i])}.{int(parts[i + 1])}")
            i += 2  # pairs do not overlap: 13_6_13_20 is 13.6 and 13.20, not 6.13
            continue
        if re.fullmatch(r"r\d{1,3}", parts[i]):
            out.add(f"R{int(parts[i][1:])}")
        i += 1
    return out


def test_index_and_rulings_are_complete() -> None:
    paras = paragraphs()
    # the rulebook numbers sections 1-13 with consecutive paragraphs
    for section in range(1, 14):
        nums = sorted(int(k.split(".")[1]) for k in paras if int(k.split(".")[0]) == section)
        assert nums == list(range(len(nums))), f"section {section}: paragraphs {nums}"
    ids = rulings()
    assert ids == {f"R{i}" for i in range(1, len(ids) + 1)}


def test_every_citation_in_the_code_names_a_rule_or_ruling() -> None:
    paras, ids = set(paragraphs()), rulings()
    bad = []
    for f in code_files():
        text = f.read_text(encoding="utf-8", errors="replace")
        rules, rls = citations_in(text)
        bad += [f"{f.relative_to(ROOT)}: rule {r}" for r in sorted(rules - paras)]
        bad += [f"{f.relative_to(ROOT)}: {r}" for r in sorted(rls - ids)]
    for name in all_test_names():
        cited = cited_by_name(name)
        bad += [f"test name {name}: {c}" for c in sorted(cited - paras - ids)]
    assert not bad, "citations of rules that do not exist:\n" + "\n".join(bad)


def test_every_rule_paragraph_and_ruling_is_cited_by_a_test() -> None:
    want = {p for p in paragraphs() if not p.endswith(".0")} | rulings()
    cited = set().union(*(cited_by_name(n) for n in all_test_names()))
    missing = sorted(want - cited, key=lambda x: (x[0] == "R", [int(p) for p in re.findall(r"\d+", x)]))
    assert not missing, f"rules/rulings that no test is named after: {missing}"


def test_citation_scanner_reads_lists_ranges_and_rulings() -> None:
    rules, rls = citations_in("# rules 5.3-5.5, R6, R7 and rule 4.1, 4.3; see R38. xR9 R2x")
    assert rules == {"5.3", "5.5", "4.1", "4.3"}
    assert rls == {"R6", "R7", "R38"}
    assert cited_by_name("test_13_6_13_20_r28_no_retreat") == {"13.6", "13.20", "R28"}
    assert cited_by_name("test_r07_gt1_units_leave_5_3") == {"R7", "5.3"}


@pytest.mark.parametrize("name", ["rulings.md", "components.md", "geography.md"])
def test_docs_copy_is_in_step_with_the_binding_original(name: str) -> None:
    original = SHARED / name
    if not original.is_file():
        pytest.skip(f"{original} is not beside this checkout")
    ours = (DOCS / name).read_text(encoding="utf-8")
    assert ours == original.read_text(encoding="utf-8"), (
        f"docs/{name} differs from {original}: copy the binding text into docs/ (the project keeps it in step)"
    )
