"""epochlint: a static linter for epoch-lock discipline in message-consumer code."""

__version__ = "0.1.0"
