"""Play France Fights On in the browser against any registered agent (``ffo play --french human ...``).

- :mod:`webplay.session` - one game: the human's legal choices (the agents' own legal actions), bot
  steps, fog of war (``ffo_env.encoding.fog``), the record written at the end;
- :mod:`webplay.app` - the Flask app and the local server (127.0.0.1 only);
- :mod:`webplay.command` - ``ffo play`` with a human side.

It sits above ``agents`` (it runs bots) and draws the board with the replay viewer's code
(``ffo_env/render/static``).
"""
