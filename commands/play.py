"""Table commands: `roll`, `damage`, `condition add|remove`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from commands.context import AppContext, pass_app
from commands.options import gather, rules_options, wait_option
from commands.output import ruling_text
from commands.params import number
from commands.registry import command, group
from ledger import catalog as C
from ledger.errors import BadInput
from ledger.model.dice import parse_roll_options
from ledger.model.event_names import DICE_ROLLED
from ledger.words.describe import dice_line

F = TypeVar("F", bound=Callable[..., Any])
ROLL_HELP = "Enter physical dice: NAME=FACES (repeatable), e.g. attack=+,0,- or attack=17 or attack=6,4,1."


def roll_option(names: str) -> Callable[[F], F]:
    """The shared --roll option, listing the roll names this command takes (and --wait, for a player's roll)."""
    roll = click.option("--roll", "rolls", multiple=True, metavar="NAME=FACES", help=f"{ROLL_HELP} Rolls: {names}.")
    return lambda f: wait_option(roll(f))


@command(C.ROLL)
@click.argument("expr")
@click.option("--for", "for_name", default=None, metavar="NAME", help="The character rolling.")
@roll_option(C.ROLL.name)
@pass_app
def roll(app: AppContext, expr: str, for_name: str | None, rolls: tuple[str, ...]) -> None:
    """A free roll, recorded: 3dF, 1d20+3, 5d6 or 4d (a pool in pnp), 2d6+1, or any dice expression: keep/drop
    (4d6kh3, 2d20kl1), explode (1d6e6), reroll (1d20rr1, 1d20ro1), min/max (10d6mi2), arithmetic, parentheses.

    Entered faces go in the order the dice are rolled, rerolls and explosions included. An expression that starts
    with a minus sign follows `--`. Example: ledger roll 4d6kh3 --for Ann --roll roll=6,4,2,1
    """
    result = app.ledger.roll(expr, for_name=for_name, rolls=parse_roll_options(rolls))
    app.wrote(
        result,
        lambda r: dice_line(next((e["data"] for e in r.get("events", []) if e["type"] == DICE_ROLLED), r["roll"])),
    )


@command(C.DAMAGE)
@click.argument("target")
@click.option("--amount", type=number("amount"), default=None, help="Direct HP (or Health) loss, no resistance roll.")
@click.option(
    "--rank",
    type=number("rank"),
    default=None,
    help="hnh: a Damage effect of this rank, resisted by Toughness (rolls power, toughness).",
)
@click.option("--subdual", is_flag=True, help="d20: subdual damage, tracked apart from HP.")
@rules_options(C.DAMAGE.name)
@roll_option("power, toughness (with --rank)")
@pass_app
def damage(
    app: AppContext,
    target: str,
    amount: int | None,
    rank: int | None,
    subdual: bool,
    rolls: tuple[str, ...],
    **given: Any,
) -> None:
    """Apply damage: a direct loss (--amount) or, in hnh, an effect rank resisted by Toughness (--rank).

    \b
    Examples:
      ledger damage Ann --amount 3
      ledger damage Ann --rank 6 --roll power=+,0,0 --roll toughness=-,0,0
    """
    opts = gather("damage", given)
    if (amount is None) == (rank is None):
        raise BadInput("give one of --amount N or --rank N", "for example: ledger damage Ann --amount 3")
    if rank is not None:
        result = app.ledger.resist_damage(target, rank, opts, rolls=parse_roll_options(rolls))
        app.wrote(result, ruling_text)
        return
    if rolls or opts:
        raise BadInput("--amount takes no dice and no rules options", "leave out --roll and -o (they go with --rank)")
    assert amount is not None  # one of --amount and --rank was given
    result = app.ledger.damage(target, amount, subdual=subdual)
    app.wrote(result, ruling_text)


@group(C.CONDITION)
def condition() -> None:
    """Impose or remove conditions (names from the campaign's rules)."""


@command(C.CONDITION_ADD)
@click.argument("target")
@click.argument("name")
@click.option(
    "--rounds",
    type=number("rounds"),
    default=None,
    help="It ends at the end of TARGET's Nth turn from now (a turn in progress does not count).",
)
@click.option(
    "--until",
    type=click.Choice(["start", "end"]),
    default=None,
    help="It ends at the start or end of the next turn of WHO (--of).",
)
@click.option("--of", "of", default=None, metavar="WHO", help="Whose turn --until counts.")
@click.option("--scene", is_flag=True, help="pnp: it lasts until the scene ends (scene end, encounter end).")
@pass_app
def condition_add(
    app: AppContext, target: str, name: str, rounds: int | None, until: str | None, of: str | None, scene: bool
) -> None:
    """Impose a condition, for as long as the GM rules: until removed, or for a duration.

    \b
    Examples:
      ledger condition add Ann dazed
      ledger condition add Bob dazed --rounds 1              (ends at the end of Bob's next turn)
      ledger condition add Bob vulnerable --until start --of Ann
      ledger condition add Bob stunned --scene               (pnp)
    """
    result = app.ledger.condition(target, name, add=True, rounds=rounds, until=until, of=of, scene=scene)
    app.wrote(result, ruling_text)


@command(C.CONDITION_REMOVE)
@click.argument("target")
@click.argument("name")
@pass_app
def condition_remove(app: AppContext, target: str, name: str) -> None:
    """Remove a condition. Example: ledger condition remove Ann dazed"""
    app.wrote(app.ledger.condition(target, name, add=False), ruling_text)
