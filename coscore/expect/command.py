"""``coscore expect SUITE [--json]``: check a rule test suite.

Exit status: 0 when every expectation holds, 1 when any fails, 2 when the
suite itself is malformed (the message names the file, line and key).
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import SuiteError
from .render import render
from .runner import run as run_suite


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``SUITE`` and ``--json`` to the ``expect`` subcommand's parser."""
    parser.description = "Check a rule test suite: every rule on every marked answer, against expectations.yaml."
    parser.add_argument("suite", metavar="SUITE", help="suite folder (suite.yaml, expectations.yaml, rules/, data/)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    """Run the suite named by ``args.suite``; print the table (or JSON); return the exit status."""
    try:
        report = run_suite(args.suite)
    except SuiteError as exc:
        print(f"coscore expect: malformed suite {args.suite}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(report.to_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(render(report))
    return 0 if report.ok else 1


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point (``python -m coscore.expect.command``)."""
    parser = argparse.ArgumentParser(prog="coscore expect")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
