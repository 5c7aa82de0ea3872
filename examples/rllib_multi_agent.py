"""Both sides of France Fights On in RLlib with your own PPOConfig (new API stack, action masking).

    python examples/rllib_multi_agent.py --iterations 5 --num-env-runners 2

``training.rllib_env.FFOMultiAgentEnv`` is a plain RLlib ``MultiAgentEnv``: register it and configure RLlib
as usual. ``ffo train --backend rllib`` does the same with a validated config, a run folder and policy
export; this script shows the few lines underneath.
"""

from __future__ import annotations

import argparse
import json
import time

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from training.rllib_env import FFOMultiAgentEnv


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--num-env-runners", type=int, default=2)
    p.add_argument("--batch", type=int, default=512, help="env steps per iteration")
    p.add_argument("--max-steps", type=int, default=500, help="decisions per game before truncation")
    args = p.parse_args(argv)

    ray.init(include_dashboard=False, log_to_driver=False)
    register_env("france_fights_on", lambda cfg: FFOMultiAgentEnv(cfg))
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={
            "fcnet_hiddens": [32],
            "fcnet_activation": "relu",
            "head_fcnet_hiddens": [],
            "vf_share_layers": True,
        },
    )
    config = (
        PPOConfig()
        .environment("france_fights_on", env_config={"setup": "random", "max_steps": args.max_steps})
        .env_runners(num_env_runners=args.num_env_runners, rollout_fragment_length=128)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=128, num_epochs=2)
        .multi_agent(policies={"french", "german"}, policy_mapping_fn=lambda agent_id, *a, **k: agent_id)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"french": module, "german": module}))
    )
    algo = config.build_algo()
    t0 = time.perf_counter()
    for i in range(1, args.iterations + 1):
        result = algo.train()
        runners = result.get("env_runners", {})
        print(
            json.dumps(
                {
                    "iteration": i,
                    "env_steps": runners.get("num_env_steps_sampled_lifetime"),
                    "episodes": runners.get("num_episodes_lifetime"),
                    "seconds": round(time.perf_counter() - t0, 1),
                }
            ),
            flush=True,
        )
    algo.stop()
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
