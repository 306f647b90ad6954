"""Pure functions of one string: normalization, and LaTeX and markdown to readable plain text.
May import core/ only."""
