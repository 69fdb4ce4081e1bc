"""``python -m jaxtheory``: the same as the ``jaxtheory`` command."""

import sys

from jaxtheory.cli import main

sys.exit(main())
