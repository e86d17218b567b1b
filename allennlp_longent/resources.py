"""Files shipped beside the code: training configs, the README's example inputs, the demo worlds.

In a checkout they are in the repository; ``pip install .`` puts them under
``<prefix>/share/allennlp-longent`` (``setup.py``'s ``data_files``).
"""

import sys
from pathlib import Path

SHARE = "share/allennlp-longent"


def resource(relative: str) -> Path:
    """``training_configs/zeshel/smoke_minilm.jsonnet``, ``fixtures/examples``, ... as a path."""
    for root in (Path(__file__).resolve().parents[1], Path(sys.prefix) / SHARE):
        if (root / relative).exists():
            return root / relative
    raise FileNotFoundError(
        f"{relative} is neither in a repository checkout nor in {Path(sys.prefix) / SHARE}"
    )


if __name__ == "__main__":  # python -m allennlp_longent.resources training_configs
    print(resource(sys.argv[1] if len(sys.argv) > 1 else "."))
