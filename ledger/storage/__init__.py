"""Where a ledger lives and how it is written: the target, the event store, the dice secrets, export/import."""
