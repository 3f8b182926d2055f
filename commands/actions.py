"""Rules actions: `attack`, `check`, `recover`, `spend`, `gain`, `hazard`, `revive`, `act`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from commands.context import AppContext, pass_app
from commands.options import RulesOption, gather, roll_names, rules_options, wait_option
from commands.output import ruling_text
from commands.params import number
from commands.registry import command
from ledger import catalog as C
from ledger.errors import BadInput
from ledger.model.dice import parse_roll_options
from ledger.rules.options import split_pairs

if TYPE_CHECKING:
    from ledger.intents import Recorded


def rolls_for(command: str) -> str:
    """The roll names a command takes, per system, for --help."""
    parts = [f"{s}: {', '.join(names)}" for s, names in roll_names(command).items() if names]
    return "; ".join(parts) or "none"


def roll_option(command: str) -> Any:
    """--roll NAME=FACES, listing this command's roll names (and --wait, for a roll a player makes)."""

    def both(f: Any) -> Any:
        return wait_option(_roll(command)(f))

    return both


def _roll(command: str) -> Any:
    """--roll NAME=FACES, listing this command's roll names (inside a campaign, its system's alone)."""
    lead = "Enter physical dice (repeatable); a roll not given is rolled by the ledger. Rolls:"
    return click.option(
        "--roll",
        "rolls",
        multiple=True,
        metavar="NAME=FACES",
        cls=RulesOption,
        per_system={s: f"{lead} {', '.join(names)}." for s, names in roll_names(command).items() if names},
        always=True,
        help=f"{lead} {rolls_for(command)}.",
    )


def outcome(r: Recorded) -> str:
    """The ruling as a sentence, then its dice (commands/output.py; the raw events come with -v)."""
    return ruling_text(r)


@command(C.ATTACK)
@click.argument("attacker")
@click.argument("targets", nargs=-1, required=True, metavar="TARGET [TARGET]...")
@click.option(
    "--in-area",
    "in_area",
    multiple=True,
    metavar="GROUP=N",
    help="hnh area attack: how many members of a minion group the area catches (one GROUP.dodge and "
    "GROUP.toughness roll for all of them).",
)
@rules_options(C.ATTACK.name)
@roll_option(C.ATTACK.name)
@pass_app
def attack(
    app: AppContext,
    attacker: str,
    targets: tuple[str, ...],
    in_area: tuple[str, ...],
    rolls: tuple[str, ...],
    **given: Any,
) -> None:
    """ATTACKER attacks TARGET (several TARGETs: an area attack) under the campaign's rules.

    \b
    Examples:
      ledger attack Ann Thug --with blast --rank 8 --range ranged          (hnh)
      ledger attack Ann Bob Cy --with fireball --range area --roll Bob.dodge=+,0,0   (hnh area: per-target rolls)
      ledger attack Ann Thugs --with fireball --in-area Thugs=3             (hnh: 3 of the group caught)
      ledger attack Blaze Thug --damage 1d8 --roll attack=17 --roll damage=5   (d20)
      ledger attack Blaze Thug -o two-weapon=off -o off-light=yes          (d20)
      ledger attack Mara Goons --with might                                 (pnp)
    """
    opts = gather("attack", given)
    caught = in_area_counts(in_area)
    first, *also = targets
    result = app.ledger.attack(attacker, first, opts, rolls=parse_roll_options(rolls), also=also, in_area=caught)
    app.wrote(result, outcome)


def in_area_counts(pairs: tuple[str, ...]) -> dict[str, int]:
    """`--in-area GROUP=N` pairs: the group's name as given, a whole number of at least 1."""
    out: dict[str, int] = {}
    for item in pairs:
        name, sep, raw = item.rpartition("=")
        if not sep or not name.strip() or not raw.strip().isdigit() or int(raw) < 1:
            raise BadInput(f"--in-area '{item}' is not GROUP=N", "for example --in-area Thugs=3")
        out[name.strip()] = int(raw)
    return out


@command(C.CHECK)
@click.argument("name")
@click.argument("trait")
@click.option("--dc", type=number("dc"), help="hnh/d20: the difficulty class.")
@click.option("--against", nargs=2, metavar="NAME TRAIT", help="An opposed check against another character's trait.")
@rules_options(C.CHECK.name)
@roll_option(C.CHECK.name)
@pass_app
def check(
    app: AppContext,
    name: str,
    trait: str,
    dc: int | None,
    against: tuple[str, str] | None,
    rolls: tuple[str, ...],
    **given: Any,
) -> None:
    """A check of NAME's TRAIT against a DC, a threshold, or another character.

    \b
    Examples:
      ledger check Ann awareness --dc 10
      ledger check Mara agility --threshold hard
      ledger check Ann strength --against Grunt strength
    """
    opts = gather("check", given)
    if sum(x is not None for x in (dc, opts.get("threshold"), against)) > 1:
        raise BadInput("give one of --dc, --threshold or --against")
    app.wrote(
        app.ledger.check(name, trait, dc=dc, against=against, options=opts, rolls=parse_roll_options(rolls)), outcome
    )


