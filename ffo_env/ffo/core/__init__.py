"""Rules core of France Fights On: pure Python + numpy, no gymnasium, no torch.

Layout (imports point down this list; ``tests/test_core_layout.py`` checks there is no cycle):

- data: ``hexgrid``, ``mapdata``, ``mapfile``, ``sides``, ``scenario`` (with ``setup_rules``, which checks
  the fixed deployment when a scenario loads), ``search`` (map tables, movement and supply searches),
  ``actions``, ``dice``, ``version``
- the state: ``phases`` (phases, decisions, unit status), ``contexts`` (the typed working data of a
  phase and of a battle), ``masks`` (cached hex sets: occupation, enemy zones, supply), one module per
  rule section -- ``setup_phase``, ``evacuation`` (and rail), ``movement``, ``combat`` (and support, the
  Luftwaffe strike), ``combat_odds`` (strength and column shifts, the battle preview), ``panzer_scare``,
  ``replacement``, ``reinforcements``, ``refugees``, ``stacking``, ``turn_sequence`` -- dispatched by
  ``phase_handlers``; ``visibility`` (fog of war), ``describe`` (text), ``state_check`` and ``state_io``
  (saved-state JSON), and ``state`` (the state machine, :class:`~ffo_env.ffo.core.state.State`)
- on top: ``game`` (:class:`~ffo_env.ffo.core.game.Game`, a factory of states), ``record``, ``notation``
"""
