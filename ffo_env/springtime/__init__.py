"""Springtime for Hitler (M. Rinella, 2016): the second game of the suite — its rules core.

Specification: the rulebook (``docs/springtime`` cites it as "rule N.N"), the reconstruction of the map,
counters and tables (``docs/springtime/components.md``, "C§N"), the binding rulings S1.. and the project
rulings P1.. (``docs/springtime/rulings.md``, ``docs/springtime/project_rulings.md``).

Design note (for the shared game interface of the suite)
---------------------------------------------------------
The core mirrors France Fights On's: ``Game(scenario, options)`` is the immutable scenario + rules options
(``RulesOptions``; the optional rules of section 18 as flags, off by default) and a factory of ``State``;
a ``State`` has ``legal_actions()`` (sorted ints), ``legal_action_mask()``, ``apply_action(a)``,
``current_player`` (0 = ``french``, the Allied player; 1 = ``german``, the Axis player), ``is_terminal()``,
``returns()`` (``[french, german]``, +1/-1), ``clone()``, ``to_dict()``/``from_dict()`` through
:mod:`.core.state_io`, and no observation. Illegal actions raise ``IllegalActionError`` and change nothing.
Dice come from the game's own generator (``ffo_env.core.dice.Dice``, game-agnostic) and are logged.

**Action space**: one fixed integer range of ``N_ACTIONS`` = 294 ids, laid out in segments
(:mod:`.core.actions`): ``NO`` (0: no / keep / stop / done / end impulse), ``YES`` (1), ``PASS``,
``REGROUP``, ``OPEN_CITY``, ``DRAW_EXTRA``, ``ASSAULT`` + Army Group bit mask (64), ``REDEPLOY`` +
location (36), ``LOC`` + location (36), ``COMBAT`` + location (36), ``UNIT`` + unit (35),
``REBUILD_FULL`` + unit (35), ``REBUILD_RED`` + unit (35), ``AG`` + Army Group (11).

**Decomposition** of a turn into decisions (``State.decision`` names the current one, ``State.player``
the side asked; decisions of the other side inside an impulse — Lead Defending Unit, defender's air,
retreats, Heroic Defense, Soldier On — go to that side):

- Limited Free Setup (optional 18.2): ``setup_place`` (a location for the next unit, Allies then Axis).
- Political Phase: ``draw`` (keep, or discard and draw, 6.1.1), ``plan_red_take`` (S55).
- Each impulse: ``kleist`` (first Axis impulse of a turn, S9) -> ``advantage`` (Open City / Draw Extra
  Event) -> ``event`` (play the held marker; ``event_loc`` / ``event_units`` for its parameters) ->
  ``declare`` (Pass, Regroup, Redeploy from a location, or Assault with a set of Army Groups) ->
  ``reserve_ag`` (S52), then
  - Assault: ``act`` (a unit to move / a location to attack / with 18.1 a location to drop the Air
    Landing Corps / end the impulse) -> ``step`` (one location per decision, or stop); a combat:
    ``participants`` (when there is a choice) -> ``lead_att`` -> ``lead_def`` -> ``air_att`` ->
    ``air_def`` -> dice -> ``convert`` (the Advantage holder) -> ``retreat_pick`` / ``retreat_dest``
    (the owner, unit by unit);
  - Regroup: (``regroup_ag`` -> ``regroup_k`` with the S27 option ``army_group``) ``regroup_pick`` ->
    ``regroup_dest``; Redeploy: ``redeploy_pick`` -> ``step`` ...;
  - after an Axis impulse's failed Logistics dr: ``soldier_on``.
- Refit Phase: ``refit`` (flip / rebuild full / rebuild reduced / done) -> ``refit_loc``.
- End Phase: ``end_event``, ``end_discard``, ``withdraw`` (optional 18.1).

A campaign game of random legal play is ~380 decisions (100 games took 12.1 s on a 2-core machine at
load average 16, 2026-11-26); a decision with one legal action is applied by the engine
(``RulesOptions.skip_forced``) and recorded as automatic.

**Hidden information** lives in the Event markers only (S59): the identity of a held marker (known to its
holder), of every discarded marker, hence the container's contents. ``State.visible_to(side)``
(:func:`.core.visibility.visible_to`) is the redacted view the encoders and bots must use; everything
else (units, strengths, control, Morale, RPs, the Advantage, dice) is public (7.1).
"""
