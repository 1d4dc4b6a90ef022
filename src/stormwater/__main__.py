import sys

from stormwater.cli import main

sys.exit(main())
