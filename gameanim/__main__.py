"""`python -m gameanim ...`: the same as the `gameanim` command."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
