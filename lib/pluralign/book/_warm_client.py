"""The kernel process jupyter starts when the book runs with warm kernels (:mod:`pluralign.book.warm`).

Run as ``python -I _warm_client.py <kernelspec command...>``; imports nothing of pluralign (it must start in
milliseconds). It asks the warm server (socket path in ``$PLURALIGN_WARM_SOCKET``) to fork a kernel with this
process's working folder, environment, arguments and standard streams, forwards the signals it gets to that
kernel and exits with its exit status. If there is no server, the server refuses (an environment that differs
in a variable read at import time) or anything else fails before the fork, it replaces itself with the
kernelspec's own command: an ordinary kernel.
"""

import json
import os
import signal
import socket
import struct
import sys


def _fallback(cmd):
    os.execvp(cmd[0], cmd)


def _read_int(conn):
    buf = b""
    while len(buf) < 4:
        more = conn.recv(4 - len(buf))
        if not more:
            return None
        buf += more
    return struct.unpack("!i", buf)[0]


def main(cmd):
    path = os.environ.get("PLURALIGN_WARM_SOCKET")
    if not path or len(cmd) < 3 or cmd[1:3] != ["-m", "ipykernel_launcher"]:
        _fallback(cmd)
    try:
        import ipykernel_launcher  # noqa: F401 - only its path: sys.argv[0] of a `python -m ipykernel_launcher`

        argv0 = ipykernel_launcher.__file__
    except ImportError:
        argv0 = "ipykernel_launcher"
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
        body = json.dumps({"argv": [argv0, *cmd[3:]], "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
        msg = struct.pack("!I", len(body)) + body
        conn.sendmsg([msg[: 1 << 15]], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("3i", 0, 1, 2))])
        if len(msg) > 1 << 15:
            conn.sendall(msg[1 << 15 :])
        pid = _read_int(conn)
    except OSError:
        pid = None
    if pid is None or pid <= 0:
        _fallback(cmd)

    def forward(signum, _frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(s, forward)
    code = _read_int(conn)  # the kernel's exit status, sent by the server when it ends
    sys.exit(1 if code is None else (code if code >= 0 else 128 - code))


if __name__ == "__main__":
    main(sys.argv[1:])
