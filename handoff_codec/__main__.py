"""``python -m handoff_codec``: the command line."""

import sys

from .cli import main

sys.exit(main())
