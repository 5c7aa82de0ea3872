"""Pipelined rollouts (``vec_env: pipelined``): the run's training envs and a copy of the policy live in one
worker process that collects the next rollout while the learner updates on the last one.

On a 2-core machine a PPO iteration is two halves of about equal cost (stepping the envs with the policy's
forward passes, then the gradient epochs); run one after the other they keep one core busy. Here the worker
collects rollout *k + 1* with the weights the learner had when it took rollout *k*, so the two halves run at
once on the two cores. The price is a policy lag of exactly one update: rollout *k + 1* was sampled by the
weights before update *k*. PPO's ratio is taken against the log-probabilities stored with each sample (those
of the policy that sampled it), so the clipped objective stays correct; the first epoch simply starts one
update away from the sampling policy, as a second epoch does in the plain loop. The critic's values that the
advantages use are recomputed by the learner with its current weights (:func:`refresh_values`). The schedule
is fixed, not a race: one seed gives one run.

The rollouts travel through shared memory, double-buffered: the worker writes slot *(k + 1) mod 2* while the
learner copies slot *k mod 2* into its rollout buffer. The worker also finds the planes' non-zero entries that
the learner's minibatches read (the learner is the slower half: work moved off it is samples/s gained).
"""

from __future__ import annotations

import multiprocessing as mp
import pickle
import traceback
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.shared_memory import SharedMemory
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from ffo_env.ffo.core.sides import SIDE_NAMES
from training.config import TrainConfig

# small per-sample arrays of a rollout slot besides the observations: name -> dtype
_FIELDS = {
    "actions": np.int64,
    "rewards": np.float32,
    "episode_starts": np.float32,
    "values": np.float32,
    "log_probs": np.float32,
}


# room for the rollout's plane entries, found by the worker (training.planes.plane_entries_of), on average per
# sample: a sample has ~300-700 (units, control, the decision's hexes); a rollout with more sends none and the
# learner finds them itself
ENTRIES_PER_SAMPLE = 2048

# a game that ended during a rollout: step, env, its last info (without the terminal observation), and the
# terminal observation if the game was cut off by the step limit (the learner bootstraps its value)
Ended = tuple[int, int, dict[str, Any], Any]

_NOT_STEPPED = "a pipelined env (vec_env: pipelined) is stepped by its rollout worker, not action by action"


class RolloutWorkerError(RuntimeError):
    """The rollout worker process failed or died; the message says how."""


@dataclass(frozen=True)
class SlotLayout:
    """Where each array of one rollout lives in a slot's shared memory (both processes compute it)."""

    arrays: tuple[tuple[str, tuple[int, ...], str, int], ...]  # name, shape, dtype, byte offset
    size: int

    @classmethod
    def of(
        cls, obs_shapes: dict[str, tuple[tuple[int, ...], str]], n_steps: int, n_envs: int, n_actions: int
    ) -> SlotLayout:
        specs: list[tuple[str, tuple[int, ...], str]] = [
            (f"obs:{key}", (n_steps, n_envs, *shape), dtype) for key, (shape, dtype) in obs_shapes.items()
        ]
        specs += [(name, (n_steps, n_envs), np.dtype(dt).str) for name, dt in _FIELDS.items()]
        specs += [
            ("action_masks", (n_steps, n_envs, n_actions), np.dtype(np.bool_).str),
            ("last_values", (n_envs,), np.dtype(np.float32).str),
            ("last_dones", (n_envs,), np.dtype(np.bool_).str),
        ]
        specs += [(f"last_obs:{key}", (n_envs, *shape), dtype) for key, (shape, dtype) in obs_shapes.items()]
        specs += [
            ("plane_entries", (4, n_steps * n_envs * ENTRIES_PER_SAMPLE), np.dtype(np.int32).str),
            ("n_plane_entries", (1,), np.dtype(np.int64).str),  # -1: none sent
        ]
        arrays, offset = [], 0
        for name, shape, dtype in specs:
            arrays.append((name, shape, dtype, offset))
            nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
            offset += (nbytes + 63) // 64 * 64  # cache-line aligned rows for numpy and torch
        return cls(tuple(arrays), max(offset, 64))

    def views(self, buf: Any) -> dict[str, np.ndarray]:
        return {
            name: np.ndarray(shape, dtype=np.dtype(dtype), buffer=buf, offset=offset)
            for name, shape, dtype, offset in self.arrays
        }


def obs_shapes(space: Any) -> dict[str, tuple[tuple[int, ...], str]]:
    return {key: (tuple(sub.shape), np.dtype(sub.dtype).str) for key, sub in space.spaces.items()}


