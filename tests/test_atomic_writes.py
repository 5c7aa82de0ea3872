"""Every file the product writes goes through ``ffo_env/atomic.py`` (temporary file, fsync, rename), so a kill
leaves the old file or the new one; a path that cannot be written is one clear error naming it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ffo_env.atomic import atomic_write_text, check_writable

ROOT = Path(__file__).resolve().parent.parent

# a direct write to a file: what the atomic writer replaces
DIRECT_WRITE = re.compile(
    r"\.write_text\(|\.write_bytes\(|\bmkstemp\(|\.dump_stats\(|\bopen\([^)]*[\"'][wax]b?\+?[\"']"
    r"|torch\.save\((?!.*,\s*buf\)\s*$)|\b(?:img|image)\.save\((?!buf)"
)
# the one exception: the tournament's journal is appended to (flushed and fsynced a line at a time) so that
# a killed tournament resumes from its last whole line (agents/harness.py, ffo eval --resume)
ALLOWED = {("agents/harness.py", 'self.f = open(path, "a", encoding="utf-8")')}


def test_every_file_the_product_writes_goes_through_the_atomic_writer() -> None:
    offenders = []
    for folder in ("agents", "training", "ffo_env", "webplay", "benchmarks", "tools", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "ffo_env/atomic.py":
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#")[0]
                if DIRECT_WRITE.search(code) and not any(rel == f and s in code for f, s in ALLOWED):
                    offenders.append(f"{rel}:{n}: {code.strip()}")
    assert not offenders, "write through ffo_env.atomic instead:\n" + "\n".join(offenders)


@pytest.mark.parametrize(
    "line",
    [
        'path.write_text("x")',
        'open(p, "w")',
        'open(p, "ab")',
        "fd, tmp = tempfile.mkstemp(dir=d)",
        "pr.dump_stats(str(p))",
        "torch.save(state, path)",
        "img.save(args.png)",
    ],
)
def test_the_scan_finds_a_direct_write(line: str) -> None:
    assert DIRECT_WRITE.search(line)


@pytest.mark.parametrize(
    "line",
    [
        "torch.save(payload, buf)",
        "torch.save({k: v for k, v in w.items()}, buf)",
        "img.save(buf, format='PNG')",
        'open(p, "rb")',
    ],
)
def test_the_scan_lets_buffers_and_reads_pass(line: str) -> None:
    assert not DIRECT_WRITE.search(line)


def test_check_writable_names_the_path_and_leaves_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    with pytest.raises(
        NotADirectoryError, match=f"^cannot write {blocker / 'out.json'}: {blocker} is a file"
    ):
        check_writable(blocker / "out.json")
    with pytest.raises(IsADirectoryError, match="it is a folder"):
        check_writable(tmp_path)
    check_writable(tmp_path / "new" / "out.json")  # the folder is made; no file is left in it
    assert list((tmp_path / "new").iterdir()) == []


def test_a_failed_write_names_the_target_not_its_temporary_file(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    with pytest.raises(OSError, match=f"^cannot write {blocker / 'out.txt'}: ") as err:
        atomic_write_text(blocker / "out.txt", "hello")
    assert ".tmp" not in str(err.value)
