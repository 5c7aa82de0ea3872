"""The command line shared by the ``ffo train`` methods that run from one config file into a run folder
(:mod:`training.expert_iteration`, :mod:`training.self_imitation`): ``--config``, ``--out``, ``--set
KEY=YAML`` and ``--resume``, with one ``error: ...`` line for a bad file, key or folder."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.run_folder import RunFolder, RunFolderError

LoadConfig = Callable[[Any, Any], Any]  # (path, overrides or None) -> config; raises ValueError
Run = Callable[[Any, Path], Mapping[str, Path]]  # (config, run folder) -> side -> policy file


def parse_sets(items: list[str]) -> dict[str, Any]:
    """``--set KEY=YAML`` items as a mapping of top-level keys (ValueError naming a malformed item)."""
    import yaml

    overrides: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: expected KEY=VALUE")
        try:
            overrides[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as e:
            raise ValueError(f"--set {item!r}: not YAML ({e.__class__.__name__})") from None
    return overrides


def _finish(run: Run, cfg: Any, folder: Path) -> int:
    for side, path in run(cfg, folder).items():
        print(f"{side}: {path}")
    return 0


def command(
    config: str, out: Path | None, resume: str | None, sets: list[str], load: LoadConfig, run: Run
) -> int:
    """Start a run in a new folder under ``out`` (named ``<run_name>-<timestamp>``), or resume ``resume``
    with the config it was started with."""
    try:
        overrides = parse_sets(sets)
        if resume is not None:
            if overrides:
                raise ValueError("--set: a resumed run keeps the config it was started with")
            try:
                folder = RunFolder.locate(resume).root
            except RunFolderError as e:
                raise ValueError(str(e)) from e
            cfg = load(RunFolder(folder).config_path, None)
        else:
            cfg = load(config, overrides)
            folder = RunFolder.create(out or Path("runs"), cfg.run_name).root
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"run folder: {folder}", flush=True)
    return _finish(run, cfg, folder)


def add_arguments(p: argparse.ArgumentParser, config_file: str, set_example: str) -> None:
    p.add_argument("--config", required=True, help=f"run file ({config_file})")
    p.add_argument("--out", required=True, help="run folder; an unfinished run there is resumed")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=YAML",
        help=f"override one top-level key, e.g. {set_example}",
    )


def main(
    argv: list[str] | None,
    prog: str,
    doc: str,
    config_file: str,
    set_example: str,
    load: LoadConfig,
    run: Run,
) -> int:
    """``python -m training.<method> --config FILE --out DIR [--set KEY=YAML]``: run (or continue) in DIR."""
    p = argparse.ArgumentParser(prog=prog, description=doc.split("\n")[0])
    add_arguments(p, config_file, set_example)
    args = p.parse_args(argv)
    try:
        cfg = load(args.config, parse_sets(args.set))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return _finish(run, cfg, Path(args.out))


@dataclass(frozen=True)
class MethodCommand:
    """One method's command line: ``python -m <prog> --config FILE --out DIR [--set KEY=YAML]`` and the
    ``ffo train`` entry (:func:`command`)."""

    prog: str
    doc: str
    config_file: str
    set_example: str
    load: LoadConfig
    run: Run

    def command(self, config: str, out: Path | None, resume: str | None, sets: list[str]) -> int:
        return command(config, out, resume, sets, self.load, self.run)

    def main(self, argv: list[str] | None = None) -> int:
        return main(argv, self.prog, self.doc, self.config_file, self.set_example, self.load, self.run)
