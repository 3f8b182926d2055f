"""Deciding a ruling: the draft a command decides in (draft.py) and the deciders, one per command (deciders/)."""
