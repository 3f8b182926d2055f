"""Rulings in words: the one describer of events and intents, die lines, summaries."""
