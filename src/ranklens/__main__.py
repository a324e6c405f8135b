"""``python -m ranklens``: the same as the ``ranklens`` command."""

from ranklens.cli import entry

if __name__ == "__main__":
    entry()
