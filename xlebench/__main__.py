"""`python -m xlebench` is the same entry point as the `xlebench` console script."""

from xlebench.commands.cli import main

if __name__ == "__main__":
    main()
