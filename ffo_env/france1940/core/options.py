"""``RulesOptions``: the Order of Battle Alternatives, the optional rules, the BEF variant and the reading
options of the rulings (F2). Defaults are the binding rulings and the Standard Game; every reading a ruling
chooses stays selectable.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ffo_env.france1940.core.data import DATA_VERSIONS, data_choice, unknown_version

ALLIED_COLUMNS = ("Hist", "A", "B", "C", "D", "E", "A+B", "A+B+C", "A+B+C+E", "A+C", "A+E")
GERMAN_COLUMNS = ("I", "II", "III", "IV", "V", "VI")
RANDOM = "random"  # draw the column with the game's own generator at setup (a recorded die)

_CHOICES: dict[str, tuple[object, ...]] = {
    "allied_obac": (*ALLIED_COLUMNS, RANDOM),
    "german_obac": (*GERMAN_COLUMNS, RANDOM),
    "de_gt1_second_row_turn": (1, 2),  # F45
    "retreat_hexes": (1, 2),  # F26
    "bef_armor_threshold": (3, 2),  # F50
    "bef_armor_vp_mode": ("replace", "add"),  # F57
}
_BOOLS = (
    "optional_airborne",
    "optional_variable_victory",
    "optional_mild_winter",
    "bef_variant",
    "bef_bomber_command",
    "interdiction_blocks_retreat",
    "allied_exit_scores_vp",
    "hidden_obac",
    "skip_forced",
)

# the BEF variant as one option set (F46): ``RulesOptions(**BEF_OPTION_SET)``
BEF_OPTION_SET: dict[str, Any] = {"bef_variant": True}


@dataclass(frozen=True)
class RulesOptions:
    """Rules options (F2).

    - ``allied_obac`` / ``german_obac``: the Order of Battle Alternative of each side (F44), or ``"random"``
      to draw it at setup from the game's generator.
    - ``hidden_obac``: each side's column (and its arrival schedule) stays hidden from the other player (P3);
      default false because F60 has both players learn both columns when setup starts.
    - ``optional_airborne``, ``optional_variable_victory``, ``optional_mild_winter``: the Optional rules.
    - ``bef_variant``, ``bef_bomber_command``: Pournelle's BEF variant (F46-F58).
    - ``de_gt1_second_row_turn`` (F45), ``retreat_hexes`` (F26), ``interdiction_blocks_retreat`` (F33),
      ``allied_exit_scores_vp`` (F16), ``bef_armor_threshold`` (F50), ``bef_armor_vp_mode`` (F57): readings.
    - ``counterattack_shift``: F27's tuning knob, columns to the right for counter-attacks (0..7).
    - ``skip_forced``: a decision with exactly one legal action is applied automatically (recorded ``auto``, P2).
    - ``data_version``: the game data played (``ffo_env.france1940.core.data.DATA_VERSIONS``); default
      ``$FFO_F40_DATA`` or ``DEFAULT_DATA``. Records and saved states carry it.
    """

    allied_obac: str = "Hist"
    german_obac: str = "I"
    optional_airborne: bool = False
    optional_variable_victory: bool = False
    optional_mild_winter: bool = False
    bef_variant: bool = False
    bef_bomber_command: bool = False
    de_gt1_second_row_turn: int = 1
    retreat_hexes: int = 1
    interdiction_blocks_retreat: bool = True
    allied_exit_scores_vp: bool = True
    bef_armor_threshold: int = 3
    bef_armor_vp_mode: str = "replace"
    counterattack_shift: int = 0
    hidden_obac: bool = False
    skip_forced: bool = True
    data_version: str = field(default_factory=data_choice)

    def __post_init__(self) -> None:
        if not isinstance(self.data_version, str) or self.data_version not in DATA_VERSIONS:
            raise unknown_version(self.data_version)
        for name, allowed in _CHOICES.items():
            v = getattr(self, name)
            if v not in allowed or type(v) is not type(allowed[0]):
                raise ValueError(f"rules option {name} must be one of {list(allowed)}, found {v!r}")
        for name in _BOOLS:
            if type(getattr(self, name)) is not bool:
                raise TypeError(f"rules option {name} must be true or false, found {getattr(self, name)!r}")
        if type(self.counterattack_shift) is not int or not 0 <= self.counterattack_shift <= 7:
            raise ValueError(
                f"rules option counterattack_shift must be 0..7, found {self.counterattack_shift!r}"
            )
        if self.bef_bomber_command and not self.bef_variant:
            raise ValueError("rules option bef_bomber_command needs bef_variant (F2)")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: object) -> RulesOptions:
        if not isinstance(d, dict):
            raise TypeError(f"rules options must be a mapping, found {type(d).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown rules options {sorted(unknown)}; known: {sorted(known)}")
        return cls(**d)


def with_data_version(options: object, data: str) -> object:
    """The rules options of a record or saved state whose top level names game data ``data``: options written
    before ``data_version`` was an option play that data; options naming another version are refused."""
    if not isinstance(options, dict):
        return options  # RulesOptions.from_dict names the fault
    if "data_version" not in options:
        return {**options, "data_version": data}
    if options["data_version"] != data:
        raise ValueError(f"data_version {options['data_version']!r} differs from the data {data!r}")
    return options
