"""Play any game of the suite in the browser against its agents (``ffo play [--game G] --french human ...``).

Shared by every game (none of these names one):

- :mod:`webplay.game_session` - one game of any game of the suite: the human's decision checked against
  the legal actions, bot steps, the record and its viewer written at the end;
- :mod:`webplay.games` - each game's web play package, found by the game's package name;
- :mod:`webplay.app` - the Flask app and the local server (127.0.0.1 only);
- :mod:`webplay.command` - ``ffo play`` with a human side;
- :mod:`webplay.assets` - the static files of a page and the data its script reads.

Each game's own, ``webplay/<game>/`` (``Session``, ``page``, ``new_session`` and ``static/``):
:mod:`webplay.ffo` (France Fights On's fog of war, ``ffo_env.ffo.encoding.fog``, and battles),
:mod:`webplay.springtime` (Springtime for Hitler's map and held markers), :mod:`webplay.france1940` (France
1940's hex map with the human's side's view). A game's page draws its map with its replay viewer's code
(``ffo_env/<game>/render/static``).

It sits above ``agents`` (it runs bots).
"""

from ffo_env._moved import install

install()  # the old import paths of the modules moved by issue 62 (webplay.session -> webplay.ffo.session)
