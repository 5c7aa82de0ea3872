"""The layout of a training run folder, in one type: every module that writes or reads a run asks
:class:`RunFolder` for the path, so the names below are the only place the layout is spelt.

``<out>/<run_name>-<YYYYmmdd-HHMMSS>[-N]/``:

- ``config.yaml`` the resolved config; ``command.txt`` one command line per start or resume;
  ``seed.txt`` the run's seed; ``versions.json`` Python, platform and package versions, one entry per start
  or resume (in the order of ``command.txt``);
- ``progress.json`` what is done, for ``--resume`` (stages done, snapshots, timesteps, wall seconds);
- ``checkpoints/`` the learner state for resuming: ``<side>.json`` (manifest) + ``<side>-<timesteps>.pt``
  (weights-only, :mod:`training.checkpoint`); RLlib: ``learner.json`` + ``learner-<iteration>.pt``;
- ``snapshots/<side>_<tag>.pt`` + ``.json`` frozen policies that join the opponent pool (tag ``pretrain``,
  ``init`` or ``r<round>``);
- ``policies/<side>.pt`` + ``.json`` the final policies (``agents.ffo.policy.load_policy``);
- ``tb/`` TensorBoard logs; ``eval/`` the final evaluation (the tournament's ``results.json``, CSVs, journal;
  ``rl_stage.json`` / ``.md``: the policies before and after the RL stage on the same seeds);
- ``pretrain/<side>.json`` the imitation stage's report, ``pretrain/<side>_student.pt`` its last student;
- RLlib runs also: ``command.json``, ``metrics.csv``, ``results.json``.

Every file is written through :mod:`ffo_env.atomic`. Paths inside ``progress.json`` are relative to the run
folder, so a moved or copied folder resumes from anywhere (:meth:`RunFolder.locate`).
"""

from __future__ import annotations

import json
import platform
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from ffo_env.atomic import atomic_write_text, new_unique_dir
from ffo_env.games import SIDES as SIDE_NAMES

CONFIG = "config.yaml"
COMMAND = "command.txt"
SEED = "seed.txt"
VERSIONS = "versions.json"
PROGRESS = "progress.json"
CHECKPOINTS = "checkpoints"
SNAPSHOTS = "snapshots"
POLICIES = "policies"
TENSORBOARD = "tb"
EVAL = "eval"
PRETRAIN = "pretrain"
RESULTS = "results.json"
RL_STAGE = "rl_stage.json"
# the folders a run of the SB3 backend makes when it starts
SB3_FOLDERS = (CHECKPOINTS, SNAPSHOTS, POLICIES, TENSORBOARD, EVAL)
# what `ffo_env.versions` records: the packages a run's numbers depend on
PACKAGES = ("ffo_env", "numpy", "torch", "gymnasium", "stable_baselines3", "sb3_contrib", "ray")


class RunFolderError(ValueError):
    """A folder that is not a readable run folder; the message names the file and what was expected."""


def checkpoint_manifest_name(side: str) -> str:
    return f"{side}.json"


def checkpoint_weights_name(side: str, timesteps: int) -> str:
    return f"{side}-{timesteps:012d}.pt"


def checkpoint_weights_glob(side: str) -> str:
    return f"{side}-*.pt"


def legacy_checkpoint_name(side: str) -> str:
    """SB3's own ``.zip`` (cloudpickle) checkpoint, written by ffo_env before the weights-only format."""
    return f"{side}.zip"


