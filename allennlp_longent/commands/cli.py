"""The ``longent`` command line: one sub-command per module listed in ``COMMAND_MODULES``.

Each module defines ``register(subparsers) -> None``, which adds its parser and sets ``func`` to a
callable taking the parsed ``argparse.Namespace``. Command modules import torch, AllenNLP and
spaCy inside ``func`` only, so ``longent --help`` and parsing stay fast.
"""

import argparse
import importlib
import logging
import os
import sys
from typing import List, Optional

COMMAND_MODULES = [
    "allennlp_longent.commands.extend_positions",
    "allennlp_longent.commands.bm25_candidates",
    "allennlp_longent.commands.kb",
    "allennlp_longent.commands.link_text",
    "allennlp_longent.commands.predict",
    "allennlp_longent.commands.freetext",
    "allennlp_longent.commands.end_to_end",
    "allennlp_longent.commands.calibrate",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="longent",
        description="allennlp-longent tools: position extension, BM25 candidates, knowledge "
        "bases and linking text.",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log INFO messages (default: warnings only)"
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Optional[List[str]] = None) -> None:
    args = build_parser().parse_args(argv)
    level = logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    if not args.verbose:  # transformers' weight reports; the plugin reports what matters
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    if not hasattr(args, "func"):
        build_parser().print_help()
        sys.exit(2)
    from allennlp_longent.commands.safe_io import terminate_cleanly

    terminate_cleanly()
    try:
        args.func(args)
    except ModuleNotFoundError as error:
        if error.name != "allennlp":
            raise
        from allennlp_longent import require_allennlp

        require_allennlp()  # raises the error that prints the install command


if __name__ == "__main__":
    main()