@command(C.RECOVER)
@click.argument("target")
@click.option("--hours", type=number("hours"), default=0, show_default=True, help="Hours of recovery.")
@click.option("--restful", is_flag=True, help="hnh: restful (sleeping) doubles the rate.")
@click.option("--treated", is_flag=True, help="hnh: a successful Treatment check (DC 5) doubles the rate.")
@click.option("--amount", type=number("amount"), help="d20: HP the GM rules healed; pnp: Health regained.")
@click.option("--cause", help="d20: what healed it (medical attention, a power, time).")
@rules_options(C.RECOVER.name)
@roll_option(C.RECOVER.name)
@pass_app
def recover(
    app: AppContext,
    target: str,
    hours: int,
    restful: bool,
    treated: bool,
    amount: int | None,
    cause: str | None,
    rolls: tuple[str, ...],
    **given: Any,
) -> None:
    """Recovery over time (the dead don't recover: see `revive`).

    Example: ledger recover Ann --hours 8 --restful --treated
    """
    result = app.ledger.recover(
        target,
        hours=hours,
        restful=restful,
        treated=treated,
        amount=amount,
        cause=cause,
        options=gather("recover", given),
        rolls=parse_roll_options(rolls),
    )
    app.wrote(result, outcome)


@command(C.SPEND)
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


@command(C.GAIN)
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


@command(C.HAZARD)
@click.argument("target")
@click.argument("kind")
@rules_options(C.HAZARD.name)
@roll_option(C.HAZARD.name)
@pass_app
def hazard(app: AppContext, target: str, kind: str, rolls: tuple[str, ...], **given: Any) -> None:
    """hnh environmental hazards: falling, heat, cold, starvation, thirst, suffocation, decompression, vacuum,
    sleep-deprivation, forced-labor, disease, radiation.

    Example: ledger hazard Ann falling -o distance-rank=4 -o accidental=yes
    """
    app.wrote(app.ledger.hazard(target, kind, gather("hazard", given), rolls=parse_roll_options(rolls)), outcome)


@command(C.REVIVE)
@click.argument("target")
@click.option("--means", required=True, help="hnh: healing, immortality; d20: gem-of-eternity, romnecos, soul-bound.")
@click.option("--by", "by", metavar="NAME", help="d20 soul-bound: who takes the fallen's place in death.")
@pass_app
def revive(app: AppContext, target: str, means: str, by: str | None) -> None:
    """Bring a dead character back, as the GM rules.

    Example: ledger revive Ann --means healing
    """
    app.wrote(app.ledger.revive(target, means, by=by), outcome)


@command(C.ACT)
@click.argument("name")
@click.argument("action")
@click.option(
    "--against",
    "other",
    metavar="NAME",
    help="The other character (pnp chase; hnh affliction, grab, trip, feint, heal ... target).",
)
@click.option(
    "-o",
    "--option",
    "extra",
    multiple=True,
    metavar="KEY=VALUE",
    help="An option of the action (`ledger options act` lists them per system).",
)
@roll_option(C.ACT.name)
@pass_app
def act(
    app: AppContext, name: str, action: str, other: str | None, extra: tuple[str, ...], rolls: tuple[str, ...]
) -> None:
    """A system-specific action: d20 run, charge, action; pnp chase, move; hnh affliction (without an attack check),
    heal, defend, grab, escape, release, trip, disarm, smash, feint, demoralize, aim, extra-effort, seize-initiative,
    until, ongoing-damage, stand, action, ready, shake, maintain, drop.

    \b
    Examples:
      ledger act Blaze charge
      ledger act Blaze action -o kind=full -o what=reload
      ledger act Mara chase --against Goons
      ledger act Ann stand
      ledger act Ann affliction --against Thug -o rank=6 -o conditions=dazed,stunned,incapacitated
      ledger act Ann grab --against Thug
    """
    app.wrote(app.ledger.act(name, action, split_pairs(extra), other=other, rolls=parse_roll_options(rolls)), outcome)
