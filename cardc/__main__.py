import sys

from cardc.cli import main

sys.exit(main())
