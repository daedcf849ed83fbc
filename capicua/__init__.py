"""Capicúa: Cuban dominoes and the other domino games of RULES.md."""

__version__ = "0.1.0"