def package_versions() -> dict[str, str | None]:
    """The installed version of each of :data:`PACKAGES` (None: not installed), read from the package
    metadata, so that nothing is imported to learn it."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


class RunFolder:
    """One run folder: its paths, and the reading and writing of its small files."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"RunFolder({str(self.root)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunFolder) and self.root == other.root

    def __hash__(self) -> int:
        return hash(self.root)

    @property
    def name(self) -> str:
        return self.root.name

    # -- making and finding one ------------------------------------------------------------------

    @classmethod
    def create(cls, out: str | Path, run_name: str) -> RunFolder:
        """``<out>/<run_name>-<timestamp>``, created; runs started in the same second get ``-2``, ``-3``, ..."""
        return cls(new_unique_dir(out, f"{run_name}-{time.strftime('%Y%m%d-%H%M%S')}"))

    @classmethod
    def locate(cls, path: str | Path) -> RunFolder:
        """The run folder at ``path`` (relative to the working directory, or absolute; it may have been moved or
        copied since it was written), refused unless it holds a ``config.yaml``."""
        root = Path(path)
        if not (root / CONFIG).is_file():
            raise RunFolderError(f"{root} has no {CONFIG}; is it a run folder written by 'ffo train'?")
        return cls(root)

    def make_folders(self, names: tuple[str, ...] = SB3_FOLDERS) -> None:
        for sub in names:
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    # -- paths -------------------------------------------------------------------------------------

    @property
    def config_path(self) -> Path:
        return self.root / CONFIG

    @property
    def command_path(self) -> Path:
        return self.root / COMMAND

    @property
    def seed_path(self) -> Path:
        return self.root / SEED

    @property
    def versions_path(self) -> Path:
        return self.root / VERSIONS

    @property
    def progress_path(self) -> Path:
        return self.root / PROGRESS

    @property
    def checkpoints(self) -> Path:
        return self.root / CHECKPOINTS

    @property
    def snapshots(self) -> Path:
        return self.root / SNAPSHOTS

    @property
    def policies(self) -> Path:
        return self.root / POLICIES

    @property
    def tensorboard(self) -> Path:
        return self.root / TENSORBOARD

    @property
    def eval_dir(self) -> Path:
        """The final evaluation's tournament folder (``agents.harness.run_tournament(out=...)``)."""
        return self.root / EVAL

    @property
    def eval_results(self) -> Path:
        return self.eval_dir / RESULTS

    @property
    def rl_stage_report(self) -> Path:
        """``eval/rl_stage.json``: each side's final policy against the policy its RL stage started from, on the
        evaluation's seeds (``eval.compare_start``); ``rl_stage.md`` beside it is the same as text."""
        return self.eval_dir / RL_STAGE

    def stage_dir(self, stage: str) -> Path:
        """The folder of a training stage's own outputs (``pretrain``; a new method names its own), refused
        unless ``stage`` is one plain name that is not one of the layout's other folders."""
        if Path(stage).name != stage or stage in (*SB3_FOLDERS, "", ".", ".."):
            raise ValueError(f"stage folder {stage!r}: expected a plain name other than {SB3_FOLDERS}")
        return self.root / stage

    def stage_report(self, stage: str, side: str) -> Path:
        """``<stage>/<side>.json``: a stage's report of one side (the imitation stage: ``pretrain/<side>.json``)."""
        return self.stage_dir(stage) / f"{side}.json"

    def pretrain_report(self, side: str) -> Path:
        return self.stage_report(PRETRAIN, side)

    def pretrain_student(self, side: str) -> Path:
        """The imitation stage's student after its last iteration (what DAgger's collection workers play)."""
        return self.stage_dir(PRETRAIN) / f"{side}_student.pt"

    def tensorboard_log(self, name: str) -> Path:
        return self.tensorboard / name

    def policy(self, side: str) -> Path:
        """``policies/<side>.pt``: the run's final policy of ``side`` (its metadata beside it, ``.json``)."""
        return self.policies / f"{side}.pt"

    def flat_policy(self, side: str) -> Path:
        """The RLlib backend's policy of ``side``, the stem that ``agents.ffo.flat_policy`` adds its suffixes to."""
        return self.policies / side

    def snapshot(self, side: str, tag: str | int) -> Path:
        """``snapshots/<side>_<tag>.pt``: ``tag`` is ``pretrain``, ``init`` or a round number (``r<round>``)."""
        return self.snapshots / f"{side}_{'r' + str(tag) if isinstance(tag, int) else tag}.pt"

    def checkpoint_manifest(self, side: str) -> Path:
        return self.checkpoints / checkpoint_manifest_name(side)

    def legacy_checkpoint(self, side: str) -> Path:
        return self.checkpoints / legacy_checkpoint_name(side)

    def has_checkpoint(self, side: str) -> bool:
        return self.checkpoint_manifest(side).exists() or self.legacy_checkpoint(side).exists()

    @property
    def learner_manifest(self) -> Path:
        """The RLlib backend's checkpoint manifest (its weights file beside it: :meth:`learner_weights`)."""
        return self.checkpoints / "learner.json"

    def learner_weights(self, iteration: int) -> Path:
        return self.checkpoints / f"learner-{iteration}.pt"

    def learner_weights_glob(self) -> str:
        return "learner-*.pt"

    @property
    def command_json(self) -> Path:
        """The RLlib backend's argv and Ray address."""
        return self.root / "command.json"

    @property
    def metrics_csv(self) -> Path:
        """The RLlib backend's metrics, one row an iteration."""
        return self.root / "metrics.csv"

    @property
    def results(self) -> Path:
        """The RLlib backend's results (also copied to ``eval/results.json``, as the SB3 backend writes it)."""
        return self.root / RESULTS

    def relative(self, path: Path) -> str:
        """``path`` (inside the folder) as stored in ``progress.json``: relative, with ``/``."""
        return path.relative_to(self.root).as_posix()

    def resolve(self, stored: str) -> Path:
        """A path stored in ``progress.json``, as an absolute path of this folder."""
        return (self.root / stored).resolve()

    # -- the small files -----------------------------------------------------------------------------

    def write_config(self, resolved: dict[str, Any]) -> None:
        atomic_write_text(self.config_path, yaml.safe_dump(resolved, sort_keys=False))

    def read_config(self) -> dict[str, Any]:
        """``config.yaml`` as a mapping, refused with :class:`RunFolderError` naming the file otherwise."""
        try:
            raw = yaml.safe_load(self.config_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
            raise RunFolderError(f"{self.config_path}: cannot read ({e})") from e
        if not isinstance(raw, dict):
            raise RunFolderError(f"{self.config_path}: expected a mapping of config keys")
        return raw

    def backend(self) -> Any:
        """The ``backend`` key of ``config.yaml`` as written (None if it has none or cannot be read: the
        backend's own loader then reports the problem)."""
        try:
            return self.read_config().get("backend")
        except RunFolderError:
            return None

    def append_command(self, argv: list[str]) -> None:
        """Add the command line that started or resumed the run to ``command.txt``."""
        previous = self.command_path.read_text(encoding="utf-8") if self.command_path.exists() else ""
        atomic_write_text(self.command_path, previous + shlex.join(argv) + "\n")

    def write_command_line(self, text: str) -> None:
        """``command.txt`` as one given line (the RLlib backend writes its command as it was typed)."""
        atomic_write_text(self.command_path, text + "\n")

    def read_commands(self) -> list[str]:
        """The command lines of ``command.txt``, the first that started the run, then each resume."""
        try:
            return self.command_path.read_text(encoding="utf-8").strip().splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise RunFolderError(f"{self.command_path}: cannot read ({e})") from e

    def write_seed(self, seed: int) -> None:
        atomic_write_text(self.seed_path, f"{seed}\n")

    def read_seed(self) -> int:
        try:
            return int(self.seed_path.read_text(encoding="utf-8").strip())
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise RunFolderError(f"{self.seed_path}: expected one integer ({e})") from e

    def append_versions(self) -> dict[str, Any]:
        """Add this process's Python, platform and package versions to ``versions.json`` (a list, one entry
        per start or resume); returns the entry."""
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "packages": package_versions(),
        }
        previous = self.read_versions() if self.versions_path.exists() else []
        atomic_write_text(self.versions_path, json.dumps([*previous, entry], indent=1) + "\n")
        return entry

    def read_versions(self) -> list[dict[str, Any]]:
        doc = self._read_json(self.versions_path, "the versions the run was started with")
        if not isinstance(doc, list) or not all(isinstance(e, dict) for e in doc):
            raise RunFolderError(f"{self.versions_path}: expected a list of mappings")
        return doc

    def record_start(self, resolved: dict[str, Any], seed: int, argv: list[str] | None = None) -> None:
        """What every start and resume writes first: the resolved config, the command line, the seed and the
        versions."""
        self.write_config(resolved)
        self.append_command(argv if argv is not None else sys.argv)
        self.write_seed(seed)
        self.append_versions()

    # -- progress --------------------------------------------------------------------------------------

    @staticmethod
    def new_progress() -> dict[str, Any]:
        return {"done": [], "snapshots": {s: [] for s in SIDE_NAMES}, "timesteps": {s: 0 for s in SIDE_NAMES}}

    def write_progress(self, progress: dict[str, Any]) -> None:
        atomic_write_text(self.progress_path, json.dumps(progress, indent=1) + "\n")

    def write_json(self, path: Path, doc: Any) -> None:
        """A JSON file of the folder (``indent=1``, trailing newline), written atomically."""
        atomic_write_text(path, json.dumps(doc, indent=1) + "\n")

    def read_json(self, path: Path, what: str) -> Any:
        return self._read_json(path, what)

    def _read_json(self, path: Path, what: str) -> Any:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as e:
            raise RunFolderError(
                f"{path}: missing ({what}); is {self.root} a run folder written by 'ffo train'?"
            ) from e
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise RunFolderError(f"{path}: cannot read {what} ({e})") from e

    def read_progress(self) -> dict[str, Any]:
        """``progress.json`` of the SB3 backend, checked, with its snapshot paths relative to the run folder
        (older runs stored them relative to the directory training was launched from: those are re-rooted by
        file name)."""
        path = self.progress_path
        progress = self._read_json(path, "the run's progress")
        ok = (
            isinstance(progress, dict)
            and isinstance(progress.get("done"), list)
            and isinstance(progress.get("snapshots"), dict)
            and isinstance(progress.get("timesteps"), dict)
            and all(isinstance(progress["snapshots"].get(s, []), list) for s in SIDE_NAMES)
            and isinstance(progress.get("seconds", {}), dict)
        )
        if not ok:
            raise RunFolderError(
                f"{path}: expected keys done (list), snapshots (side -> list), timesteps (side -> int), "
                "seconds (stage -> wall seconds)"
            )
        for side in SIDE_NAMES:
            snaps = []
            for p in progress["snapshots"].get(side, []):
                rel = Path(str(p))
                if rel.is_absolute() or not (self.root / rel).exists():
                    rel = Path(SNAPSHOTS) / rel.name
                if not (self.root / rel).exists():
                    raise RunFolderError(f"{path}: snapshot {p} is missing from {self.snapshots}")
                snaps.append(rel.as_posix())
            progress["snapshots"][side] = snaps
            progress["timesteps"].setdefault(side, 0)
        return progress

    def snapshot_paths(self, progress: dict[str, Any], side: str) -> list[str]:
        """The absolute paths of the snapshots of ``side`` that ``progress`` lists, oldest first."""
        return [str(self.resolve(p)) for p in progress["snapshots"][side]]

    def add_snapshot(self, progress: dict[str, Any], side: str, path: Path) -> None:
        progress["snapshots"][side].append(self.relative(path))
