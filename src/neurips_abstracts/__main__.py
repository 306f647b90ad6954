"""`python -m neurips_abstracts COMMAND`: the same commands as `neurips-abstracts`."""

import sys

try:  # Ctrl-C while the imports run: the command had not started; no traceback
    from .cli import main
except KeyboardInterrupt:
    sys.exit(130)

if __name__ == "__main__":
    main(prog_name="python -m neurips_abstracts")
