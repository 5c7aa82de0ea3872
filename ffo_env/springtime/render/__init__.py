"""Drawing Springtime for Hitler for people: an SVG area map, the replay viewer and the browser play page.

Depends on the rules core (:mod:`ffo_env.springtime.core`) only:

- :mod:`.layout` - where each location's box is drawn (``layout.yaml``, validated on load);
- :mod:`.view` - what a viewer may see (the core's redaction; the public view of a replay hides both held
  Event markers);
- :mod:`.svg` - the SVG of a position: locations, boundaries with their types, units (strength, Reduced,
  Out of Supply), Leaders, control, the combat and the moving unit, and a panel with the Turn and Impulse
  Tracks, French Morale, RPs, the Advantage, Air Support, Event markers and the eliminated pool;
- :mod:`.viewer` - the self-contained HTML replay viewer of a verified record;
- ``static/`` - the viewer's HTML, CSS and JavaScript; the CSS serves the browser play page too (browser
  play, with its page and script, is ``webplay.springtime``; the commands ``ffo play`` / ``ffo replay --game springtime`` are
  ``ffo_env.springtime.commands``).
"""
