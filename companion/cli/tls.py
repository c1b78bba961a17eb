"""`companion tls init|show|renew --dir DIR`: the table's own certificate authority and its https certificate."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("tls", help="the table's certificate authority, which phones trust once, for https")
    actions = parser.add_subparsers(dest="tls_command", required=True, metavar="ACTION")
    for name, text in (
        ("init", "make the CA and the server certificate where missing (existing files are kept)"),
        ("show", "the CA's name and fingerprint, and the names the server certificate covers"),
        ("renew", "a new server certificate from the same CA, for this machine's names now"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("--dir", required=True, help="the folder of ca.crt, ca.key, server.crt and server.key")
        action.add_argument("--hostname", help="the table's host name (default: this machine's)")
        action.add_argument(
            "--name",
            action="append",
            default=[],
            metavar="NAME",
            help="another DNS name or IP address to cover (repeat it for more)",
        )
        action.set_defaults(run=_run)  # fmt: skip


def _run(args: argparse.Namespace) -> int:
    from companion.web.hostnames import host_name, local_names, parse_names
    from companion.web.tableca import Folder, check_permitted, describe, init, renew

    folder = Folder(args.dir)
    extra = parse_names(args.name)
    names = local_names(args.hostname, extra)
    check_permitted(folder, extra)
    if args.tls_command == "init":
        lines = init(folder, names, args.hostname or host_name(), extra)
    elif args.tls_command == "renew":
        lines = [renew(folder, names)]
    else:
        lines = describe(folder, names)
    print("\n".join(lines))
    return 0
