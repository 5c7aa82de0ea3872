"""Train French and German policies with MaskablePPO against an opponent pool (self-play).

    ffo train --config configs/ffo/train_quick.yaml            # the quick default (~10 min on 2 cores)
    ffo train --config configs/ffo/train_long.yaml --out runs   # the longer run
    ffo train --resume runs/quick-20261121-235959            # continue a run after a crash or Ctrl-C

Each run writes, in its own folder ``<out>/<run_name>-<timestamp>/`` (the layout is
:class:`training.run_folder.RunFolder`'s, and only its):

- ``config.yaml`` (the resolved config), ``command.txt`` (the command line), ``seed.txt``, ``versions.json``;
- ``tb/`` TensorBoard logs: ``rollout/*`` (SB3), ``games/win_rate_vs_<opponent>``, ``games/vp``,
  ``games/episode_decisions``, ``time/steps_per_s``;
- ``checkpoints/<side>.zip`` (full MaskablePPO state, for resuming) every ``checkpoint_every`` steps;
- ``snapshots/<side>_r<round>.pt`` + ``.json`` frozen policies (weights only) that join the pool;
- ``policies/<side>.pt`` + ``.json`` the final policies, policy files of the game (``policy:PATH`` with
  ``--game``; the game's loader is its training hook's, :func:`agents.network_spec.network_of`);
- ``progress.json`` (what is done, for ``--resume``) and ``eval/`` (the final evaluation, JSON + CSV).

- ``pretrain/<side>.json`` (with ``pretrain.teacher`` set): the imitation stage's report per DAgger
  iteration (teacher agreement on held-out decisions, by action kind; games; losses; seconds).

Schedule: first, with ``pretrain.teacher`` set, each side in ``pretrain.sides`` imitates that agent
(DAgger, :mod:`training.imitation`); the result is checkpointed and joins the pool as the snapshot
``<side>_pretrain``. A side in ``init_policy`` starts instead from that policy's weights (``pretrained``,
the shipped one, or a policy file: fine-tuning), which join the pool as ``<side>_init``. Then, for each
round, each trained side learns with PPO for ``steps_per_round`` (times its ``side_scale``) of its own
decisions against opponents drawn per episode from the pool (scripted bots by name, plus frozen
snapshots of the other side taken after every earlier stage); with ``ppo.anchor_kl`` its loss also
holds it near the policy it started from.

Every game trains through this one schedule (issue 62): ``game`` in the config (``ffo train --game G``) picks
the game, whose training hook (``agents.<package>.NETWORK``) gives the network, the env options, the policy
files and the checkpoints; the bots, the league and the evaluation are the game's by name. A run folder of a
game's earlier pipeline (Springtime for Hitler's ``training/springtime/``) resumes through the hook's
translation of its config and progress.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from ffo_env.atomic import atomic_write_text
from training.checkpoint import (
    CheckpointError,
    load_checkpoint,
    load_legacy_zip,
    refuse_legacy,
    save_checkpoint,
)
from training.config import DEFAULT_CONFIG, ConfigError, TrainConfig, load_config, spec_of
from training.envs import make_env_fn, other_side, side_index
from training.model import build_model, build_vec_env
from training.run_folder import RunFolder, RunFolderError


def threads_callback(cfg: TrainConfig) -> Any:
    """A callback that gives torch ``torch_threads`` while the rollout is collected and ``learner_threads`` for
    the gradient steps (also used by ``ffo bench``'s training figure)."""
    from stable_baselines3.common.callbacks import BaseCallback

    from training.config import learner_threads

    class Threads(BaseCallback):
        def _on_rollout_start(self) -> None:
            import torch

            torch.set_num_threads(cfg.torch_threads)

        def _on_rollout_end(self) -> None:
            import torch

            torch.set_num_threads(learner_threads(cfg))

        def _on_step(self) -> bool:
            return True

    return Threads()


def _callbacks(cfg: TrainConfig, side: str, run: RunFolder, total: int, progress: bool) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList

    keys = spec_of(cfg).monitor_keys  # the game's episode facts worth a curve (France Fights On: vp)

    class GameStats(BaseCallback):
        """Namespaced game metrics: win rate vs each opponent, the game's facts (VP), episode length, steps/s."""

        def __init__(self) -> None:
            super().__init__()
            self.results: dict[str, list[float]] = {}
            self.t0 = time.perf_counter()
            self.n0 = 0

        def _on_training_start(self) -> None:
            self.t0 = time.perf_counter()
            self.n0 = self.num_timesteps

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("episode")
                if ep is None:
                    continue
                opp = str(info.get("opponent", "unknown"))
                won = 1.0 if info.get("winner") == side else 0.0
                self.results.setdefault(opp, []).append(won)
                self.logger.record_mean(f"games/win_rate_vs_{opp}", won)
                self.logger.record_mean("games/win_rate", won)
                for key in keys:
                    self.logger.record_mean(f"games/{key}", float(info.get(key, 0)))
                self.logger.record_mean("games/episode_decisions", float(ep["l"]))
            dt = time.perf_counter() - self.t0
            if dt > 0:
                self.logger.record("time/steps_per_s", (self.num_timesteps - self.n0) / dt)
            return True

    class Checkpoint(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.last = 0

        def _on_step(self) -> bool:
            if self.num_timesteps - self.last >= cfg.checkpoint_every:
                self.last = self.num_timesteps
                save_checkpoint(self.model, run.checkpoints, side)
            return True

    class Progress(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.bar: Any = None

        def _on_training_start(self) -> None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                desc=f"train {side}",
                unit="step",
                dynamic_ncols=True,
                initial=min(self.num_timesteps, total),
                disable=not progress,
            )

        def _on_step(self) -> bool:
            if self.bar is not None:
                self.bar.n = min(self.num_timesteps, total)
                self.bar.refresh()
            return True

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()

    return CallbackList([GameStats(), Checkpoint(), Progress(), threads_callback(cfg)])


def _side_seed(cfg: TrainConfig, side: str) -> int:
    """The seed of the side's model: the same when a run starts and when it resumes."""
    return cfg.seed + side_index(side)


def _pretrain_side(
    cfg: TrainConfig, side: str, run: RunFolder, progress: dict[str, Any], progress_bar: bool
) -> Any:
    """The imitation warm start of one side (training/imitation.py); its result joins the pool as a snapshot."""
    from training.imitation import pretrain

    probe = _probe_env(cfg, side)
    model = build_model(cfg, probe, run.tensorboard, _side_seed(cfg, side))
    pretrain(model, cfg, side, run, run.snapshot_paths(progress, other_side(side)), progress=progress_bar)
    probe.close()
    save_checkpoint(model, run.checkpoints, side)
    snap = run.snapshot(side, "pretrain")
    spec_of(cfg).export(
        model, snap, side, cfg.policy, extra={"round": "pretrain", "teacher": cfg.pretrain.teacher}
    )
    run.add_snapshot(progress, side, snap)
    return model


def load_init_policy(cfg: TrainConfig, side: str) -> Any:
    """The agent of ``init_policy[side]`` (the shipped ``pretrained`` policy or a policy file), refused with a
    ``ConfigError`` naming the key when it cannot be loaded or is another side's."""
    spec = spec_of(cfg)
    source = cfg.init_policy[side].strip()
    try:
        if source == "pretrained":
            agent = spec.load_pretrained(side, deterministic=False)
        else:
            agent = spec.load_policy(source.removeprefix("policy:"), deterministic=False)
    except spec.policy_load_error as e:
        raise ConfigError(f"init_policy.{side}: {e}") from None
    if agent.side != side:
        raise ConfigError(f"init_policy.{side}: {source} is a {agent.side} policy")
    return agent


def _init_side(cfg: TrainConfig, side: str, run: RunFolder, progress: dict[str, Any]) -> Any:
    """The side's model with the weights of ``init_policy[side]``; like the imitation result, it is
    checkpointed and joins the pool as the snapshot ``<side>_init``."""
    agent = load_init_policy(cfg, side)
    # the weights do not carry the activation: a policy trained with another would load and compute another
    # function (a relu policy under tanh units), so it is compared by name
    theirs, ours = agent.meta.get("network", {}).get("activation"), cfg.to_dict()["policy"].get("activation")
    if theirs is not None and ours is not None and theirs != ours:
        raise ConfigError(
            f"init_policy.{side}: its network has {theirs} units, this config's policy section {ours}; set "
            f"policy.activation: {theirs}"
        )
    probe = _probe_env(cfg, side)
    model = build_model(cfg, probe, run.tensorboard, _side_seed(cfg, side))
    probe.close()
    try:
        if type(agent.policy) is not type(model.policy):
            raise RuntimeError(f"{type(agent.policy).__name__} is not {type(model.policy).__name__}")
        model.policy.load_state_dict(agent.policy.state_dict())
    except RuntimeError as e:
        raise ConfigError(
            f"init_policy.{side}: its network {agent.meta.get('network')} does not fit this config's "
            f"policy section {cfg.to_dict()['policy']}; set policy: to the network it was trained with "
            f"({str(e).splitlines()[0]})"
        ) from None
    save_checkpoint(model, run.checkpoints, side)
    snap = run.snapshot(side, "init")
    extra = {"round": "init", "init_policy": cfg.init_policy[side]}
    spec_of(cfg).export(model, snap, side, cfg.policy, extra=extra)
    run.add_snapshot(progress, side, snap)
    return model


def _start_weights(run: RunFolder, progress: dict[str, Any], side: str) -> Any:
    """The weights the side's PPO stage started from (its first snapshot: the imitation result or
    ``init_policy``), the anchor of ``ppo.anchor_kl`` in every round and after a resume."""
    import torch

    return torch.load(run.resolve(progress["snapshots"][side][0]), map_location="cpu", weights_only=True)


def export_untrained(cfg: TrainConfig, run: RunFolder, side: str, path: Path) -> None:
    """Write the network a side trained from scratch starts its first round with as a policy file at
    ``path``: the model :func:`_restore` builds when there is no checkpoint and no start policy, from the
    same config and seed (its weights depend on the seed alone, not on the envs' games). A campaign plays it
    as the curve's start point, so that every point pairs with where the run began."""
    probe = _probe_env(cfg, side)
    try:
        model = build_model(cfg, probe, run.tensorboard, _side_seed(cfg, side))
    finally:
        probe.close()
    spec_of(cfg).export(model, path, side, cfg.policy, extra={"round": "untrained", "timesteps": 0})


def _probe_env(cfg: TrainConfig, side: str) -> Any:
    """Idle envs to build or restore a side's model outside a PPO round: as many as the PPO stage will use,
    so the model later takes that stage's env without reloading."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    return DummyVecEnv([make_env_fn(cfg, side, _probe_pool(side, cfg.game), r) for r in range(cfg.n_envs)])


def _probe_pool(side: str, game: str) -> Any:
    from training.opponents import OpponentPool

    return OpponentPool(other_side(side), {"random": 1.0}, game=game)


def _restore(
    cfg: TrainConfig,
    side: str,
    env: Any,
    run: RunFolder,
    trust_pickle: bool,
    progress: dict[str, Any] | None = None,
) -> Any:
    """The model of ``side`` from its last checkpoint, else with the weights of its start policy (the imitation
    result or ``init_policy``, its first snapshot: a run of an earlier pipeline kept no checkpoint of it), else
    a new one."""
    import torch

    torch.set_num_threads(cfg.torch_threads)
    seed = _side_seed(cfg, side)
    if run.checkpoint_manifest(side).exists():
        model = build_model(cfg, env, run.tensorboard, seed)
        load_checkpoint(model, run.checkpoints, side)
        return model
    if run.legacy_checkpoint(side).exists():
        if not trust_pickle:
            raise refuse_legacy(run.legacy_checkpoint(side))
        model = load_legacy_zip(run.legacy_checkpoint(side), env, cfg.device)
        model.game = cfg.game
        return model
    model = build_model(cfg, env, run.tensorboard, seed)
    start = _start_snapshot(run, progress, side) if progress is not None else None
    if start is not None:
        model.policy.load_state_dict(torch.load(start, map_location="cpu", weights_only=True))
    return model


def _start_snapshot(run: RunFolder, progress: dict[str, Any], side: str) -> Path | None:
    snaps = progress["snapshots"].get(side, [])
    if snaps and Path(snaps[0]).stem in (f"{side}_pretrain", f"{side}_init"):
        return run.resolve(snaps[0])
    return None


def train(
    cfg: TrainConfig,
    run_dir: Path | RunFolder,
    resume: bool = False,
    progress_bar: bool = True,
    trust_pickle: bool = False,
) -> dict[str, Any]:
    """Run (or resume) the self-play schedule in a run folder; returns the progress record."""
    spec = spec_of(cfg)
    run = run_dir if isinstance(run_dir, RunFolder) else RunFolder(run_dir)
    run.make_folders()
    progress = run.read_progress() if resume and run.progress_path.exists() else run.new_progress()
    translated = spec.legacy_progress(progress, cfg) if resume else None
    if translated is not None:  # a run folder of the game's earlier pipeline, in this one's stage keys
        progress = translated
        if run.eval_results.exists():  # its own evaluation's file: kept apart, the harness writes eval/ anew
            run.eval_results.replace(run.eval_results.with_name("results.legacy.json"))
        run.write_progress(progress)
    # a translated run goes on numbering its round snapshots as its pipeline did (Springtime's from r1)
    offset = int(progress.get("legacy", {}).get("snapshot_round_offset", 0))
    models: dict[str, Any] = {}
    if cfg.pretrain.teacher:
        for side in cfg.sides:
            key = f"pretrain:{side}"
            if side not in cfg.pretrain.sides or key in progress["done"]:
                continue
            started = time.perf_counter()
            models[side] = _pretrain_side(cfg, side, run, progress, progress_bar)
            progress["done"].append(key)
            _add_seconds(progress, key, started)
            run.write_progress(progress)
    for side in cfg.sides:
        key = f"init:{side}"
        if side not in cfg.init_policy or key in progress["done"]:
            continue
        models[side] = _init_side(cfg, side, run, progress)
        progress["done"].append(key)
        run.write_progress(progress)
    for rnd in range(cfg.rounds):
        for side in cfg.sides:
            key = f"r{rnd}:{side}"
            if key in progress["done"]:
                continue
            env = build_vec_env(cfg, side, run.snapshot_paths(progress, other_side(side)))
            model = models.get(side)
            try:
                if model is None:
                    model = _restore(cfg, side, env, run, trust_pickle, progress)
                else:
                    model.set_env(env)
            except BaseException:
                env.close()
                raise
            started = time.perf_counter()
            target = (rnd + 1) * cfg.steps_for(side)
            try:  # the envs' worker processes and shared memory go with the round, however it ends
                if cfg.ppo.anchor_kl > 0 and model.anchor is None:
                    model.set_anchor(_start_weights(run, progress, side))
                remaining = max(0, target - model.num_timesteps)
                if remaining:
                    model.learn(
                        total_timesteps=remaining,
                        reset_num_timesteps=False,
                        tb_log_name=side,
                        callback=_callbacks(cfg, side, run, target, progress_bar),
                    )
            finally:
                env.close()
            save_checkpoint(model, run.checkpoints, side)
            snap = run.snapshot(side, rnd + offset)
            extra = {"round": rnd, "timesteps": int(model.num_timesteps)}
            spec.export(model, snap, side, cfg.policy, extra=extra)
            run.add_snapshot(progress, side, snap)
            progress["timesteps"][side] = int(model.num_timesteps)
            progress["done"].append(key)
            _add_seconds(progress, key, started)
            run.write_progress(progress)
            models[side] = model
    for side in cfg.sides:
        model = models.get(side)
        if model is None:
            probe = _probe_env(cfg, side)
            model = _restore(cfg, side, probe, run, trust_pickle, progress)
            probe.close()
        final: dict[str, Any] = {"timesteps": int(model.num_timesteps), "run": run.name}
        spec.export(model, run.policy(side), side, cfg.policy, extra=final)
    return progress


def _add_seconds(progress: dict[str, Any], key: str, started: float) -> None:
    """Wall seconds of each finished stage; a resumed stage counts only its last, completed attempt."""
    seconds = progress.setdefault("seconds", {})
    seconds[key] = round(time.perf_counter() - started, 1)


def start_policies(run: RunFolder) -> dict[str, Path]:
    """The policy each side's RL stage started from: its first snapshot when that is the imitation result
    (``pretrain``) or ``init_policy`` (``init``); a side trained from scratch has none."""
    if not run.progress_path.exists():
        return {}
    progress = run.read_progress()
    start: dict[str, Path] = {}
    for side, snaps in progress["snapshots"].items():
        if snaps and Path(snaps[0]).stem in (f"{side}_pretrain", f"{side}_init"):
            start[side] = run.resolve(snaps[0])
    return start


def evaluate(cfg: TrainConfig, run_dir: Path | RunFolder, progress_bar: bool = True) -> dict[str, Any]:
    """The final evaluation of the trained policies against the scripted bots (through the harness). With
    ``eval.compare_start``, the policy the RL stage started from plays the same seeds against the same
    opponents, and ``eval/rl_stage.json`` / ``.md`` hold the paired comparison (what RL added)."""
    from agents.harness import run_tournament

    run = run_dir if isinstance(run_dir, RunFolder) else RunFolder(run_dir)
    start = start_policies(run) if cfg.eval.compare_start and cfg.rounds > 0 else {}
    pairings = []
    compared: list[tuple[str, str, int, int]] = []  # side, opponent, pairing of the start, of the final
    for side in cfg.sides:
        me = f"policy:{run.policy(side)}"
        for opp in cfg.eval.opponents:
            pairings.append((me, opp) if side == "french" else (opp, me))
            if side in start:
                before = f"policy:{start[side]}"
                pairings.append((before, opp) if side == "french" else (opp, before))
                compared.append((side, opp, len(pairings) - 1, len(pairings) - 2))
    report = run_tournament(
        pairings=pairings,
        games=cfg.eval.games,
        seed=cfg.seed + 10_000,
        setup=cfg.setup,
        workers=cfg.eval.workers,
        out=run.eval_dir,
        progress=progress_bar,
        game=cfg.game,
    )
    if compared:
        write_rl_stage(run, cfg, start, compared)
    return report


def write_rl_stage(
    run: RunFolder, cfg: TrainConfig, start: dict[str, Path], compared: list[tuple[str, str, int, int]]
) -> dict[str, Any]:
    """Paired comparisons (same seeds, same opponent) of each side's final policy (B) against the policy its
    RL stage started from (A), from the evaluation tournament's games."""
    from agents.compare import outcomes
    from agents.harness import read_games
    from agents.paired import game_score, paired_comparison, summary_text

    score = game_score(cfg.game)  # the French VP, the final French Morale, the Allied VP margin
    rows = read_games(run.eval_dir)
    progress = run.read_progress()
    results = []
    for side, opp, before, after in compared:
        result = paired_comparison(
            outcomes(rows, before, side),
            outcomes(rows, after, side),
            side,
            (f"start ({start[side].stem})", "after RL"),
            score,
        )
        results.append({"opponent": opp, "rl_samples": int(progress["timesteps"].get(side, 0)), **result})
    doc = {"run": run.name, "rounds": cfg.rounds, "comparisons": results}
    run.write_json(run.rl_stage_report, doc)
    atomic_write_text(run.rl_stage_report.with_suffix(".md"), "\n".join(summary_text(r) for r in results))
    return doc


def rl_stage_table(doc: dict[str, Any]) -> str:
    """One line per side and opponent: the start policy and the final one on the same seeds."""
    lines = ["What the RL stage added (same seeds, same opponent; B = after RL, A = its start):"]
    for r in doc["comparisons"]:
        a, b, d = r["a"], r["b"], r["win_rate_difference"]
        lines.append(
            f"  {r['side']:<6} vs {r['opponent']:<10} start {a['wins']}/{r['games']} -> after RL "
            f"{b['wins']}/{r['games']} ({d['b_minus_a']:+.2f}; seeds won by B only {d['seeds_won_by_b_only']}, "
            f"by A only {d['seeds_won_by_a_only']}, exact McNemar p = {d['mcnemar_exact_p']:.3g}; "
            f"{r['rl_samples']} RL samples)"
        )
    return "\n".join(lines)


def new_run_dir(out: Path, name: str) -> Path:
    """``<out>/<name>-<timestamp>``, created (:meth:`RunFolder.create`)."""
    return RunFolder.create(out, name).root


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        default=str(DEFAULT_CONFIG),
        help="run config (YAML; default configs/ffo/train_quick.yaml, with --game G configs/G/train_quick.yaml)",
    )
    p.add_argument("--out", default="runs", help="folder that receives the run folder (default runs/)")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key, e.g. --set steps_per_round=2000 --set ppo.n_steps=64 (YAML values)",
    )
    p.add_argument(
        "--no-eval", action="store_true", help="skip the final evaluation against the scripted bots"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument(
        "--trust-pickle",
        action="store_true",
        help="with --resume of a run written by an older ffo_env: allow loading its SB3 .zip checkpoints, "
        "which are pickle files that can run code; only for runs you trust",
    )


def run(args: argparse.Namespace) -> int:
    overrides: dict[str, Any] = {}
    for item in args.set:
        if "=" not in item:
            print(f"error: --set expects KEY=VALUE, got {item!r}", file=sys.stderr)
            return 2
        k, v = item.split("=", 1)
        overrides[k.strip()] = yaml.safe_load(v)
    try:
        if args.resume:
            run = RunFolder.locate(args.resume)
            cfg = load_config(run.config_path, overrides)
        else:
            cfg = load_config(args.config, overrides, game=getattr(args, "train_game", None))
            run = RunFolder.create(Path(args.out), cfg.run_name)
    except (ConfigError, RunFolderError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    run.record_start(cfg.to_dict(), cfg.seed, getattr(args, "command_line", None) or sys.argv)
    run_dir = run.root
    print(f"run folder: {run_dir}", flush=True)
    t0 = time.perf_counter()
    try:
        if cfg.curve.every > 0:  # a campaign: round by round, with its learning curve (training/campaign.py)
            from training.campaign import run_campaign

            run_campaign(
                cfg,
                run,
                train,
                progress_bar=not args.no_progress,
                trust_pickle=args.trust_pickle,
                untrained=export_untrained,
            )
        else:
            train(
                cfg,
                run,
                resume=bool(args.resume),
                progress_bar=not args.no_progress,
                trust_pickle=args.trust_pickle,
            )
    except (ConfigError, CheckpointError, RunFolderError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted; resume with: ffo train --resume {run_dir}", file=sys.stderr)
        return 130
    print(f"training done in {time.perf_counter() - t0:.0f} s; policies in {run.policies}", flush=True)
    if not args.no_eval:
        from agents.harness import format_table

        report = evaluate(cfg, run, progress_bar=not args.no_progress)
        print(format_table(report))
        if run.rl_stage_report.exists():
            print(rl_stage_table(run.read_json(run.rl_stage_report, "the RL stage comparison")))
        print(f"evaluation written to {run.eval_dir} (results.json, pairings.csv, games.csv, ratings.csv)")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.train", description=__doc__.strip().splitlines()[0])
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
