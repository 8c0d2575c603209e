"""A headless Chromium driven through the DevTools protocol over --remote-debugging-pipe.

No package beyond the standard library: the browser reads commands from its fd 3 and writes replies and
events to its fd 4, one JSON message each, ended by a NUL byte.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time


def find_chromium() -> str | None:
    """The browser: $CHROMIUM if set (None if that is not a program), else chromium (Debian's package) or
    chromium-browser on PATH."""
    if os.environ.get("CHROMIUM"):
        return shutil.which(os.environ["CHROMIUM"])
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    def __init__(self, binary: str, width: int = 1500, height: int = 1000, timeout_s: float = 20.0):
        self.timeout_s = timeout_s
        self.events: list[dict] = []
        self._next_id = 0
        self._buffer = b""
        self._profile = tempfile.mkdtemp(prefix="iosim-chromium-")
        # Our ends and theirs, all numbered above 4 so that the dup2 to 3 and 4 in the child is safe.
        to_child_r, to_child_w = _high_pipe()
        from_child_r, from_child_w = _high_pipe()

        def child_fds() -> None:
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--remote-debugging-pipe", f"--user-data-dir={self._profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, pass_fds=(3, 4))
        os.close(to_child_r)
        os.close(from_child_w)
        self._w, self._r = to_child_w, from_child_r
        self.session: str | None = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True,
                                 session=False)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def call(self, method: str, session: bool = True, **params) -> dict:
        """Sends one command and waits for its reply; events that arrive meanwhile go to self.events."""
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def evaluate(self, expression: str):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"page script failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression: str, what: str) -> None:
        deadline = time.monotonic() + self.timeout_s
        while not self.evaluate(expression):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page did not get {what} within {self.timeout_s} s")
            time.sleep(0.05)

    KEYS = {"ArrowRight": 39, "ArrowLeft": 37, "PageDown": 34, "PageUp": 33, "Home": 36, "End": 35, " ": 32}

    def press(self, key: str, times: int = 1, shift: bool = False) -> None:
        code = self.KEYS[key]
        for _ in range(times):
            for kind in ("rawKeyDown", "keyUp"):
                self.call("Input.dispatchKeyEvent", type=kind, key=key, code="Space" if key == " " else key,
                          windowsVirtualKeyCode=code, nativeVirtualKeyCode=code, modifiers=8 if shift else 0)

    def screenshot(self, path: str) -> None:
        import base64
        png = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))

    def close(self) -> None:
        try:
            self.call("Browser.close", session=False)
        except (RuntimeError, OSError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        shutil.rmtree(self._profile, ignore_errors=True)

    def _read(self, deadline: float) -> dict:
        import select
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._r], [], [], left)[0]:
                raise TimeoutError(f"chromium did not answer within {self.timeout_s} s")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError(f"chromium closed the pipe (exit code {self.proc.poll()})")
            self._buffer += chunk
        msg, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(msg)


def _high_pipe() -> tuple[int, int]:
    """A pipe (read end, write end), both numbered 10 or more and closed on exec."""
    r, w = os.pipe()
    ends = (fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, 10), fcntl.fcntl(w, fcntl.F_DUPFD_CLOEXEC, 10))
    os.close(r)
    os.close(w)
    return ends
