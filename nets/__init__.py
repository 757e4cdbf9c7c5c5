"""The networks shipped with the engine; each one has a card (a .md beside it)."""
