"""A warm parent for the tests' rooms servers and ``referee discord run`` processes
(issue 53): it imports what they import once, then forks each one the tests start,
instead of a new Python that imports it all again (1.7-2.5 s of CPU each, about 110
servers and 35 bots a run).

A forked server is the same code as ``python -m referee.rooms.serving.child`` (it calls
that module's :func:`main` on the socket the test bound), and a forked bot the same as
``python -m referee.cli discord run`` (the CLI's :func:`main`), each in a process of its
own: the tests kill them, time them and restart them as before. One zygote runs in each
process that starts them (each xdist worker), started at the first and ended with it.
It also runs the CLI's commands to their end for the tests (:func:`run`, as
``subprocess.run`` would): the console examples of the docs, ``referee verify`` and the
refusals of ``referee discord run``, with their exit status (the zygote reaps its
children and says how each ended). A fork ends as Python does, but without tearing down
every module the zygote imported (0.4-0.6 s of CPU a process): no ``__del__`` of
those runs, and nothing they would print as they go.

Coverage follows the forks (``patch = ["fork"]`` in pyproject.toml). The crash tests
kill forked servers too (a new process each, which has never opened the database). The
tests of the console script itself (its start, its imports, typer's messages) and of
``referee serve`` keep whole new processes: what they test is a process's start."""

from __future__ import annotations

import atexit
import importlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
from typing import Any, NoReturn

from referee.rooms.serving.child import Child

_lock = threading.Lock()
_zygote: tuple[subprocess.Popen[bytes], socket.socket] | None = None


class Forked:
    """A forked server or command, as :class:`referee.rooms.serving.child.Process`. Its
    end is seen through a pidfd (Linux 5.3+); its exit status, which its parent (the
    zygote) reaps, is asked of the zygote then: ``returncode`` is the exit code, or the
    signal that ended it, negated, as :class:`subprocess.Popen` has it."""

    def __init__(self, pid: int, pidfd: int) -> None:
        self.stdin: Any = None
        self.stdout: Any = None
        self.stderr: Any = None
        self.pid = pid
        self.pidfd = pidfd
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.wait(0) if self._ended(0) else None

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended(timeout):
            raise subprocess.TimeoutExpired(f"forked process {self.pid}", timeout or 0)
        if self.returncode is None:
            try:
                self.returncode = _status(self.pid)
            finally:
                os.close(self.pidfd)
        return self.returncode

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _ended(self, timeout: float | None) -> bool:
        if self.returncode is not None:
            return True
        return bool(select.select([self.pidfd], [], [], timeout)[0])

    def _signal(self, sig: int) -> None:
        if self.returncode is None:
            try:
                signal.pidfd_send_signal(self.pidfd, sig)
            except ProcessLookupError:
                pass  # it has ended (a zombie until its parent reaps it)


class ForkedChild(Child):
    """:class:`referee.rooms.serving.child.Child`, its server forked by the zygote."""

    def launch(self, args: list[str]) -> Forked:
        return fork(self.sock.fileno(), args)


def fork(fd: int, args: list[str]) -> Forked:
    """A server forked from this process's zygote, serving the socket ``fd`` with
    ``args`` (those of :func:`referee.rooms.serving.child.main` after the socket), in
    this process's environment and folder, and on its standard streams, as they are
    now (a test that captures the server's log has put its own file there)."""
    return _fork("server", args, dict(os.environ), [fd, 0, 1, 2])


def command(args: list[str], env: dict[str, str]) -> Forked:
    """``python -m referee.cli ARGS`` forked from this process's zygote, in the
    environment ``env`` and this process's folder; its standard output a pipe, read as
    text from ``.stdout`` (as ``Popen(..., stdout=PIPE, text=True)`` gives it)."""
    read, write = os.pipe()
    try:
        forked = _fork("cli", args, env, [0, write, 2])
    finally:
        os.close(write)
    forked.stdout = open(read, encoding="utf-8")  # noqa: SIM115 (closed by child.end)
    return forked


