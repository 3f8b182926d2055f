"""Rules actions: `attack`, `check`, `recover`, `spend`, `gain`, `hazard`, `revive`, `act`."""

from __future__ import annotations

from typing import Any

import click

from commands import render
from commands.context import AppContext, pass_app
from commands.params import number
from ledger.dice import parse_roll_options
from ledger.errors import BadInput
from ledger.play import roll_names

OPTION_HELP = "A rules option KEY=VALUE (repeatable): yes/no flags, numbers, comma lists; see docs/interpretations.md."


def rolls_for(command: str) -> str:
    """The roll names a command takes, per system, for --help."""
    parts = [f"{s}: {', '.join(roll_names(s, command))}" for s in ("hnh", "d20", "pnp") if roll_names(s, command)]
    return "; ".join(parts) or "none"


def roll_option(command: str) -> Any:
    """--roll NAME=FACES, listing this command's roll names."""
    return click.option(
        "--roll", "rolls", multiple=True, metavar="NAME=FACES",
        help=f"Enter physical dice (repeatable); a roll not given is rolled by the ledger. Rolls: {rolls_for(command)}.",
    )


def option_option() -> Any:
    """-o/--option KEY=VALUE for the rules' own options."""
    return click.option("-o", "--option", "extra", multiple=True, metavar="KEY=VALUE", help=OPTION_HELP)


def parse_options(values: tuple[str, ...], **named: Any) -> dict[str, Any]:
    """Named options plus -o KEY=VALUE pairs, with values typed: yes/no, whole numbers, comma lists."""
    out = {k.replace("_", "-"): v for k, v in named.items() if v not in (None, False, ())}
    for item in values:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise BadInput(f"option '{item}' is not KEY=VALUE", "for example -o cover=1/2 or -o flanking=yes")
        out[key.strip()] = typed(raw.strip())
    return out


def typed(raw: str) -> Any:
    """'yes' -> True, '3' -> 3, 'a,b' -> ['a', 'b'], else the text."""
    low = raw.lower()
    if low in ("yes", "true", "on", "y"):
        return True
    if low in ("no", "false", "off", "n"):
        return False
    if "," in raw:
        return [typed(p.strip()) for p in raw.split(",") if p.strip()]
    try:
        return int(raw)
    except ValueError:
        return raw


def outcome(r: dict[str, Any]) -> str:
    """The ruling's dice, resolutions and changes, one line each."""
    lines = []
    for e in r.get("events", []):
        who = f" {e['character']}" if e.get("character") else ""
        lines.append(f"  {e['type']}{who}: {render.event_summary(e)}")
    return "resolved\n" + "\n".join(lines)


@click.command("attack")
@click.argument("attacker")
@click.argument("target")
@click.option("--with", "with_", metavar="TRAIT_OR_POWER", help="hnh: the power or trait attacking; pnp: the trait or power whose dice attack.")
@click.option("--rank", type=number("rank"), help="hnh: the effect rank.")
@click.option("--bonus", type=number("bonus"), help="Attack bonus or penalty.")
@click.option("--damage", "damage_expr", metavar="EXPR", help="d20: the weapon's dice (default fists 1d4 subdual).")
@click.option("--range", "range_", metavar="RANGE", help="close, ranged, medium, long, beyond (hnh); perception, area (hnh).")
@click.option("--maneuver", help="hnh: accurate, all-out, defensive, power, charge, aim, finishing, slam, team, aid (comma list).")
@click.option("--effect", help="A special effect instead of damage (pnp: stun, ensnare, blind, knockdown, grab).")
@click.option("--cover", help="Target's cover (d20: 1/4, 1/2, 3/4, 9/10, complete; hnh: partial, total).")
@click.option("--subdual", is_flag=True, help="d20: the damage is subdual.")
@option_option()
@roll_option("attack")
@pass_app
def attack(app: AppContext, attacker: str, target: str, with_: str | None, rank: int | None, bonus: int | None, damage_expr: str | None,
           range_: str | None, maneuver: str | None, effect: str | None, cover: str | None, subdual: bool, extra: tuple[str, ...], rolls: tuple[str, ...]) -> None:
    """ATTACKER attacks TARGET under the campaign's rules.

    \b
    Examples:
      ledger attack Ann Thug --with blast --rank 8 --range ranged          (hnh)
      ledger attack Blaze Thug --damage 1d8 --roll attack=17 --roll damage=5   (d20)
      ledger attack Mara Goons --with might                                 (pnp)
    """
    maneuvers = [m.strip() for m in maneuver.split(",")] if maneuver else None
    opts = parse_options(extra, **{"with": with_}, rank=rank, bonus=bonus, damage=damage_expr, range=range_,
                         maneuver=maneuvers, effect=effect, cover=cover, subdual=subdual)
    app.wrote(app.ledger.attack(attacker, target, opts, rolls=parse_roll_options(rolls)), outcome)


