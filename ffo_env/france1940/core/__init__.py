"""The rules core of *France, 1940*: data (:mod:`.data`, :mod:`.hexgrid`), the game (:mod:`.game`,
:mod:`.state`), records and saved states. Citations: ``[R <heading>]`` the rulebook, ``[BEF <heading>]``
the variant, ``C§n`` the reconstruction (docs/france1940/components.md), ``Fn`` the binding rulings,
``Pn`` the project rulings (docs/france1940/project_rulings.md).
"""
