"""What the session shell completes, with help: commands, options, character names, conditions, traits and roll names.

`Completer.items(before, text)` answers for the word `text` after the line `before`: (candidate, help) pairs
whose candidate starts with `text` (case-insensitive). The rules options and roll names come from the rule
systems' declarations (commands/options.py), filtered to the campaign's own system once it is known. `rank`
orders every candidate for the prompt's fuzzy matching: prefix matches first, then substrings, then letters
in order (`chsh` finds `character show`'s `show` when typed after `character`).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import click

from ledger.rules import get_rules

LEAVE = frozenset({"exit", "quit"})
CHARACTER_ARGS = frozenset({"attacker", "target", "targets", "name", "names"})
GLOBAL_VALUE_OPTIONS = frozenset({"--db", "--seed", "--as"})
ROLE_HELP = {"actor": "the acting character's roll", "other": "the other character's roll", "-": "no one's roll"}

Item = tuple[str, str]  # (candidate, help)
Names = Callable[[], Sequence["str | Item"]]


def split_word(line: str) -> tuple[str, str]:
    """The line before the word at its end, and that word (from an open quote, if one is open)."""
    start, quote = 0, ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch.isspace():
            start = i + 1
    return line[:start], line[start:]


def quoted(name: str) -> str:
    """A name as the shell line needs it (quoted when it holds a space)."""
    return shlex.quote(name) if " " in name else name


def rank(items: Iterable[Item], text: str) -> list[Item]:
    """Fuzzy matches of `text`: prefix matches first, then substrings, then the letters in order."""
    bare = text.lstrip("'\"").casefold()
    if not bare:
        return list(items)
    prefix, inner, loose = [], [], []
    for item in items:
        cand = item[0].lstrip("'\"").casefold()
        if cand.startswith(bare):
            prefix.append(item)
        elif bare in cand:
            inner.append(item)
        else:
            span = _span(bare, cand)
            if span is not None:
                loose.append((not cand.startswith(bare[0]), span, item))
    return prefix + inner + [item for *_, item in sorted(loose, key=lambda x: (x[0], x[1]))]


def _span(letters: str, word: str) -> int | None:
    """How many characters of `word` the letters, found in order, spread over (None: not all found)."""
    at, first = 0, -1
    for ch in letters:
        at = word.find(ch, at)
        if at < 0:
            return None
        first = at if first < 0 else first
        at += 1
    return at - first


class Completer:
    """Candidates for the word being typed, from the command tree, the roster and the campaign's rules."""

    def __init__(
        self,
        group: click.Group,
        names: Names,
        conditions: Names,
        *,
        system: Callable[[], str | None] = lambda: None,
        sheet: Callable[[str], Mapping[str, Any] | None] = lambda name: None,
    ) -> None:
        self.group = group
        self.names = names
        self.conditions = conditions
        self.system = system
        self.sheet = sheet

    def candidates(self, before: str, text: str) -> list[str]:
        """What may replace `text`, given the line before it."""
        return [c for c, _ in self.items(before, text)]

    def items(self, before: str, text: str) -> list[Item]:
        """(candidate, help) pairs that start with `text` (case-insensitive)."""
        bare = text.lstrip("'\"").casefold()
        return [(c, h) for c, h in self.every(before, text) if c.lstrip("'\"").casefold().startswith(bare)]

    def every(self, before: str, text: str = "") -> list[Item]:
        """Every candidate at this place of the line, unfiltered (`text` only says whether an option is begun)."""
        try:
            words = shlex.split(before)
        except ValueError:
            words = before.split()
        words = _skip_globals(words)
        cmd: click.Command = self.group
        path: list[str] = []
        if words and words[0] == "help":
            words = words[1:]
        while isinstance(cmd, click.Group) and words and _sub(cmd, words[0]) is not None:
            path.append(words[0])
            cmd = _sub(cmd, words.pop(0))  # type: ignore[assignment]
        if isinstance(cmd, click.Group):
            if words:
                return []
            subs = [(name, _sub(cmd, name)) for name in cmd.list_commands(click.Context(cmd))]
            out = [(name, _short(sub)) for name, sub in subs if sub is not None and not sub.hidden]
            if not path:
                out += [
                    ("exit", "leave the shell"),
                    ("help", "help [COMMAND]: a command's options"),
                    ("quit", "leave the shell"),
                ]
            return out
        command = " ".join(path)
        options = {o: p for p in cmd.params if isinstance(p, click.Option) for o in p.opts}
        pos = _positionals(words, options)
        if len(words) >= 1 and words[-1] in options and not options[words[-1]].is_flag:
            return self._value(command, options[words[-1]], words, pos)
        if len(words) >= 2 and words[-2] in options and options[words[-2]].nargs == 2:
            return self._traits(words[-1])  # --against NAME TRAIT
        if text.startswith("-"):
            return self._options(command, cmd)
        return self._positional(command, cmd, pos)

    # -- the parts -----------------------------------------------------------------------------
    def _names(self) -> list[Item]:
        return [(quoted(n), h) for n, h in _pairs(self.names())]

    def _options(self, command: str, cmd: click.Command) -> list[Item]:
        mine = self._declared(command)
        # lazy: the rules options; kept out of `ledger play --help`
        from commands.options import named

        rules_named = {f"--{name}" for name, _o, _h in named(command)}
        out: list[Item] = []
        for p in cmd.params:
            if not isinstance(p, click.Option):
                continue
            for o in p.opts:
                if o in rules_named and mine is not None:
                    decl = mine.get(o[2:])
                    if decl is not None:
                        out.append((o, decl.help))
                elif o.startswith("--"):
                    out.append((o, _first_sentence(p.help or "")))
        return sorted(out) + [("--help", "this command's options")]

    def _declared(self, command: str) -> dict[str, Any] | None:
        """The campaign's system's declarations for a command, by name (None before a campaign exists)."""
        system = self.system()
        if system is None:
            return None
        # lazy: the rules options; kept out of `ledger play --help`
        from commands.options import declarations

        return {o.name: o for o in declarations(system).get(command, ())}

    def _value(self, command: str, param: click.Option, words: list[str], pos: list[str]) -> list[Item]:
        """Values of the option just typed."""
        name = param.name or ""
        if param.metavar in ("NAME", "NAME TRAIT"):
            return self._names()
        if name == "rolls":
            return self._rolls(command, pos)
        if name == "inits":  # `--init 'Energy Controller=5'`: the name and its = quoted together
            return [
                (quoted(f"{n}="), "their initiative total, rolled elsewhere")
                for n, _ in _pairs(self.names())
                if n in pos
            ]
        if name == "extra":
            return self._keys(command, pos)
        if isinstance(param.type, click.Choice):
            return [(str(c), "") for c in param.type.choices]
        if name.endswith("_opt"):
            decl = (self._declared(command) or {}).get(name[:-4].replace("_", "-"))
            if decl is None:
                return []
            if decl.name == "with":  # the attacker's powers and traits, and what the rules take besides (unarmed)
                own = self._traits(pos[0] if pos else "", powers_first=True)
                extra = [(v, f"the rules' default: {decl.help}") for v in (decl.default, *decl.choices) if v]
                return own + [x for x in extra if x[0] not in {k for k, _ in own}]
            return [(c, decl.help) for c in decl.choices]
        return []

    def _keys(self, command: str, pos: list[str]) -> list[Item]:
        """`-o KEY=` and `KEY=VALUE` for the campaign's system (every system's before a campaign exists)."""
        if command == "act":
            command = f"act {pos[1]}" if len(pos) > 1 else command
        mine = self._declared(command)
        if mine is None:
            # lazy: the rules options; kept out of `ledger play --help`
            from commands.options import candidates

            return candidates(command, "")
        out: list[Item] = []
        for o in mine.values():
            out.append((f"{o.name}=", o.help))
            values = ("yes", "no") if o.kind == "flag" else o.choices
            out += [(f"{o.name}={v}", o.help) for v in values]
        return out

    def _rolls(self, command: str, pos: list[str]) -> list[Item]:
        """`--roll NAME=` with whose roll it is."""
        system = self.system()
        if command.startswith("encounter"):
            if command in ("encounter start", "encounter join"):
                return [(quoted(f"{n}="), "their initiative roll") for n, _ in _pairs(self.names())]
            turn = _turn_rolls(system)
            return [(f"{n}=" if not n.endswith("-") else n, "the turn's processing") for n in turn]
        if system is None:
            return []
        # lazy: the rules options; kept out of `ledger play --help`
        from commands.options import _module

        mod = _module(system)
        if command == "act":
            rolls = mod.ACTION_ROLLS.get(pos[1], {}) if len(pos) > 1 else {}
        else:
            rolls = mod.ROLLS.get(command, {})
        return [(f"{n}=", ROLE_HELP.get(role, "")) for n, role in rolls.items()]

    def _traits(self, name: str, *, powers_first: bool = False) -> list[Item]:
        """A character's traits and powers, with their ranks."""
        sheet = self.sheet(name) if name else None
        if not sheet:
            return []
        traits = [(k, f"trait {v}") for k, v in sorted((sheet.get("traits") or {}).items())]
        found = sorted((sheet.get("powers") or {}).items(), key=lambda kp: (not _attack(kp[1]), kp[0]))
        powers = [(k, f"power: {p.get('effect', '')} {p.get('rank', '')}".strip()) for k, p in found]
        return powers + traits if powers_first else traits + powers

    def _checks(self, name: str) -> list[Item]:
        """What `check NAME` can roll, as the player's page offers it: the traits the rules let the character check
        (`RuleSystem.check_traits`: d20's six abilities, a score not given counting as 10), never a number of the
        sheet the rules refuse to check (d20's hp, attack); its powers after them, where the rules check a power."""
        sheet = self.sheet(name) if name else None
        system = self.system()
        if not sheet or system is None:
            return self._traits(name)
        # lazy: the sheet's model, only when a check's trait is completed
        from ledger.model.sheet import Sheet

        try:
            mine = Sheet.from_dict(dict(sheet))
        except (KeyError, TypeError, ValueError):
            return self._traits(name)
        rules = get_rules(system)
        given = dict(sheet.get("traits") or {})
        traits = [t for t in rules.check_traits(mine) if rules.can_check(mine, t)]
        out = [(t, f"trait {given[t]}" if t in given else "10: not on the sheet") for t in traits]
        return out + [i for i in self._traits(name) if i[0] not in traits and rules.can_check(mine, i[0])]

    def _positional(self, command: str, cmd: click.Command, pos: list[str]) -> list[Item]:
        """The argument at this place: a character, a condition, a trait, an action or a resource."""
        args = [p for p in cmd.params if isinstance(p, click.Argument)]
        if not args:
            return []
        arg = (
            args[min(len(pos), len(args) - 1)]
            if args[-1].nargs == -1
            else (args[len(pos)] if len(pos) < len(args) else None)
        )
        if arg is None:
            return []
        if command.startswith("condition ") and arg.name == "name":
            return self._conditions(command, pos[0] if pos else "")
        if arg.name in CHARACTER_ARGS:
            if arg.nargs == -1:
                return [i for i in self._names() if i[0] not in pos]
            return self._names()
        if arg.name == "trait" and pos:
            return self._checks(pos[0]) if command == "check" else self._traits(pos[0])
        if arg.name == "action":
            return self._actions()
        if arg.name == "resource" and pos:
            sheet = self.sheet(pos[0]) or {}
            return [(k, f"has {v}") for k, v in (sheet.get("resources") or {}).items()]
        return []

    def _conditions(self, command: str, name: str) -> list[Item]:
        """Conditions to add; to remove, the character's own first."""
        every = _pairs(self.conditions())
        if command == "condition remove":
            sheet = self.sheet(name) if name else None
            if sheet:
                have = list(sheet.get("conditions") or ())
                return [(c, "imposed") for c in have] + [(c, h) for c, h in every if c not in have]
        return every

    def _actions(self) -> list[Item]:
        system = self.system()
        if system is None:
            return []
        return [(a.name, a.help) for a in get_rules(system).actions.values()]


