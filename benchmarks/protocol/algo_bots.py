"""Reference rows that do not learn: ``random`` (uniform over the legal actions, the normalised score's 0),
``expert`` (the side's expert bot, the normalised score's 1), ``pretrained`` (the shipped policies) and
``policy`` (any trained policy file, ``--policy FILE``: a row ``policy:LABEL`` of the report)."""

from __future__ import annotations

from typing import Any

from benchmarks.protocol.algos import AlgoSpec, Context, Learner, register


class BotLearner(Learner):
    """A scripted agent in the learner's seat; it is reseeded before every evaluation game."""

    def __init__(self, ctx: Context, name: str) -> None:
        from agents import make_agent

        super().__init__(ctx)
        self._agent = make_agent(name, ctx.side, seed=ctx.seed, game=ctx.task.game)

    def agent(self) -> Any:
        return self._agent


register(
    AlgoSpec(
        "random",
        "uniform over the legal actions (reference: normalised score 0)",
        False,
        "-",
        lambda ctx: BotLearner(ctx, "random"),
    )
)
register(
    AlgoSpec(
        "expert",
        "the side's expert bot in the learner's seat (reference: normalised score 1)",
        False,
        "-",
        lambda ctx: BotLearner(ctx, "expert"),
    )
)


def _shipped_policy_files() -> dict[str, str]:
    """sha256 of every shipped policy file of every game that trains a network (its training hook's
    ``pretrained_dir``): a ``pretrained`` row names the weights it measured, so a row re-run after a release
    (issue 60: the campaign's policies shipped as ``pretrained``) is told apart from the imitation policies'
    row."""
    import hashlib

    from agents.network_spec import NoNetworkError, network_of
    from ffo_env.games import GAMES

    out: dict[str, str] = {}
    for game in GAMES:
        try:
            folder = network_of(game).pretrained_dir
        except (NoNetworkError, NotImplementedError):
            continue  # a game with no network has no shipped policy
        for path in sorted(folder.glob("*.pt")):
            out[f"{game}/{path.name}"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


register(
    AlgoSpec(
        "pretrained",
        "the side's shipped pretrained policy in the learner's seat (reference, does not learn): the row of "
        "the policies a release ships, which the RL campaign's policies replace once they beat them",
        False,
        "-",
        lambda ctx: BotLearner(ctx, "pretrained"),
        hyperparameters={"policy_sha256": _shipped_policy_files()},
    )
)


register(
    AlgoSpec(
        "policy",
        "a trained policy file of the task's game in the learner's seat (reference, does not learn; "
        "--policy FILE, --label NAME): its row is policy:NAME, and its results name the file and its sha256",
        False,
        "-",
        lambda ctx: BotLearner(ctx, f"policy:{ctx.policies[ctx.side]}"),
    )
)