def _worker_main(
    conn: Connection,
    cfg: TrainConfig,
    side: str,
    snapshots: list[str],
    slot_names: list[str],
    layout: SlotLayout,
    policy_class: Any,
    policy_kwargs: dict[str, Any],
    seed: int,
    env_seed: int | None,
) -> None:
    """The worker's loop: ``("collect", slot, weights, rng)`` → ``("done", slot, episodes, rng)``;
    ``("reset", seed)`` → ``("reset",)``; ``("close",)`` ends it."""
    slots: list[SharedMemory] = []
    try:
        import torch

        from training.envs import build_local_vec_env
        from training.planes import planes_reader_of

        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(seed)
        slots = [SharedMemory(name=name) for name in slot_names]
        views = [layout.views(s.buf) for s in slots]
        env = build_local_vec_env(
            replace(cfg, vec_env="dummy"), side, snapshots
        )  # the worker's own envs, in-process
        policy = policy_class(env.observation_space, env.action_space, lambda _: 0.0, **policy_kwargs)
        policy.set_training_mode(False)
        collector = _Collector(env, policy, cfg.ppo.gamma, planes_reader_of(policy))
        collector.reset(env_seed)
        conn.send(("ready",))
        while True:
            msg = conn.recv()
            if msg[0] == "close":
                break
            if msg[0] == "reset":
                collector.reset(msg[1])
                conn.send(("reset",))
                continue
            _, slot, weights, rng = msg
            policy.load_state_dict(weights)
            if rng is not None:
                torch.set_rng_state(rng)
            episodes = collector.collect(views[slot])
            conn.send(("done", slot, episodes, None if rng is None else torch.get_rng_state()))
        env.close()
    except (KeyboardInterrupt, EOFError, BrokenPipeError):
        pass  # interrupted with the learner, or the learner is gone: nobody to tell
    except BaseException as exc:  # noqa: BLE001 - handed to the learner, which raises it
        try:
            try:
                conn.send(("error", exc, traceback.format_exc()))
            except (TypeError, AttributeError, pickle.PicklingError):  # its text still reaches the learner
                conn.send(
                    ("error", RolloutWorkerError(f"{type(exc).__name__}: {exc}"), traceback.format_exc())
                )
        except OSError:
            pass
    finally:
        for s in slots:
            s.close()
        conn.close()


class _Collector:
    """sb3-contrib 2.9's ``MaskablePPO.collect_rollouts`` loop, writing into a shared slot (same steps, same
    timeout bootstrap with the value of the terminal observation)."""

    def __init__(self, env: Any, policy: Any, gamma: float, planes_reader: Any = None) -> None:
        self.env, self.policy, self.gamma, self.planes_reader = env, policy, gamma, planes_reader

    def reset(self, seed: int | None) -> None:
        if seed is not None:
            self.env.seed(seed)
        self.last_obs = self.env.reset()
        self.last_starts = np.ones(self.env.num_envs, dtype=bool)

    def collect(self, out: dict[str, np.ndarray]) -> list[Ended]:
        import torch
        from sb3_contrib.common.maskable.utils import get_action_masks
        from stable_baselines3.common.utils import obs_as_tensor

        env, policy = self.env, self.policy
        cpu = torch.device("cpu")
        n_steps = out["actions"].shape[0]
        episodes: list[Ended] = []
        dones = np.zeros(env.num_envs, dtype=bool)
        with torch.inference_mode():
            for step in range(n_steps):
                masks = get_action_masks(env)
                actions, values, log_probs = policy(obs_as_tensor(self.last_obs, cpu), action_masks=masks)
                actions = actions.numpy()
                new_obs, rewards, dones, infos = env.step(actions)
                for idx, done in enumerate(dones):
                    info = infos[idx]
                    if not done:
                        continue
                    # the learner adds the timeout bootstrap (gamma x the value of the terminal observation)
                    # with its own weights, so only a truncated game's terminal observation (~120 kB) travels
                    terminal = info.get("terminal_observation")
                    truncated = terminal is not None and info.get("TimeLimit.truncated", False)
                    info = {k: v for k, v in info.items() if k != "terminal_observation"}
                    episodes.append((step, idx, info, terminal if truncated else None))
                for key, rows in self.last_obs.items():
                    out[f"obs:{key}"][step] = rows
                out["actions"][step] = actions
                out["rewards"][step] = rewards
                out["episode_starts"][step] = self.last_starts
                out["values"][step] = values.numpy().reshape(-1)
                out["log_probs"][step] = log_probs.numpy().reshape(-1)
                out["action_masks"][step] = masks
                self.last_obs, self.last_starts = new_obs, dones
            out["last_values"][:] = (
                policy.predict_values(obs_as_tensor(self.last_obs, cpu)).numpy().reshape(-1)
            )
        for key, rows in self.last_obs.items():
            out[f"last_obs:{key}"][:] = rows
        out["last_dones"][:] = dones
        self._send_plane_entries(out)
        return episodes

    def _send_plane_entries(self, out: dict[str, np.ndarray]) -> None:
        """The rollout's plane entries, which the learner's minibatches read instead of the planes, found here:
        the learner is the pipeline's slower half (measured ~45 ms of its update time a 1,024-sample rollout
        went to finding them), and the worker finds exactly the same ones from the same planes."""
        out["n_plane_entries"][0] = -1
        if self.planes_reader is None:
            return
        from training.planes import plane_entries_of

        planes = out["obs:planes"]
        entries = plane_entries_of(self.planes_reader, planes.reshape(-1, *planes.shape[2:]))
        n = int(entries.shape[1])
        if n <= out["plane_entries"].shape[1]:
            out["plane_entries"][:, :n] = entries.numpy()
            out["n_plane_entries"][0] = n


