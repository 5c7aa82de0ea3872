"""Play France Fights On in the browser against any registered agent (``ffo play --french human ...``).

- :mod:`webplay.game_session` - one game of any game of the suite: the human's decision checked against
  the legal actions, bot steps, the record and its viewer written at the end;
- :mod:`webplay.session` / :mod:`webplay.springtime_session` / :mod:`webplay.france1940` - what each game
  shows: France Fights On's fog of war (``ffo_env.ffo.encoding.fog``) and battles, Springtime for Hitler's
  map and held markers, France 1940's hex map with the human's side's view (its own package, page + session);
- :mod:`webplay.app` - the Flask app and the local server (127.0.0.1 only);
- :mod:`webplay.command` - ``ffo play`` with a human side.

It sits above ``agents`` (it runs bots) and draws the board with the replay viewer's code
(``ffo_env/ffo/render/static``).
"""
