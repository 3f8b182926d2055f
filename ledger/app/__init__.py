"""The write side's command methods, one module per kind of command (ledger/application.py joins them)."""