class PipelinedVecEnv(VecEnv):
    """A VecEnv whose ``n_envs`` envs run in a rollout worker process with a copy of the policy.

    Only :class:`training.model` 's MaskablePPO collects from it (:func:`pipelined_collect`); it cannot be
    stepped action by action. The worker starts at the first rollout (it needs the model's policy class)."""

    def __init__(self, cfg: TrainConfig, side: str, snapshots: list[str], prefetch: bool = True) -> None:
        """``prefetch=False`` (for tests): no rollout runs ahead; each is collected with the learner's current
        weights and torch RNG state, which comes back with it, so a run equals the in-process loop's exactly."""
        from gymnasium import spaces

        from ffo_env.ffo.single_agent import FFOSingleAgentEnv

        probe = FFOSingleAgentEnv(side=side, setup=cfg.setup, reward=cfg.reward, max_steps=cfg.max_steps)
        obs_space, action_space = probe.observation_space, probe.action_space
        probe.close()
        assert isinstance(obs_space, spaces.Dict) and isinstance(action_space, spaces.Discrete)
        super().__init__(cfg.n_envs, obs_space, action_space)
        self.cfg, self.side, self.snapshots, self.prefetch = cfg, side, list(snapshots), prefetch
        self.layout = SlotLayout.of(obs_shapes(obs_space), cfg.ppo.n_steps, cfg.n_envs, int(action_space.n))
        self._shm: list[SharedMemory] = []
        self.slots: list[dict[str, np.ndarray]] = []
        for _ in range(2):
            shm = SharedMemory(create=True, size=self.layout.size)
            self._shm.append(shm)
            self.slots.append(self.layout.views(shm.buf))
        self._proc: Any = None
        self._conn: Connection | None = None
        self._pending: int | None = None  # the slot the worker is filling
        self._next = 0
        self._env_seed: int | None = None
        self.closed = False

    # -- the rollout protocol ---------------------------------------------------------------------------

    def _start(self, model: Any) -> None:
        ctx = mp.get_context("spawn")  # torch and a forked parent's threads do not mix
        parent, child = ctx.Pipe()
        names = [s.name for s in self._shm]
        args = (
            child,
            self.cfg,
            self.side,
            self.snapshots,
            names,
            self.layout,
            model.policy_class,
            model.policy_kwargs,
            self._sampling_seed(model),
            self._env_seed,
        )
        self._proc = ctx.Process(target=_worker_main, args=args, daemon=True, name=f"ffo-rollout-{self.side}")
        self._proc.start()
        child.close()
        self._conn = parent
        self._receive("ready")

    def _receive(self, expected: str) -> tuple[Any, ...]:
        assert self._conn is not None
        try:
            msg = self._conn.recv()
        except (EOFError, OSError):
            code = self._proc.exitcode if self._proc is not None else None
            self.close()
            raise RolloutWorkerError(
                f"the rollout worker of the {self.side} side died (exit code {code})"
            ) from None
        except Exception as exc:  # noqa: BLE001 - e.g. an error of the worker's that does not unpickle here
            self.close()
            raise RolloutWorkerError(
                f"the rollout worker of the {self.side} side sent what cannot be read: {exc}"
            ) from None
        if msg[0] == "error":
            self.close()
            raise msg[1]
        assert msg[0] == expected, msg[0]
        return tuple(msg)

    def _request(self, slot: int, model: Any) -> None:
        import torch

        assert self._conn is not None
        weights = {k: v.detach().clone() for k, v in model.policy.state_dict().items()}
        self._conn.send(("collect", slot, weights, None if self.prefetch else torch.get_rng_state()))
        self._pending = slot

    def exchange(self, model: Any) -> tuple[dict[str, np.ndarray], list[Ended]]:
        """The next finished rollout, and the worker set to collect the one after it with the model's weights.

        With nothing under way (the first call, or after ``reset``) one rollout is collected with the current
        weights first; otherwise it is the one the worker collected meanwhile with the weights of the call
        before."""
        if self.closed:
            raise RolloutWorkerError("this pipelined env is closed")
        if self._proc is None:
            self._start(model)
        if self._pending is None:
            self._request(self._next, model)
        _, slot, infos, rng = self._receive("done")
        self._pending = None
        self._next = 1 - slot
        if rng is not None:
            import torch

            torch.set_rng_state(rng)
        if self.prefetch:
            self._request(self._next, model)
        return self.slots[slot], infos

    def _sampling_seed(self, model: Any) -> int:
        """The seed of the worker's action sampling: a resumed run's worker draws on from a new stream, not
        the first rollout's again."""
        entropy = [self.cfg.seed, SIDE_NAMES.index(self.side), int(model.num_timesteps)]
        return int(np.random.SeedSequence(entropy).generate_state(1)[0])

    @property
    def worker_pid(self) -> int | None:
        """The rollout worker's process id once it runs (``ffo bench`` reads its CPU time)."""
        return None if self._proc is None else self._proc.pid

    # -- VecEnv -----------------------------------------------------------------------------------------

    def reset(self) -> Any:
        """Zero observations: the learner never reads them, the worker keeps its own. Before the worker starts
        this only takes the seed of ``seed()``; afterwards the rollout under way is dropped and the worker's
        envs start new games."""
        seed = self._seeds[0] if self._seeds else None
        if self._proc is None:
            self._env_seed = seed
        elif not self.closed:
            if self._pending is not None:
                self._receive("done")
                self._pending = None
            assert self._conn is not None
            self._conn.send(("reset", seed))
            self._receive("reset")
        self._reset_seeds()
        return {
            key: np.zeros((self.num_envs, *shape), dtype=dtype)
            for key, (shape, dtype) in obs_shapes(self.observation_space).items()
        }

    def step_async(self, actions: np.ndarray) -> None:
        raise RolloutWorkerError(_NOT_STEPPED)

    def step_wait(self) -> Any:
        raise RolloutWorkerError(_NOT_STEPPED)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.slots = []  # the views go before their memory
        if self._conn is not None:
            try:
                self._conn.send(("close",))
            except (BrokenPipeError, OSError):
                pass
        if self._proc is not None:
            if self._pending is not None:  # mid-rollout: its result is not wanted
                self._proc.terminate()
            self._proc.join(timeout=10)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
        if self._conn is not None:
            self._conn.close()
        for shm in self._shm:
            shm.close()
            shm.unlink()
        self._shm = []

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":  # VecEnv's constructor asks; training envs do not render
            return [None] * len(list(self._get_indices(indices)))
        raise RolloutWorkerError(
            f"a pipelined env's envs are in its worker process: no attribute {attr_name!r} here"
        )

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise RolloutWorkerError(
            f"a pipelined env's envs are in its worker process: cannot set {attr_name!r}"
        )

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        raise RolloutWorkerError(
            f"a pipelined env's envs are in its worker process: cannot call {method_name!r}"
        )

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))


