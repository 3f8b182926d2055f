"""`python -m commands` runs the ledger CLI."""

from commands.main import main

main()