def run(
    args: list[str],
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``python -m referee.cli ARGS``, forked from this process's zygote, as
    ``subprocess.run(..., capture_output=True, text=True)`` runs it: in the environment
    ``env`` and the folder ``cwd`` (this process's, for each that is None), its standard
    input empty; what it printed to each stream, and its exit status."""
    env = dict(os.environ) if env is None else env
    with (
        open(os.devnull, "rb") as stdin,
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
    ):
        forked = _fork("cli", args, env, [stdin.fileno(), out.fileno(), err.fileno()], cwd=cwd)
        try:
            code = forked.wait(timeout)
        except subprocess.TimeoutExpired:
            forked.kill()
            forked.wait()
            raise
        printed = []
        for stream in (out, err):
            stream.seek(0)
            printed.append(stream.read().decode("utf-8", "replace"))
    return subprocess.CompletedProcess(["referee", *args], code, printed[0], printed[1])


def _fork(
    kind: str,
    args: list[str],
    env: dict[str, str],
    fds: list[int],
    cwd: str | os.PathLike[str] | None = None,
) -> Forked:
    request = {"kind": kind, "args": args, "env": env, "cwd": os.fspath(cwd or os.getcwd())}
    with _lock:
        control = _control()
        socket.send_fds(control, [json.dumps(request).encode()], fds)
        data, got, _, _ = socket.recv_fds(control, 64, 1)
    if not data or len(got) != 1:
        raise RuntimeError(f"the zygote did not fork the {kind}")
    return Forked(int(data), got[0])


def _status(pid: int) -> int:
    """The exit status of ``pid``, a child of this process's zygote that has ended."""
    with _lock:
        control = _control()
        control.send(json.dumps({"kind": "status", "pid": pid}).encode())
        data = control.recv(64)
    if not data or data == b"?":
        raise RuntimeError(f"the zygote did not say how {pid} ended ({data!r})")
    return int(data)


def _control() -> socket.socket:
    global _zygote
    if _zygote is None or _zygote[0].poll() is not None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        process = subprocess.Popen(
            [sys.executable, __file__, str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        theirs.close()
        if _zygote is None:
            atexit.register(_stop)
        else:
            _zygote[1].close()  # an earlier zygote's, which has ended
        _zygote = (process, ours)
    return _zygote[1]


def _stop() -> None:
    """Closing its socket ends the zygote (and saves its coverage)."""
    if _zygote is not None:
        process, control = _zygote
        control.close()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


# ---------------------------------------------------------------- the zygote itself


def _main(fd: int) -> None:
    from referee.rooms.serving import child

    # every server's and bot's imports, made once here
    for name in ("referee.cli", "referee.cli.discord", "referee.rooms.serving.discord_run"):
        importlib.import_module(name)
    # and what a server's warm-up loads (referee.rooms.app.warm_up: the rule systems'
    # modules, which the command line loads on first use), so that no fork pays for it
    import pkgutil

    for name in ("referee.commands", "referee.systems", "referee.sheets", "referee.render"):
        package = importlib.import_module(name)
        for found in pkgutil.walk_packages(package.__path__, name + "."):
            importlib.import_module(found.name)

    mains = {"server": child.main, "cli": _cli}

    control = socket.socket(fileno=fd)
    signal.signal(signal.SIGCHLD, lambda *_: _reap())
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, 1 << 20, 4)
        except ConnectionResetError:
            return
        if not data:
            return  # the tests' process closed its end
        request: dict[str, Any] = json.loads(data)
        if request["kind"] == "status":
            try:
                control.send(str(_ended_status(request["pid"])).encode())
            except ChildProcessError:  # not a child of this zygote, or asked before
                control.send(b"?")
            continue
        # No SIGCHLD between the fork and the pidfd: a child that ended at once would
        # be reaped, and its pid perhaps reused, before the pidfd names it.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
        assert threading.active_count() == 1, "the zygote must fork with one thread"
        pid = os.fork()
        if pid == 0:
            control.close()
            _serve(mains[request["kind"]], request, fds)
        for received in fds:
            os.close(received)
        pidfd = os.pidfd_open(pid)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        socket.send_fds(control, [str(pid).encode()], [pidfd])
        os.close(pidfd)


def _cli(args: list[str]) -> None:
    from referee.cli import main

    sys.argv = ["referee", *args]
    main()


def _serve(main: Any, request: dict[str, Any], fds: list[int]) -> NoReturn:
    """The forked process: the tests' environment, folder and standard streams, then
    its main. ``fds``: a server's socket, then stdin, stdout and stderr."""
    if request["kind"] == "server":
        fd, *streams = fds
        args = [str(fd), *request["args"]]
    else:
        streams, args = fds, request["args"]
    for number, stream in enumerate(streams):
        os.dup2(stream, number)
        os.close(stream)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    try:
        main(args)
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc)
    except BaseException:
        traceback.print_exc()
        code = 1
    # As Python ends: its threads' shut-down (idle executors woken, every non-daemon
    # thread joined), then the exit handlers (coverage's among them) and the streams
    # flushed; but not the tear-down of every module and object the zygote imported,
    # 0.4-0.6 s of CPU a process, longer than most commands take.
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _exit_code(exc: SystemExit) -> int:
    """The exit status that ``exc`` gives a process (its message printed, if it has one)."""
    if exc.code is None or isinstance(exc.code, int):
        return exc.code or 0
    print(exc.code, file=sys.stderr)
    return 1


_ended: dict[int, int] = {}
"""The zygote's children that have ended and been reaped: pid -> exit status (as
:attr:`subprocess.Popen.returncode` gives it), until a test asks for it."""


def _reap() -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _ended[pid] = os.waitstatus_to_exitcode(status)


def _ended_status(pid: int) -> int:
    """The exit status of the child ``pid``, which has ended (its pidfd said so): reaped
    already, or reaped now."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    try:
        if pid not in _ended:
            _, status = os.waitpid(pid, 0)
            _ended[pid] = os.waitstatus_to_exitcode(status)
        return _ended.pop(pid)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})


if __name__ == "__main__":
    _main(int(sys.argv[1]))
