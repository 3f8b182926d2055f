"""The history of rulings: undo, redo, retraction (re-derivation, its walk, plan and diff), why, export and import."""
