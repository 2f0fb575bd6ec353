"""`python -m toolkit VERB`: the front door without the console script."""

import sys

from toolkit.door import main

sys.exit(main())
