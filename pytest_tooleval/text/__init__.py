"""Text normalisation shared by the router, evidence matching and the built-in tools:
Turkish-aware case folding, diacritic folding, emoji hints, word splitting."""
