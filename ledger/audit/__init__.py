"""What `ledger verify` checks: the hash chain walk, the whole report, and the verifiable-dice proof."""
