"""``python -m coscore``: the ``coscore`` command."""
import sys

if __name__ == "__main__":
    try:
        from .cli import main
    except KeyboardInterrupt:  # Ctrl-C while the command starts: one line, no traceback
        print("coscore: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(main())
