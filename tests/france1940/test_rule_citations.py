"""France 1940's citations point at real rulings, every ruling is tested, and the project's copies of the
binding texts stay in step with ``shared/france1940/`` (checked when that folder sits beside the checkout).

- ``F27`` names a binding ruling of ``docs/france1940/rulings.md``, ``P5`` a project ruling of
  ``docs/france1940/project_rulings.md``; ``[R <heading>]`` a section of ``docs/france1940/rulebook_index.md``.
- Test names cite the same way: ``test_f27_...`` -> F27, ``test_p5_...`` -> P5.
- Rulings whose rules are not built yet are listed in ``NOT_BUILT``; the list may only shrink: a ruling in it
  that a test cites fails, so that the list is kept true.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "france1940"
SHARED = ROOT.parent / "shared" / "france1940"
CODE = [ROOT / "ffo_env" / "france1940", ROOT / "tests" / "france1940"]
RULING_CITE = re.compile(r"(?<![\w.§-])([FP])(\d{1,2})\b")
HEADING_CITE = re.compile(r"\[R ([A-Za-z][A-Za-z ,:&'-]*?)(?: \([^\]]*\))*\]")

# rulings of rules not built yet (none at present)
NOT_BUILT: set[str] = set()


def rulings() -> set[str]:
    f = set(re.findall(r"^- \*\*(F\d+) ", (DOCS / "rulings.md").read_text(encoding="utf-8"), flags=re.M))
    p = set(
        re.findall(r"^- \*\*(P\d+) ", (DOCS / "project_rulings.md").read_text(encoding="utf-8"), flags=re.M)
    )
    return f | p


def headings() -> list[str]:
    text = (DOCS / "rulebook_index.md").read_text(encoding="utf-8")
    return re.findall(r"^- (.+)$", text, flags=re.M)


def files() -> list[Path]:
    return sorted(p for base in CODE for p in base.rglob("*") if p.suffix in (".py", ".yaml") and p.is_file())


def cited_by_name(name: str) -> set[str]:
    return {f"{k.upper()}{int(n)}" for k, n in re.findall(r"_([fp])(\d{1,2})(?=_|$)", name)}


def test_every_citation_names_a_ruling_or_section() -> None:
    ids = rulings()
    heads = " | ".join(headings()).lower()
    bad = []
    for f in files():
        text = f.read_text(encoding="utf-8")
        bad += [f"{f.name}: {k}{n}" for k, n in RULING_CITE.findall(text) if f"{k}{int(n)}" not in ids]
        for m in HEADING_CITE.finditer(text):
            head = m.group(1).split(":")[0].strip().lower()
            if head not in heads:
                bad.append(f"{f.name}: [R {m.group(1)}]")
        if f.name.startswith("test_"):
            for name in re.findall(r"^def (test_\w+)\(", text, flags=re.M):
                bad += [f"{name}: {c}" for c in sorted(cited_by_name(name) - ids)]
    assert not bad, "citations that name no ruling or section:\n" + "\n".join(sorted(set(bad)))


def test_every_ruling_is_cited_by_a_test() -> None:
    cited: set[str] = set()
    for f in files():
        if f.name.startswith("test_"):
            for name in re.findall(r"^def (test_\w+)\(", f.read_text(encoding="utf-8"), flags=re.M):
                cited |= cited_by_name(name)
    missing = sorted(rulings() - cited - NOT_BUILT, key=lambda r: (r[0], int(r[1:])))
    assert not missing, f"rulings that no test is named after: {missing}"
    stale = sorted(NOT_BUILT & cited)
    assert not stale, f"rulings listed as not built but tested: {stale}; take them off NOT_BUILT"


def test_citation_scanner() -> None:
    assert cited_by_name("test_f27_counterattack_p10_targets") == {"F27", "P10"}
    assert [m.group(1) for m in HEADING_CITE.finditer("# [R Air Units (D)(4)], [R Maginot Line]")] == [
        "Air Units",
        "Maginot Line",
    ]


@pytest.mark.parametrize("name", ["rulings.md", "components.md"])
def test_docs_copy_is_in_step_with_the_binding_original(name: str) -> None:
    original = SHARED / name
    if not original.is_file():
        pytest.skip(f"{original} is not beside this checkout")
    assert (DOCS / name).read_text(encoding="utf-8") == original.read_text(encoding="utf-8"), (
        f"docs/france1940/{name} differs from {original}: copy the binding text into docs/france1940/"
    )
