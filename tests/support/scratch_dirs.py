"""Scratch directories for the test scripts, removed when the script exits.

    sys.path.insert(0, str(ROOT / "tests" / "support"))
    import scratch_dirs
    d = scratch_dirs.make("dfx-deps-test-")   # a fresh directory under $TMPDIR

Every directory made here goes when the script exits, passed or failed: some
hold captures of hundreds of MB, and left behind they filled /tmp run after
run. DFX_KEEP_TEST_DIRS=1 keeps them and prints their paths, to look into a
failure.
"""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

_made = []


def make(prefix):
    """A new empty directory, removed at exit unless DFX_KEEP_TEST_DIRS is set."""
    d = Path(tempfile.mkdtemp(prefix=prefix))
    _made.append(d)
    return d


def _remove_all():
    if os.environ.get("DFX_KEEP_TEST_DIRS"):
        print("scratch directories kept: " + " ".join(str(d) for d in _made))
        return
    for d in _made:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_remove_all)
