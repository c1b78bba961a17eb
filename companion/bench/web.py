"""`companion bench web`: the phone page's stream under many phones: delivery latency (commit to arrival) and loss,
with the server's memory, against a baseline in the same run: bare aiohttp streaming the same rate of tiny messages
(no Flask, no SQLite, no session), which is what the machine and the server alone cost. Then the same under attack
(50 slow requests, 100 idle streams and floods of large bodies without the token from other addresses meanwhile,
the server's peak memory against its start, and a phone fetching the page and /healthz once a second), and the
server's memory while ten phones replay a 100,000-entry log at once. The server, the phones and each crowd of
guests run in processes of their own (loadgen.py), and the machine's load average is printed beside each row: on a
shared machine the spread of the delays is its scheduling as much as the server's work."""

from __future__ import annotations

import argparse
import os

HELP = "SSE delivery latency and loss for many phones, normal and under attack, and memory during replays"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clients", type=int, default=20, help="phones reading the stream (default 20)")
    parser.add_argument("--seconds", type=float, default=300, help="how long to announce (default 300)")
    parser.add_argument("--rate", type=float, default=20, help="announcements a second (default 20)")
    parser.add_argument("--replay-entries", type=int, default=100_000, help="the replayed log's length (100000)")
    parser.add_argument("--replays", type=int, default=10, help="phones replaying it at once (default 10)")


def run(args: argparse.Namespace) -> int:
    from companion.bench.stats import summary
    from companion.errors import UserError
    from companion.web.loadgen import Attack, run_load, run_replay

    if args.clients < 1 or args.seconds <= 0 or args.rate <= 0:
        raise UserError("bench web: --clients, --seconds and --rate must be positive")
    print(
        f"{args.clients} phones on /events for {args.seconds:g} s at {args.rate:g} announcements a second, "
        "on 127.0.0.1; the server, the phones and each crowd of guests in processes of their own"
    )
    failed = 0
    rows = (
        ("bare", None, "baseline: bare aiohttp, tiny messages"),
        ("companion", None, "companion: random legal actions committed, Flask app, hub"),
        (
            "companion",
            Attack(),
            "companion under attack: 50 slow requests, 100 idle streams, 32 stills of 24 MB "
            "and 12 boards of 4 MB without the token, again and again, meanwhile",
        ),
    )
    for mode, attack, title in rows:
        load = os.getloadavg()[0]
        result = run_load(mode, args.clients, args.seconds, args.rate, attack)
        memory = result.rss_kb[len(result.rss_kb) // 5 :] or result.rss_kb  # after the first fifth: warmed up
        print(f"{title}:")
        print(f"  announced     {len(result.produced)} ({result.rate:.1f}/s)")
        if mode == "companion":
            print(f"  commit        {summary(result.commits, 1e3, 'ms')} (a move checked and written to disk)")
        print(f"  delivery      {summary(result.delays, 1e3, 'ms')} (from the commit to the phone)")
        if mode == "companion":
            print(f"  state after   {summary(result.states, 1e3, 'ms')} (from the commit to the state after it)")
            print(f"  move to phone {summary(result.totals, 1e3, 'ms')} (commit and delivery)")
        print(
            f"  machine load  {load:.2f} before, {os.getloadavg()[0]:.2f} after (1-minute load average, "
            f"{os.cpu_count()} cores)"
        )
        print(f"  server CPU    {100 * result.cpu_seconds / result.seconds:.0f} % of a core while announcing")
        print(
            f"  lost          {result.lost} of {len(result.produced) * args.clients} deliveries, "
            f"{result.duplicated} duplicated"
        )
        if memory:
            print(
                f"  server RSS    {memory[0] / 1024:.1f} MB after warm-up, {memory[-1] / 1024:.1f} MB at the end "
                f"({(memory[-1] - memory[0]) / 1024:+.1f} MB)"
            )
        print(
            f"  server peak   {result.peak_kb / 1024:.1f} MB, {(result.peak_kb - result.start_kb) / 1024:+.1f} MB "
            f"over its {result.start_kb / 1024:.1f} MB at the start (the budget: +200 MB)"
        )
        for path, times in result.looks.items():
            print(
                f"  GET {path:<10}{summary(times, 1e3, 'ms')} (a phone on its own address, once a second; the "
                "goal: within 1 s)"
            )
        if result.look_errors:
            print(f"  look errors   {len(result.look_errors)}: {result.look_errors[0]}")
        errors = [p.error for p in result.phones if p.error]
        if errors:
            print(f"  phone errors  {len(errors)}: {errors[0]}")
        failed += result.lost + result.duplicated + len(errors) + len(result.look_errors)
        failed += sum(seconds >= 1.0 for times in result.looks.values() for seconds in times)
    replay = run_replay(args.replay_entries, args.replays)
    print(f"replay: {args.replays} phones replaying a {args.replay_entries}-entry log at once (Last-Event-ID 0)")
    print(
        f"  server RSS    {replay.before_kb / 1024:.1f} MB before, {replay.peak_kb / 1024:.1f} MB at most during "
        f"({(replay.peak_kb - replay.before_kb) / 1024:+.1f} MB), {replay.after_kb / 1024:.1f} MB after"
    )
    print(f"  replays       {summary(replay.seconds, 1, 's')}; entries received: {sorted(set(replay.received))}")
    failed += sum(count != replay.expected for count in replay.received)
    return 1 if failed else 0
