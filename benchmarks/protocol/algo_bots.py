"""Reference rows that do not learn: ``random`` (uniform over the legal actions, the normalised score's 0)
and ``expert`` (the side's expert bot, the normalised score's 1)."""

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
