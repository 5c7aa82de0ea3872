"""Gymnasium ids of France Fights On, registered on ``import ffo_env`` when gymnasium is installed.

=============================  ======================================================================
id                             environment
=============================  ======================================================================
``ffo_env/French-v0``          the learner plays France against ``opponent`` (default ``"random"``);
                               structured observation ``Dict(planes, globals, units)``
``ffo_env/German-v0``          the same for Germany
``ffo_env/French-flat-v0``     France, ``observation_space`` = the 1-D float32 ``Box`` of
                               :mod:`ffo_env.ffo.encoding.flat`; the mask from ``action_masks()`` and
                               ``info["action_mask"]``
``ffo_env/German-flat-v0``     the same for Germany
``ffo_env/French-compact-v0``  France, ``observation_space`` = the 1-D float32 ``Box`` of 4,490 floats of
                               :mod:`ffo_env.ffo.encoding.compact` (for stock MLP scripts); the mask as
                               for the flat ids
``ffo_env/German-compact-v0``  the same for Germany, with the candidate-slot action layout
                               (``action_layout="slots"``: ``Discrete(79)``, observation ``Box(1506,)``,
                               :mod:`ffo_env.ffo.slot_env`) and ``reward="potential"`` by default
                               (issue 60); ``action_layout="core", reward="win"`` gives the layout and
                               reward of the French id
=============================  ======================================================================

Springtime for Hitler (issue 41, :mod:`ffo_env.springtime.env`): ``ffo_env/Springtime-French-v0`` and
``ffo_env/Springtime-German-v0`` (observation ``Dict(observation, action_mask)``), and the
``-flat-v0`` twins (the 1-D float32 ``Box`` of :mod:`ffo_env.springtime.encoding`; the mask from
``action_masks()`` and ``info["action_mask"]``); ``opponent`` names a bot of :mod:`agents.springtime`.

France, 1940 (issue 63, :mod:`ffo_env.france1940.env`): ``ffo_env/France1940-French-v0`` and
``ffo_env/France1940-German-v0`` (observation ``Dict(planes, units, globals)``), and the ``-flat-v0`` and
``-compact-v0`` twins (1-D float32 ``Box``es of :mod:`ffo_env.france1940.encoding`); the mask from
``action_masks()`` and ``info["action_mask"]``; the armies (``allied_obac``, ``german_obac``),
``bef_variant`` and ``rules`` as keyword arguments.

Keyword arguments of ``gymnasium.make`` go to :class:`~ffo_env.ffo.single_agent.FFOSingleAgentEnv`:
``opponent`` (any agent name of :func:`agents.make_agent`, e.g. ``"heuristic"``, ``"policy:PATH"``,
or an agent object), ``action_layout`` (``"core"`` or ``"slots"``, compact ids), ``observation_format``, ``reward``, ``setup``, ``rules``, ``illegal_action``,
``max_steps``, ``render_mode`` (``"rgb_array"`` gives the map image). The ids carry a version that is
bumped whenever the rules or the spaces change. ``gymnasium.make("ffo_env:ffo_env/French-flat-v0")``
works without importing ``ffo_env`` first.
"""

from __future__ import annotations

ENV_IDS = (
    "ffo_env/French-v0",
    "ffo_env/German-v0",
    "ffo_env/French-flat-v0",
    "ffo_env/German-flat-v0",
    "ffo_env/French-compact-v0",
    "ffo_env/German-compact-v0",
)
# ids whose defaults are the candidate-slot action layout and the potential reward (issue 60)
GERMAN_SLOT_IDS = ("ffo_env/German-compact-v0",)
# the entry point resolves agent names, which belong to the layer above the environments
ENTRY_POINT = "agents.gym_entry:make_single_agent_env"
# Springtime for Hitler (issue 41): ffo_env.springtime.env.SpringtimeSingleAgentEnv; the plain ids give
# Dict(observation, action_mask), the flat ids the 1-D float32 Box only (mask from action_masks())
SPRINGTIME_ENV_IDS = (
    "ffo_env/Springtime-French-v0",
    "ffo_env/Springtime-German-v0",
    "ffo_env/Springtime-French-flat-v0",
    "ffo_env/Springtime-German-flat-v0",
)
SPRINGTIME_ENTRY_POINT = "agents.springtime.gym_entry:make_springtime_env"
# France, 1940 (issue 63): ffo_env.france1940.env.France1940SingleAgentEnv through the suite's entry point
# (the game by name: agents.gym_entry.make_game_env); ids from its package
FRANCE1940_GAME = "france1940"
GAME_ENTRY_POINT = "agents.gym_entry:make_game_env"


def register_envs() -> None:
    """Register the ids (once; a second call changes nothing)."""
    import gymnasium

    for env_id in ENV_IDS:
        if env_id in gymnasium.registry:
            continue
        side = "french" if "/French" in env_id else "german"
        fmt = "flat" if "-flat-" in env_id else "compact" if "-compact-" in env_id else "dict"
        kwargs: dict[str, object] = {"side": side, "observation_format": fmt, "opponent": "random"}
        if env_id in GERMAN_SLOT_IDS:
            # issue 60: candidate slots and the VP potential, from which a stock MLP learns (the environment card)
            kwargs.update(action_layout="slots", reward="potential")
        gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs=kwargs)
    from ffo_env.france1940.interface import GYM_IDS

    for side, ids in GYM_IDS.items():
        for env_id in ids:
            if env_id in gymnasium.registry:
                continue
            fmt = "flat" if "-flat-" in env_id else "compact" if "-compact-" in env_id else "dict"
            gymnasium.register(
                id=env_id,
                entry_point=GAME_ENTRY_POINT,
                kwargs={
                    "game": FRANCE1940_GAME,
                    "side": side,
                    "observation_format": fmt,
                    "opponent": "random",
                },
            )
    for env_id in SPRINGTIME_ENV_IDS:
        if env_id in gymnasium.registry:
            continue
        side = "french" if "-French-" in env_id else "german"
        fmt = "flat" if "-flat-" in env_id else "dict"
        gymnasium.register(
            id=env_id,
            entry_point=SPRINGTIME_ENTRY_POINT,
            kwargs={"side": side, "observation_format": fmt, "opponent": "random"},
        )
