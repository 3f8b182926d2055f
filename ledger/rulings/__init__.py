"""The ruling loop: the draft a command decides in, the deciders, undo, retraction, why, the describer."""
