#!/usr/bin/env python3
"""What a GUI launches: the Zerosum UCI engine on stdin/stdout (`uci_main.py bench` for speed)."""

import sys

from engine.uci import main

if __name__ == "__main__":
    sys.exit(main())
