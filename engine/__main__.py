"""``python -m engine``: the UCI engine, as the ``zerosum`` command (``bench`` for speed)."""

import sys

from engine.uci import main

sys.exit(main())
