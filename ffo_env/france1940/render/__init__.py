"""Drawing *France, 1940* for people: an SVG hex map, the replay viewer and the browser play page's parts.

Depends on the rules core (:mod:`ffo_env.france1940.core`) only:

- :mod:`.view` - what a viewer may see: a side's view is the core's own
  (:func:`ffo_env.france1940.core.visibility.view`); the public view of a finished game hides only the dice
  generator;
- :mod:`.hexmap` - the hex geometry and the map drawn from the game's data: terrain, countries and their
  borders, rivers, the Maginot and Belgian fortress lines, cities and towns, the map edges, hex ids on
  demand;
- :mod:`.svg` - the moving parts, as layers: ground units as NATO-style counters with their strengths and
  stacks, aircraft in the air with their missions, fortresses destroyed, and a panel with the turn track,
  the phase, reinforcements, victory points and losses;
- :mod:`.viewer` - the self-contained HTML replay viewer of a verified record, public or with one side's
  eyes;
- ``static/`` - the viewer's and the browser play page's HTML, CSS and JavaScript (browser play itself is
  ``webplay.france1940``).
"""
