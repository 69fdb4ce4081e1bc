"""``python -m jaxtheory``: the same as the ``jaxtheory`` command."""

import sys

from jaxtheory.cli import main

if __name__ == "__main__":
    sys.exit(main())
