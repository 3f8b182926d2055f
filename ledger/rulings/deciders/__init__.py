"""Deciders: for each GM command, the function that decides a ruling from its recorded intent.

A decider is `(draft, intent) -> result`. It reads the world through the draft, asks the campaign's rule
system (ledger/rules/contract.py) what happens, and records the effects on the draft. Because a ruling
records its command, its intent and its dice, any ruling can be decided again later (a retraction
re-derives later rulings this way) without the CLI: `table.DECIDERS` maps stored command names to deciders.
"""
