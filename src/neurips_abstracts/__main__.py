"""`python -m neurips_abstracts COMMAND`: the same commands as `neurips-abstracts`."""

from .cli import main

if __name__ == "__main__":
    main(prog_name="python -m neurips_abstracts")
