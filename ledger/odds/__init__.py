"""Fight odds: the rest of a fight played out many times through the campaign's own rules (docs/odds.md)."""
