"""The error a user's mistake raises: the CLI prints its message as one line and exits 2, with no traceback."""


class UserError(Exception):
    """Bad input from a person (a file, a field, an option): the message says which and what is wrong."""
