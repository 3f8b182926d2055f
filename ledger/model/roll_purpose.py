"""Rolls named by what they are for, wherever a player or the GM reads about one being asked or shown.

A stored roll keeps its name (the record never changes): a participant's initiative roll is named after them
(`Ann`, ledger/rulings/deciders/encounter.py), a tie's roll-off `rolloff-Ann`, H&H's dying check at the start
of a dying hero's turn `fortitude`, an ongoing affliction's check `ongoing-NAME`, d20's instant-death roll after a
confirmed critical `death`. These are the words for them.
"""

from __future__ import annotations

TURN_COMMANDS = frozenset({"encounter next", "encounter delay", "encounter act", "encounter remove", "encounter join"})
WORDS = {"death": "instant death"}  # the other stored names already say what they are for


def purpose(name: str, owner: str | None = None, command: str | None = None) -> str:
    """What a roll is for, in a word or two: `initiative`, `attack`, `confirm`, `damage`, `dying check`, ..."""
    key = (name or "").strip()
    if owner and key.casefold() == owner.strip().casefold():
        return "initiative"
    if key.startswith("rolloff-"):
        return "initiative roll-off"
    if key.startswith("ongoing-"):
        return f"check against {key.removeprefix('ongoing-')}"
    if key in ("fortitude", "stabilize") and command in TURN_COMMANDS:
        return "dying check"
    return WORDS.get(key, key.replace("-", " "))  # `slam-toughness`: slam toughness
