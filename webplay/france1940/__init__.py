"""Browser play of *France, 1940* (``ffo play --game france1940 --french human``).

What a game's web play package provides (the layout of issue 62: ``webplay/<game>/``):

- :mod:`.session` - :class:`~webplay.france1940.session.France1940Session`, a
  :class:`webplay.game_session.PlaySession` (the turn, the human's decision checked against
  ``State.legal_actions()``, the bot steps, the record and its viewer written at the end are the base
  class's) that adds what the game shows: the human's choices with where on the map each is picked, and
  the position drawn with the human's side's eyes (the core's visibility, F60/P3);
- :mod:`.page` - ``page(session)``: the HTML page (the map's static base and the page's script), served by
  :mod:`webplay.app` at ``/``;
- ``static/`` - the page's HTML and JavaScript (the map's CSS and layer script are the replay viewer's,
  ``ffo_env/france1940/render/static``).

:mod:`webplay.app` and :mod:`webplay.command` only dispatch to these by the game's name.
"""
