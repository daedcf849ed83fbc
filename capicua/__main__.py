import sys

from capicua.cli import main

sys.exit(main())
