"""The d20 rule system: `system.RULES` (ledger/rules/contract.py); declarations in options.py."""
