"""The ``longent`` command line: one sub-command per module listed in ``COMMAND_MODULES``.

Each module defines ``register(subparsers) -> None``, which adds its parser and sets ``func`` to a
callable taking the parsed ``argparse.Namespace``.
"""

import argparse
import importlib
import logging
import sys
from typing import List, Optional

COMMAND_MODULES = [
    "allennlp_longent.commands.extend_positions",
    "allennlp_longent.commands.bm25_candidates",
    "allennlp_longent.commands.kb",
    "allennlp_longent.commands.link_text",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="longent",
        description="allennlp-longent tools: position extension, BM25 candidates, knowledge "
        "bases and linking text.",
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Optional[List[str]] = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    if not hasattr(args, "func"):
        build_parser().print_help()
        sys.exit(2)
    args.func(args)


if __name__ == "__main__":
    main()
