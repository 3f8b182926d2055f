"""The domain's values: dice, the character sheet, bounds of input, the event classes' metaclass."""
