"""A warm parent for reference children: `python -I zygote.py` imports torch once, then forks one
child per request, so a reference run pays for its own work and not for `import torch` (a second
or more of every child's start).

Like `child.py`, this file imports nothing from ascendcraft_lab (isolated mode): the fork is the
same isolated Python a cold `python -I child.py jobs.json` is, with torch and numpy already
imported and nothing of the reference's run yet. The protocol is lines of JSON on stdin/stdout:

  zygote -> {"ready": true}                  once torch is imported (or {"error": ...} and exit)
  parent -> {"jobs": PATH, "cwd": DIR, "stdout": FILE, "stderr": FILE, "env": {...}}
  zygote -> {"pid": N}                       the child's pid, which is also its process group
  zygote -> {"rc": CODE}                     when the child has exited (negative: killed by a signal)

One request at a time. The child starts a session of its own (the parent stops the group on a
timeout or an interrupt: SIGTERM, then SIGKILL), has stdin closed and its output in the given
files, the parent's environment as sent, and dies with the zygote, which dies with its parent
(PR_SET_PDEATHSIG). The child supervises the worker that runs the jobs (child.supervise: what the
reference starts dies with it), and the zygote is a subreaper too, which kills whatever a
request left behind before it answers the exit code.
`warm.py` is the parent's side.
"""
import importlib.util
import json
import os
import signal
import sys
import traceback


def _load_child():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
    spec = importlib.util.spec_from_file_location("ascendcraft_reference_child", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_child(child, req: dict, reply_fd: int) -> None:
    """In the forked child: become a cold child's twin, run the jobs, exit (never returns)."""
    code = 0
    try:
        os.close(reply_fd)
        os.setsid()
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
        os.dup2(os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        os.environ["ASCENDCRAFT_PARENT_PID"] = str(os.getppid())     # this child's parent is the zygote
        child._die_with_parent()
        sys.argv = [child.__file__, req["jobs"]]
        code = child.supervise(child._run_main)      # what a cold child's __main__ does
    except BaseException:  # noqa: BLE001 - reported on stderr; the parent reads the exit code
        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve() -> None:
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)          # nothing but replies on the reply pipe
    try:
        child = _load_child()
        child._die_with_parent()
        import numpy  # noqa: F401 - imported once here, for every fork
        import torch  # noqa: F401
    except BaseException as e:  # noqa: BLE001
        replies.write(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
        return
    child.become_subreaper()        # a backstop: what escapes a child killed with SIGKILL comes here
    replies.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _run_child(child, req, replies.fileno())
        replies.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        child.kill_descendants()
        replies.write(json.dumps({"rc": os.waitstatus_to_exitcode(status)}) + "\n")


if __name__ == "__main__":
    serve()
