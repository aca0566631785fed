"""Entry script of the standalone build (PyInstaller runs this as `karuta`)."""
import sys

from trainer.cli import main

if __name__ == "__main__":
    sys.exit(main())
