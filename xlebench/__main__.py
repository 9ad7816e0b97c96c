"""`python -m xlebench` is the same entry point as the `xlebench` console script."""

from xlebench.cli import main

if __name__ == "__main__":
    main()
