"""``coscore expect SUITE [--json]``: check a rule test suite (every rule on every marked
answer, against ``expectations.yaml``).

Exit status: 0 when every expectation holds, 1 when any fails, 2 when the suite itself is
malformed (the message names the file, line and key).
"""
from __future__ import annotations

import argparse
import json
import sys

from ..diagnostics import shorten
from ..expect.errors import SuiteError
from ..expect.render import render
from ..expect.runner import run as run_suite
from .errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE

DESCRIPTION = "Check a rule test suite: every rule on every marked answer, against expectations.yaml."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``SUITE`` and ``--json`` to the ``expect`` subcommand's parser."""
    parser.add_argument("suite", metavar="SUITE", help="suite folder (suite.yaml, expectations.yaml, rules/, data/)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    """Run the suite named by ``args.suite``; print the table (or JSON); return the exit status."""
    try:
        report = run_suite(args.suite)
    except SuiteError as exc:
        print(shorten(f"coscore expect: malformed suite {args.suite}: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        json.dump(report.to_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(render(report))
    return EXIT_OK if report.ok else EXIT_FAILED