def pipelined_collect(
    model: Any, env: PipelinedVecEnv, callback: Any, rollout_buffer: Any, n_rollout_steps: int
) -> bool:
    """``collect_rollouts`` for a pipelined env: takes the worker's finished rollout into the buffer, then
    replays its steps to the callbacks (timesteps, episode infos and dones, as the plain loop gives them)."""
    import torch

    n_envs = env.num_envs
    if n_rollout_steps != env.cfg.ppo.n_steps:
        raise RolloutWorkerError(
            f"the pipelined env collects {env.cfg.ppo.n_steps} steps an env, not {n_rollout_steps}"
        )
    model.policy.set_training_mode(False)
    rollout_buffer.reset()
    callback.on_rollout_start()
    data, episodes = env.exchange(model)
    buf = rollout_buffer
    for key, rows in buf.observations.items():
        # copied (~110 MB a 1,024-sample rollout): a view of the slot would outlive the shared memory once
        # the env closes, and reading it then is a segmentation fault
        np.copyto(rows, data[f"obs:{key}"])
    buf.actions[:] = data["actions"].reshape(buf.actions.shape)
    for name in ("rewards", "episode_starts", "values", "log_probs"):
        getattr(buf, name)[:] = data[name]
    buf.action_masks[:] = data["action_masks"].reshape(buf.action_masks.shape)
    buf.pos, buf.full = buf.buffer_size, True
    n_entries = int(data["n_plane_entries"][0])
    if n_entries >= 0 and buf.planes_reader is not None:
        buf.shipped_entries = torch.from_numpy(data["plane_entries"][:, :n_entries].astype(np.int64))

    with torch.inference_mode():
        for step, idx, _, terminal in episodes:
            if terminal is not None:  # sb3's timeout bootstrap, with the learner's weights
                value = model.policy.predict_values(model.policy.obs_to_tensor(terminal)[0])
                buf.rewards[step, idx] += model.gamma * float(value[0])
        if env.prefetch:
            last_values = refresh_values(model.policy, buf, data)
            if model.proximal:
                buf.behaviour_log_probs = buf.log_probs.copy()
                buf.log_probs[:] = proximal_log_probs(model.policy, buf)
        else:  # sampled by the current weights: the stored values are theirs already
            last_values = torch.as_tensor(data["last_values"])

    ended: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for step, idx, info, _ in episodes:
        ended.setdefault(step, []).append((idx, info))
    for step in range(n_rollout_steps):
        infos: list[dict[str, Any]] = [{} for _ in range(n_envs)]
        dones = np.zeros(n_envs, dtype=bool)
        for idx, info in ended.get(step, []):
            infos[idx], dones[idx] = info, True
        model.num_timesteps += n_envs
        callback.update_locals(
            {"infos": infos, "dones": dones, "rewards": data["rewards"][step], "n_steps": step}
        )
        if not callback.on_step():
            return False
        model._update_info_buffer(infos, dones)
    buf.compute_returns_and_advantage(last_values=last_values, dones=data["last_dones"].copy())
    callback.on_rollout_end()
    return True


