"""The click CLI: thin commands grouped by noun; one renderer for text and --json."""
