"""Loads a page written by dfx in headless Chromium with a probe script and
returns the probe's verdict. Standard library only; used by the browser tests
of convert_deps, convert_scope_stats and convert_report (report and compare):

    with chromium_page.session(TEST, "dfx-report-browser-") as (browser, tmp):
        ... write a page into tmp with dfx ...
        verdict = browser.probe(page, probe_js, expectations)
        problems = chromium_page.problems(verdict)   # plus the test's own checks
        if problems: chromium_page.fail(TEST, ...)
    # prints "ok [TEST]" when the block ends normally

How: the page is copied into a fresh temporary directory with three scripts
injected: the prelude (tests/browser/probe_prelude.js: records every error,
failed resource and console.error from the first byte on) at the top of
<head>, then the expectations (window.dfxExpect) and the suite's probe before
</body>. The probe writes its verdict as JSON into a hidden pre element (id
dfx-probe-verdict). Chromium runs headless with --remote-debugging-pipe: a
minimal DevTools-protocol client (NUL-separated JSON on fds 3 and 4) opens
each page in a tab of its own with a 1280 x 800 viewport and reads the
verdict until the probe says it is done, in real time. (--dump-dom under a virtual time budget is simpler
but races the page's requestAnimationFrame: virtual time can run out before
the first frame, about one load in ten here.)

Chromium is $DFX_CHROMIUM if set, else /usr/bin/chromium, else `chromium` on
PATH. Without it the test exits 77, meson's skip code.
"""

import contextlib
import fcntl
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SKIP = 77

# The flags this machine needs: no sandbox (root, containers), no GPU, and
# nothing that talks to the network (closed here, and a test must not wait on it).
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--no-default-browser-check", "--mute-audio", "--hide-scrollbars",
    "--remote-debugging-pipe",
]
VIEWPORT = (1280, 800)
PROBE_TIMEOUT_S = 60  # from navigation to the probe's verdict


def find_chromium():
    override = os.environ.get("DFX_CHROMIUM")
    if override:
        return override if Path(override).is_file() or shutil.which(override) else None
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


def chromium_or_skip(test):
    exe = find_chromium()
    if exe is None:
        why = f"$DFX_CHROMIUM={os.environ['DFX_CHROMIUM']} not found" if os.environ.get("DFX_CHROMIUM") else \
            "no Chromium (/usr/bin/chromium, or chromium on PATH)"
        print(f"SKIP [{test}]: {why}; install it with: apt-get install --no-install-recommends chromium")
        sys.exit(SKIP)
    return exe


class ProbeError(Exception):
    pass


def fail(test, msg):
    print(f"FAIL [{test}]: {msg}")
    sys.exit(1)


@contextlib.contextmanager
def session(test, prefix):
    """What every page test's main() shares: it skips (exit 77) without Chromium;
    else one browser and one scratch directory serve all of the test's pages, a
    ProbeError that escapes the block is the test's one FAIL line, and a block
    that ends normally prints `ok [test]`."""
    exe = chromium_or_skip(test)
    try:
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp, Chromium(exe) as browser:
            yield browser, Path(tmp)
    except ProbeError as e:
        fail(test, str(e))
    print(f"ok [{test}]")


def _inject(page, expect, probe_js):
    prelude = (HERE / "probe_prelude.js").read_text()
    head = re.search(r"<head(\s[^>]*)?>", page)
    body_end = page.rfind("</body>")
    if not head or body_end < 0:
        raise ProbeError("the page has no <head> or no </body>")
    # "</" escaped as "<\/" (the same string in JS), so the data cannot close the <script>.
    data = json.dumps(expect).replace("</", "<\\/")
    tail = (f"<script>\nwindow.dfxExpect = {data};\n</script>\n"
            f"<script>\n{probe_js}\n</script>\n")
    page = page[:body_end] + tail + page[body_end:]
    return page[:head.end()] + f"\n<script>\n{prelude}\n</script>\n" + page[head.end():]


