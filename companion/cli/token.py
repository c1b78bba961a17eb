"""`companion token show|rotate|host --db PATH`: the table token kept beside the game log, and the host's phone
(docs/web.md)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("token", help="the table token that lets a phone act: show it or make a new one")
    actions = parser.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    for name, text in (
        ("show", "print the token (made when missing)"),
        ("rotate", "make a new token: every phone must scan the new QR code to act again"),
        ("host", "the next phone to join becomes the table's host (when the host's phone is lost)"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument(
            "--db",
            default="/var/lib/orrery/companion.db",
            help="the table's game log; the token is kept in its folder (default: the Pi's)",
        )
        action.set_defaults(run=_run)  # fmt: skip


def _run(args: argparse.Namespace) -> int:
    from companion.table.token import read_token, rotate_token, token_file

    path = token_file(args.db)
    if args.token_command == "host":
        from companion.web.seats import read_phones, write_phones

        write_phones(path.parent, {**read_phones(path.parent), "host": None})
        print(
            f"The next phone to join the table is its host (kept in {path.parent}; a running companion takes it "
            "up at once)."
        )
        return 0
    token = rotate_token(path) if args.token_command == "rotate" else read_token(path)
    note = "; a running companion takes it up at once" if args.token_command == "rotate" else ""
    print(f"{token}\n(kept in {path}{note})")
    return 0
