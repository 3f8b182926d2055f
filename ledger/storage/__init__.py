"""Where a ledger lives and how it is written: the target, the event store, its schema check, the dice secrets and
the players' side tables."""
