"""Where the test suites find the tree, the build and the program (the
runner exports BUILD_DIR and TSCTUI; run alone, the defaults apply)."""
import os

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD_DIR", os.path.join(TOP, "build"))
TSCTUI = os.environ.get("TSCTUI", os.path.join(TOP, "tui", "tsctui"))