def refresh_values(policy: Any, buf: Any, data: dict[str, np.ndarray], chunk: int = 256) -> Any:
    """The critic's values of a rollout's observations and of the observations after it, by the learner's
    current weights, written over the sampling weights' values in ``buf.values``; returns the latter.

    Why: the advantages (GAE, lambda 0.95 over 64 steps) and the critic's targets lean on the critic, which
    moves more in an update than the policy does (PPO's approx KL ~1e-4 an update); the in-process loop has
    the current critic's values, and so does this. Measured (``docs/results/training.md``, *Pipelined rollouts*): a little better
    per sample, ~8 % of the pipelined samples/s. The log-probabilities stay those of the sampling policy,
    which PPO's ratio needs."""
    import torch

    n_steps, n_envs = buf.values.shape
    total = n_steps * n_envs
    values = np.empty(total, dtype=np.float32)
    for start in range(0, total, chunk):
        stop = min(start + chunk, total)
        values[start:stop] = policy.predict_values(buf.observations_of_rows(start, stop)).numpy().reshape(-1)
    buf.values[:] = values.reshape(n_steps, n_envs)
    last = {key: torch.from_numpy(data[f"last_obs:{key}"].copy()) for key in buf.observations}
    return policy.predict_values(last).reshape(-1)


def proximal_log_probs(policy: Any, buf: Any, chunk: int = 256) -> np.ndarray:
    """The log-probabilities of the rollout's actions under the learner's current weights (decoupled PPO's
    proximal policy, ``ppo.proximal``), in the buffer's (step, env) layout.

    Why: with one update of lag, PPO's clip is centred on the sampling policy, one update behind; a sample
    whose ratio left [1 - clip, 1 + clip] in that update gives no gradient at all. Decoupled PPO centres the
    clip on the weights the update starts from and weights the sample by proximal / sampling probability."""
    import torch

    n_steps, n_envs = buf.log_probs.shape
    total = n_steps * n_envs
    actions = torch.as_tensor(buf.actions.reshape(total, -1)[:, 0]).long()
    masks = torch.as_tensor(buf.action_masks.reshape(total, -1))
    out = np.empty(total, dtype=np.float32)
    for start in range(0, total, chunk):
        stop = min(start + chunk, total)
        _, log_prob, _ = policy.evaluate_actions(
            buf.observations_of_rows(start, stop), actions[start:stop], action_masks=masks[start:stop]
        )
        out[start:stop] = log_prob.numpy().reshape(-1)
    return out.reshape(n_steps, n_envs)
