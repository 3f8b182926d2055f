"""`character add|list|show|import`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import click

from commands import render
from commands.context import AppContext, pass_app
from commands.output import ruling_text
from commands.params import number
from commands.registry import command, group
from ledger import catalog as C
from ledger.errors import BadInput

if TYPE_CHECKING:
    from ledger.intents import Recorded


def parse_traits(values: tuple[str, ...]) -> dict[str, str]:
    """Repeated --trait KEY=VALUE into a dict (values validated by the campaign's rules)."""
    out: dict[str, str] = {}
    for v in values:
        key, sep, value = v.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise BadInput(f"--trait '{v}' is not KEY=VALUE", "for example --trait agility=3")
        out[key.strip()] = value.strip()
    return out


def parse_powers(values: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """Repeated --power NAME:PART=VALUE[,PART=VALUE] into {name: {part: value}} (parts validated by the rules)."""
    out: dict[str, dict[str, str]] = {}
    for v in values:
        name, sep, rest = v.partition(":")
        pairs = [p.partition("=") for p in rest.split(",") if p.strip()]
        if (
            not sep
            or not name.strip()
            or not pairs
            or any(not eq or not k.strip() or not x.strip() for k, eq, x in pairs)
        ):
            raise BadInput(
                f"--power '{v}' is not NAME:PART=VALUE[,PART=VALUE]",
                "for example --power webs:effect=ensnare,resist=agility",
            )
        out.setdefault(name.strip(), {}).update({k.strip(): x.strip() for k, _, x in pairs})
    return out


@group(C.CHARACTER)
def character() -> None:
    """Characters: add, import, list, show."""


@command(C.CHARACTER_ADD)
@click.argument("name")
@click.option(
    "--trait",
    "traits",
    multiple=True,
    metavar="KEY=VALUE",
    help="A trait (repeatable): hnh ranks, d20 scores, pnp dice.",
)
@click.option(
    "--minion", is_flag=True, help="A minion (hnh: max HP 1; pnp: a group with one Threat rank; d20 has none: refused)."
)
@click.option(
    "--count", type=number("count"), default=1, show_default=True, help="How many minions in the group (with --minion)."
)
@click.option("--pc", is_flag=True, help="A player character (gets victory points / resolve).")
@click.option(
    "--hidden",
    is_flag=True,
    help="An NPC kept off the players' screen (ledger serve) until it acts or `encounter reveal NAME`.",
)
@click.option(
    "--copies",
    type=number("copies"),
    default=None,
    metavar="N",
    help="Add NAME 1 .. NAME N with the same sheet, in one ruling (five thugs: --copies 5).",
)
@click.option(
    "--power",
    "powers",
    multiple=True,
    metavar="NAME:PART=VALUE,...",
    help="pnp: a power's parts, kept on the sheet (repeatable; its rank is a --trait): defense=active|passive, "
    "travel=yes (a Travel Power), effect=stun|ensnare|blind|knockdown|grab and resist=TRAIT.",
)
@pass_app
def add(
    app: AppContext,
    name: str,
    traits: tuple[str, ...],
    minion: bool,
    count: int,
    pc: bool,
    hidden: bool,
    copies: int | None,
    powers: tuple[str, ...],
) -> None:
    """Add a character.

    \b
    Trait keys:
      hnh: strength agility fighting dexterity stamina intellect awareness presence
      hnh: dodge parry fortitude will toughness (defense totals), skills, improved-initiative
      d20: str dex con int wis cha hp armor attack dn
      pnp: agility intellect might perception toughness willpower, talents, powers by name
      pnp: threat (minions)

    \b
    Examples:
      ledger character add Ann --trait agility=3 --trait toughness=4 --pc             (hnh)
      ledger character add Webber --trait webs=4 --power webs:effect=ensnare,resist=agility   (pnp)
      ledger character add Thug --trait hp=6 --copies 5      (d20: Thug 1 .. Thug 5)
    """
    parts = parse_powers(powers)
    result = app.ledger.add_character(
        name,
        parse_traits(traits),
        minion=minion,
        count=count,
        pc=pc,
        power_parts=parts,
        copies=copies,
        hidden=hidden,
    )
    app.wrote(result, added("added "))


def added(lead: str) -> Callable[[Recorded], str]:
    """The lines of a ruling that added one character or several copies."""

    def text(r: Recorded) -> str:
        many = r.get("characters") or [r["character"]]
        head = f"{lead}{len(many)} copies" + (f" of {r['source']}" if r.get("source") else "") if len(many) > 1 else ""
        lines = [lead + render.sheet_line(_brief(c)) for c in many]
        return "\n".join([head, *[f"  {ln[len(lead) :]}" for ln in lines]]) if head else lines[0]

    return text


@command(C.CHARACTER_COPY)
@click.argument("name")
@click.argument("new")
@click.option("--copies", type=number("copies"), default=None, metavar="N", help="Make NEW 1 .. NEW N.")
@click.option("--count", type=number("count"), default=None, help="A minion group's size (default: NAME's).")
@pass_app
def copy(app: AppContext, name: str, new: str, copies: int | None, count: int | None) -> None:
    """A new character with NAME's stat block (traits and powers), fresh: full HP, no conditions.

    Example: ledger character copy Thug Bruiser
    """
    result = app.ledger.copy_character(name, new, copies=copies, count=count)
    app.wrote(result, added(f"copied {result['source']}: " if not result.get("characters") else "copied "))


@command(C.CHARACTER_SET)
@click.argument("name")
@click.option("--trait", "traits", multiple=True, metavar="KEY=VALUE", help="A trait's new value (repeatable).")
@pass_app
def set_(app: AppContext, name: str, traits: tuple[str, ...]) -> None:
    """Change traits by the GM's ruling (a mistyped trait): undo, retraction and `why` see it.

    A value the rules can't hold is refused; the max HP (Health) the traits give follows, the damage taken stays.
    Example: ledger character set Ann --trait agility=4
    """
    app.wrote(app.ledger.set_traits(name, parse_traits(traits)), ruling_text)


@command(C.CHARACTER_RETIRE)
@click.argument("name")
@pass_app
def retire(app: AppContext, name: str) -> None:
    """Take a character out of play: out of lists, trackers and completion; its history is kept.

    `character list --all` still shows it; `undo` brings it back. Example: ledger character retire "Thug 3"
    """
    result = app.ledger.retire_character(name)
    app.wrote(result, lambda r: f"{r['retired']} retires from play (history kept; character list --all shows it).")


def _brief(sheet: Mapping[str, Any]) -> dict[str, Any]:
    return {**sheet, "conditions": sheet.get("conditions", [])}


@command(C.CHARACTER_LIST)
@click.option("--all", "all_", is_flag=True, help="Retired characters too (marked retired).")
@pass_app
def list_(app: AppContext, all_: bool) -> None:
    """Every character in play, with HP and conditions; with --all, the retired too."""
    # lazy: the read side (SQLAlchemy); kept out of a one-shot write
    from projections import queries

    rows = queries.characters(app.read)
    if all_:
        ids = [e["id"] for e in app.log.campaign().domain.get("retired", [])]
        rows += [{**r, "retired": True} for r in queries.sheets_of(app.read, ids)]
    app.emit(
        rows,
        lambda rs: (
            "\n".join(render.sheet_line(r) + ("  (retired)" if r.get("retired") else "") for r in rs)
            or "(no characters)"
        ),
    )


@command(C.CHARACTER_SHOW)
@click.argument("name")
@click.option(
    "--at",
    "at",
    type=number("ruling"),
    default=None,
    metavar="RULING",
    help="The sheet as it stood right after ruling RULING (undone rulings left out).",
)
@pass_app
def show(app: AppContext, name: str, at: int | None) -> None:
    """A character's sheet, from the read models; with --at, as it stood at an earlier ruling.

    Example: ledger --json character show Ann --at 12
    """
    # lazy: the read side (SQLAlchemy); kept out of a one-shot write
    from projections import queries

    if at is None:
        app.emit(queries.character(app.read, name), lambda c: pool_text(c) if c.get("gm_pool") else render.sheet(c))
    else:
        app.emit(queries.sheet_at(app.read, name, at), lambda c: f"at ruling {c['at']}:\n" + render.sheet(c))


def pool_text(c: dict[str, Any]) -> str:
    """The GM's Adversity pool, for the GM's terminal."""
    return f"{c['name']}: {c['adversity']} Adversity ({c['note']})"


@command(C.CHARACTER_IMPORT)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--npc", is_flag=True, help="Import as a non-player character (no victory points).")
@pass_app
def import_(app: AppContext, file: str, npc: bool) -> None:
    """Import a Humans & Heroes character-creator save file (JSON, version 2) into an hnh campaign.

    Defense totals and Toughness are derived as the creator does; powers (Damage, Affliction, Protection, ...)
    are kept by name and usable in attacks: ledger attack NAME TARGET --with "Power Name".

    Example: ledger character import ../shared/fixtures/hnh-characters/paragon.json
    """
    result = app.ledger.import_character(file, pc=not npc)
    app.wrote(result, lambda r: "imported " + render.sheet_line(_brief(r["character"])))