@click.command("check")
@click.argument("name")
@click.argument("trait")
@click.option("--dc", type=number("dc"), help="hnh/d20: the difficulty class.")
@click.option("--threshold", metavar="N_OR_NAME", help="pnp: a number or a named threshold (routine, easy, average, challenging, hard, ...).")
@click.option("--against", nargs=2, metavar="NAME TRAIT", help="An opposed check against another character's trait.")
@option_option()
@roll_option("check")
@pass_app
def check(app: AppContext, name: str, trait: str, dc: int | None, threshold: str | None, against: tuple[str, str] | None,
          extra: tuple[str, ...], rolls: tuple[str, ...]) -> None:
    """A check of NAME's TRAIT against a DC, a threshold, or another character.

    \b
    Examples:
      ledger check Ann awareness --dc 10
      ledger check Mara agility --threshold hard
      ledger check Ann strength --against Grunt strength
    """
    if sum(x is not None for x in (dc, threshold, against)) > 1:
        raise BadInput("give one of --dc, --threshold or --against")
    opts = parse_options(extra, threshold=threshold)
    app.wrote(app.ledger.check(name, trait, dc=dc, against=against, options=opts, rolls=parse_roll_options(rolls)), outcome)


@click.command("recover")
@click.argument("target")
@click.option("--hours", type=number("hours"), default=0, show_default=True, help="Hours of recovery.")
@click.option("--restful", is_flag=True, help="hnh: restful (sleeping) doubles the rate.")
@click.option("--treated", is_flag=True, help="hnh: a successful Treatment check (DC 5) doubles the rate.")
@click.option("--amount", type=number("amount"), help="d20: HP the GM rules healed; pnp: Health regained.")
@click.option("--cause", help="d20: what healed it (medical attention, a power, time).")
@option_option()
@roll_option("recover")
@pass_app
def recover(app: AppContext, target: str, hours: int, restful: bool, treated: bool, amount: int | None, cause: str | None,
            extra: tuple[str, ...], rolls: tuple[str, ...]) -> None:
    """Recovery over time (the dead don't recover: see `revive`).

    Example: ledger recover Ann --hours 8 --restful --treated
    """
    result = app.ledger.recover(target, hours=hours, restful=restful, treated=treated, amount=amount, cause=cause,
                                options=parse_options(extra), rolls=parse_roll_options(rolls))
    app.wrote(result, outcome)


@click.command("spend")
@click.argument("name")
@click.argument("resource")
@click.argument("n", type=number("n"), default=1)
@click.option("--purpose", help="pnp: extra-dice, reroll, lucky-break, recovery.")
@pass_app
def spend(app: AppContext, name: str, resource: str, n: int, purpose: str | None) -> None:
    """Spend N of a resource: victory-points (hnh), resolve or adversity (pnp; the GM's pool is `GM`).

    Example: ledger spend Ann victory-points 1
    """
    app.wrote(app.ledger.spend(name, resource, n, purpose=purpose), outcome)


@click.command("gain")
@click.argument("name")
@click.argument("resource")
@click.argument("n", type=number("n"), default=1)
@click.option("--reason", help="pnp: flaw, heroics, players, award.")
@pass_app
def gain(app: AppContext, name: str, resource: str, n: int, reason: str | None) -> None:
    """Gain N of a resource (resolve from flaws and heroics, adversity, awarded victory points).

    Example: ledger gain Mara resolve 1 --reason heroics
    """
    app.wrote(app.ledger.gain(name, resource, n, reason=reason), outcome)


@click.command("hazard")
@click.argument("target")
@click.argument("kind")
@option_option()
@roll_option("hazard")
@pass_app
def hazard(app: AppContext, target: str, kind: str, extra: tuple[str, ...], rolls: tuple[str, ...]) -> None:
    """hnh environmental hazards: falling, heat, cold, starvation, thirst, suffocation, decompression, vacuum.

    Example: ledger hazard Ann falling -o distance-rank=4 -o accidental=yes
    """
    app.wrote(app.ledger.hazard(target, kind, parse_options(extra), rolls=parse_roll_options(rolls)), outcome)


@click.command("revive")
@click.argument("target")
@click.option("--means", required=True, help="hnh: healing, immortality; d20: gem-of-eternity, romnecos, soul-bound.")
@click.option("--by", "by", metavar="NAME", help="d20 soul-bound: who takes the fallen's place in death.")
@pass_app
def revive(app: AppContext, target: str, means: str, by: str | None) -> None:
    """Bring a dead character back, as the GM rules.

    Example: ledger revive Ann --means healing
    """
    app.wrote(app.ledger.revive(target, means, by=by), outcome)


@click.command("act")
@click.argument("name")
@click.argument("action")
@click.option("--against", "other", metavar="NAME", help="The other character (pnp chase, hnh affliction target).")
@option_option()
@roll_option("chase")
@pass_app
def act(app: AppContext, name: str, action: str, other: str | None, extra: tuple[str, ...], rolls: tuple[str, ...]) -> None:
    """A system-specific action: d20 run, charge; pnp chase; hnh affliction (without an attack check).

    \b
    Examples:
      ledger act Blaze charge
      ledger act Mara chase --against Goons
      ledger act Ann affliction --against Thug -o rank=6 -o conditions=dazed,stunned,incapacitated
    """
    app.wrote(app.ledger.act(name, action, parse_options(extra), other=other, rolls=parse_roll_options(rolls)), outcome)


def register(cli: click.Group) -> None:
    """Attach these commands."""
    for c in (attack, check, recover, spend, gain, hazard, revive, act):
        cli.add_command(c)
