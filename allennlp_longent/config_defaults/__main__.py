"""``python -m allennlp_longent.config_defaults [NAME ...]``: the value each variable has here
(the environment's, else the default); without a name, every default."""

import os
import sys

from allennlp_longent.config_defaults import config_defaults

defaults = config_defaults()
for name in sys.argv[1:] or sorted(defaults):
    if name not in defaults:
        raise SystemExit(f"unknown variable {name}; known: {', '.join(sorted(defaults))}")
    print(os.environ.get(name, defaults[name]) if sys.argv[1:] else f"{name}={defaults[name]}")
