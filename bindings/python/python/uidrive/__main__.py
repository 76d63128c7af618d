"""``python -m uidrive``: the ``uidrive`` command."""

from uidrive._cli import _run

if __name__ == "__main__":
    _run()
