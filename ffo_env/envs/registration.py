"""Gymnasium ids of every game of the suite, registered on ``import ffo_env`` when gymnasium is installed.

Each game's ids are its registry entry's (:attr:`ffo_env.games.GameInfo.gym_ids`, with an id's own keyword
defaults in ``gym_defaults``), and every id has one entry point, :func:`agents.gym_entry.make_game_env` (the
agent names of ``opponent`` belong to the layer above the environments). France Fights On's:

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
                               (``action_layout="slots"``, 8 slots: ``Discrete(23)``, observation
                               ``Box(330,)``, :mod:`ffo_env.ffo.slot_env`) and ``reward="potential"`` by default
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

Keyword arguments of ``gymnasium.make`` go to the game's one-side env (France Fights On's
:class:`~ffo_env.ffo.single_agent.FFOSingleAgentEnv`):
``opponent`` (any agent name of :func:`agents.make_agent`, e.g. ``"heuristic"``, ``"policy:PATH"``,
or an agent object), ``action_layout`` (``"core"`` or ``"slots"``, compact ids), ``observation_format``, ``reward``, ``setup``, ``rules``, ``illegal_action``,
``max_steps``, ``render_mode`` (``"rgb_array"`` gives the map image). The ids carry a version that is
bumped whenever the rules or the spaces change. ``gymnasium.make("ffo_env:ffo_env/French-flat-v0")``
works without importing ``ffo_env`` first.
"""

from __future__ import annotations

from ffo_env.games import GAMES

# the suite's one entry point: the game by name (agents.gym_entry.make_game_env)
ENTRY_POINT = "agents.gym_entry:make_game_env"


def observation_format(env_id: str) -> str:
    """The observation format an id names: ``-flat-``, ``-compact-``, or the structured observation."""
    return "flat" if "-flat-" in env_id else "compact" if "-compact-" in env_id else "dict"


def register_envs() -> None:
    """Register the ids of every game (once; a second call changes nothing)."""
    import gymnasium

    for info in GAMES.values():
        for side, ids in info.gym_ids.items():
            for env_id in ids:
                if env_id in gymnasium.registry:
                    continue
                kwargs: dict[str, object] = {
                    "game": info.name,
                    "side": side,
                    "observation_format": observation_format(env_id),
                    "opponent": "random",
                    **info.gym_defaults.get(env_id, {}),
                }
                gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs=kwargs)