# Powers that attack (hnh-site/gameplay.txt, Attack Check): offered first for `attack --with`, before senses, features
# and the rest of what a sheet holds.
ATTACK_EFFECTS = frozenset({"damage", "affliction", "weaken", "nullify", "move object", "mental transform"})


def _attack(power: Any) -> bool:
    """Whether a power on a sheet is an attack (its effect, or an `attack` part of a P&P power)."""
    if not isinstance(power, Mapping):
        return False
    return str(power.get("effect", "")).casefold() in ATTACK_EFFECTS or bool(power.get("attack"))


def _pairs(values: Iterable[str | Item]) -> list[Item]:
    return [(v, "") if isinstance(v, str) else (v[0], v[1]) for v in values]


def _sub(group: click.Group, name: str) -> click.Command | None:
    """A group's command by name (a lazy group loads it)."""
    return group.get_command(click.Context(group), name)


def _short(cmd: click.Command) -> str:
    return cmd.get_short_help_str(limit=70)


def _first_sentence(text: str) -> str:
    return text.split(". ")[0].strip()


def _turn_rolls(system: str | None) -> tuple[str, ...]:
    if system is None:
        return ()
    return get_rules(system).turn_rolls


def _positionals(words: list[str], options: Mapping[str, click.Option]) -> list[str]:
    """The positional words after the command (options and their values left out)."""
    out: list[str] = []
    skip = 0
    for w in words:
        if skip:
            skip -= 1
        elif w.startswith("-") and len(w) > 1 and not w[1:].isdigit():
            p = options.get(w.split("=", 1)[0])
            skip = (
                0
                if "=" in w or (p is not None and p.is_flag) or (p is None and w == "--json")
                else (p.nargs if p is not None else 0)
            )
        else:
            out.append(w)
    return out


def _skip_globals(words: list[str]) -> list[str]:
    """The words after any global options at the start of a line."""
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in GLOBAL_VALUE_OPTIONS else 1
    return words[i:]


def as_prompt_completer(completer: Completer) -> Any:
    """The completer for prompt_toolkit: fuzzy, with each candidate's help beside it."""
    # lazy: prompt_toolkit, the session shell's; kept out of `ledger --help`
    from prompt_toolkit.completion import Completer as PTCompleter
    from prompt_toolkit.completion import Completion

    class Fuzzy(PTCompleter):
        """Completions of the word before the cursor."""

        def get_completions(self, document: Any, complete_event: Any) -> Iterable[Completion]:
            before, text = split_word(document.text_before_cursor)
            try:
                found = rank(completer.every(before, text), text)
            except Exception:  # completion must never break the prompt
                return
            seen: set[str] = set()
            for cand, help_text in found:
                if cand not in seen:
                    seen.add(cand)
                    yield Completion(cand, start_position=-len(text), display_meta=help_text)

    return Fuzzy()