class _Browser:
    """Chromium with the DevTools protocol on a pipe: we write fd 3, it writes fd 4."""

    def __init__(self, exe, profile, log):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def plumb():  # in the child: the pipe ends become fds 3 and 4
            a = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # Its own process group, so a hung browser goes down with all its children.
        try:
            self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={profile}"], stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log, preexec_fn=plumb, pass_fds=(3, 4),
                                         start_new_session=True, env={**os.environ, "HOME": str(profile)})
        except OSError as e:
            raise ProbeError(f"cannot start {exe}: {e}") from None
        finally:
            os.close(to_chrome_r)
            os.close(from_chrome_w)
        self._buf = b""
        self._next_id = 0

    def call(self, method, params=None, session=None, timeout=30):
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._to_chrome, data):]
        except OSError as e:
            raise ProbeError(f"cannot send {method} to Chromium (exit {self.proc.poll()}): {e}") from None
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._next_id:  # anything else is an event
                    if "error" in reply:
                        raise ProbeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise ProbeError(f"no answer to {method} within {timeout} s")
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise ProbeError(f"Chromium closed the pipe (exit {self.proc.poll()}) during {method}")
            self._buf += chunk

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
            self.proc.wait(timeout=10)
        except (ProbeError, OSError, subprocess.TimeoutExpired):
            pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)


READ_VERDICT = "(() => { const e = document.getElementById('dfx-probe-verdict'); return e ? e.textContent : null; })()"


class Chromium:
    """One headless Chromium (fresh profile) for a test's pages, each in a tab of its own:

        with Chromium(exe) as browser:
            verdict = browser.probe(page_path, probe_js, expect)
    """

    def __init__(self, exe):
        self._exe = exe

    def __enter__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="dfx-browser-")
        self._dir = Path(self._tmp.name)
        (self._dir / "profile").mkdir()
        self._log = open(self._dir / "chromium.log", "w")
        self._pages = 0
        try:
            self._browser = _Browser(self._exe, self._dir / "profile", self._log)
        except ProbeError:
            self._log.close()
            self._tmp.cleanup()
            raise
        return self

    def __exit__(self, *exc):
        self._browser.close()
        self._log.close()
        self._tmp.cleanup()

    def probe(self, page_path, probe_js, expect):
        """Returns the verdict once the probe is done (or the last one seen, not done, after
        PROBE_TIMEOUT_S); raises ProbeError when Chromium cannot be driven or there is no verdict."""
        self._pages += 1
        page = self._dir / f"page{self._pages}.html"
        page.write_text(_inject(Path(page_path).read_text(encoding="utf-8"), expect, probe_js), encoding="utf-8")
        try:
            return self._drive(page.as_uri())
        except ProbeError as e:
            self._log.flush()
            raise ProbeError(f"{e}; Chromium said:\n{_chromium_log(self._dir / 'chromium.log')}") from None

    def _drive(self, url):
        browser = self._browser
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        try:
            session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            browser.call("Emulation.setDeviceMetricsOverride",
                         {"width": VIEWPORT[0], "height": VIEWPORT[1], "deviceScaleFactor": 1, "mobile": False}, session)
            nav = browser.call("Page.navigate", {"url": url}, session)
            if nav.get("errorText"):
                raise ProbeError(f"navigation failed: {nav['errorText']}")
            verdict, deadline = None, time.monotonic() + PROBE_TIMEOUT_S
            while time.monotonic() < deadline:
                value = browser.call("Runtime.evaluate", {"expression": READ_VERDICT, "returnByValue": True}, session)
                text = value.get("result", {}).get("value")
                if text:
                    verdict = json.loads(text)
                    if verdict.get("done"):
                        return verdict
                time.sleep(0.05)
            if verdict is None:
                raise ProbeError(f"no probe verdict in the page after {PROBE_TIMEOUT_S} s")
            return verdict  # not done: problems() says where it stopped
        finally:
            try:
                browser.call("Target.closeTarget", {"targetId": target})
            except ProbeError:
                pass  # the error that got us here says more


def _chromium_log(path):
    # Chromium logs D-Bus noise when there is no session bus; keep the rest.
    text = Path(path).read_text(errors="replace")
    lines = [line for line in text.splitlines() if line.strip() and "dbus" not in line.lower()]
    return "\n".join(lines[-15:]) or "(nothing)"


def problems(verdict):
    """Everything wrong with a verdict, as lines; empty when the probe passed."""
    out = []
    if not verdict.get("done"):
        out.append(f"the probe did not finish (last step: {verdict.get('step')!r})")
    out += [f"JS error: {e}" for e in verdict.get("errors", [])]
    out += [f"page fetched a resource (not self-contained): {r}" for r in verdict.get("resources", [])]
    out += verdict.get("failures", [])
    return out
