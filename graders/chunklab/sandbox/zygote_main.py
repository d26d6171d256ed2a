"""The clean parent of every worker: a fresh interpreter that forks one worker per request.

It runs as `python -I -S -B`, standard library only, and never imports
chunklab, pytest or any grader code, so a forked worker holds none of it in
memory. On Linux it first enters new user, mount, network, IPC, UTS and
cgroup namespaces and moves into a minimal root that shows only what Python
needs (read-only; the allow-list of `allow_list_main.py`), so workers see no
network and none of the grader's files. Each worker then gets its own PID and IPC
namespaces, `/proc`, empty `/work` and `/tmp`, limits, and no capabilities;
ending it ends every process it started. Where namespaces are missing, a
worker is a session of its own with the same limits, its own user id when
the grader is root, and Landlock where Linux has it (`confinement_main.py`).
Everywhere, it starts with a fresh session keyring and may not use keyrings.

Its source, the worker's, the confinement's and the allow-list's, and a JSON
configuration come on stdin, so `/proc/*/cmdline` shows a worker none of the
grader's paths.
Protocol on a Unix socket (its descriptor is in the configuration): each
request carries three descriptors (requests in, answers out, printed output
out) and is answered with the worker's pid as the grader can signal it.
"""

import ctypes
import fcntl
import gc
import json
import os
import resource
import signal
import socket
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_SET_PDEATHSIG = 1
# The namespaces each worker has of its own: no System V memory, semaphore or queue
# outlives it, and no socket (an abstract Unix one included) joins two workers alive at
# once; the first child in a new PID namespace is its PID 1.
WORKER_NAMESPACES = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET

libc = ctypes.CDLL(None, use_errno=True)
# clone(2) makes a worker that is at once PID 1 of a new PID namespace, with no
# process in between. Its number differs by machine; elsewhere a middle process
# does the same job with unshare(2) and a second fork.
CLONE_SYSCALL = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine)


def check(result, what):
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source, target, fstype, flags, data=None):
    check(
        libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def write_file(path, text):
    with open(path, "w") as handle:
        handle.write(text)


# Inside the namespace, workers run as this id; outside, it is this unprivileged id.
WORKER_ID = 1000
NOBODY_ID = 65534
# Without namespaces, a grader running as root gives each worker a user and group id of
# its own, this plus the worker's pid: no two live workers share one, so none can signal,
# trace or pass files to another, and each has its own process count.
PROCESS_MODE_ID_BASE = 1_500_000_000


def enter_namespaces():
    """New user, mount, network, IPC, UTS and cgroup namespaces; returns the worker's id."""
    uid, gid = os.getuid(), os.getgid()
    # A cgroup namespace too: /proc/self/cgroup then names no folder of this machine.
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    flags |= CLONE_NEWCGROUP
    if uid != 0:
        check(libc.unshare(flags), "unshare")
        write_file("/proc/self/setgroups", "deny")
        write_file("/proc/self/uid_map", f"0 {uid} 1")
        write_file("/proc/self/gid_map", f"0 {gid} 1")
        return None
    # Real root is exempt from the process limit, so workers must not run as root.
    # Only a process outside the new namespace may map a second id, so a helper
    # forked before unshare writes the map.
    go_read, go_write = os.pipe()
    done_read, done_write = os.pipe()
    helper = os.fork()
    if helper == 0:
        os.read(go_read, 1)
        zygote = os.getppid()
        try:
            write_file(f"/proc/{zygote}/uid_map", f"0 0 1\n{WORKER_ID} {NOBODY_ID} 1")
            write_file(f"/proc/{zygote}/gid_map", f"0 0 1\n{WORKER_ID} {NOBODY_ID} 1")
            os.write(done_write, b"1")
        finally:
            os._exit(0)
    try:
        check(libc.unshare(flags), "unshare")
    finally:
        os.write(go_write, b"1")
    mapped = os.read(done_read, 1)
    os.waitpid(helper, 0)
    if mapped != b"1":
        raise OSError(1, "cannot map the worker's user id")
    return WORKER_ID


def bind_read_only(root, path):
    inside = root + path
    if os.path.isdir(path):
        os.makedirs(inside, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(inside), exist_ok=True)
        open(inside, "a").close()
    mount(path, inside, None, MS_BIND | MS_REC)
    mount(None, inside, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_REC)


def place_link(root, path, target):
    """The symbolic link `path` of the machine, made again inside the root."""
    inside = root + path
    os.makedirs(os.path.dirname(inside), exist_ok=True)
    if not os.path.lexists(inside):
        os.symlink(target, inside)


def build_minimal_root(root, allowed):
    """A root holding only what `allowed` lists (`allow_list_main.py`), read-only."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    folders = allowed["folders"]
    for path in [*folders, *allowed["files"]]:
        bind_read_only(root, path)
    for path in allowed["hidden"]:
        mount("tmpfs", root + path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k")
    for path, target in allowed["links"]:
        if not any(path.startswith(folder + "/") for folder in folders):
            place_link(root, path, target)
    for device in ("null", "zero", "urandom", "random"):
        bind_read_only(root, "/dev/" + device)
    for folder in ("proc", "work", "tmp"):
        os.makedirs(root + "/" + folder, exist_ok=True)
    mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chroot(root)
    os.chdir("/")


def drop_capabilities():
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    for capability in range(64):
        libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        ]

    header = Header(0x20080522, 0)
    data = (Data * 2)()
    check(libc.capset(ctypes.byref(header), ctypes.byref(data)), "capset")


def apply_limits(limits):
    mb = 1024 * 1024
    pairs = [
        (resource.RLIMIT_AS, limits["memory_mb"] * mb),
        (resource.RLIMIT_CPU, limits["cpu_seconds"]),
        (resource.RLIMIT_FSIZE, limits["file_size_mb"] * mb),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NOFILE, 64),
    ]
    if hasattr(resource, "RLIMIT_NPROC"):
        pairs.append((resource.RLIMIT_NPROC, limits["processes"]))
    for which, value in pairs:
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass  # a platform without this limit still gets the others


def end_user_of(worker_pid):
    """End every process left running under the id a worker had (root, no namespaces).

    A process that left the worker's process group keeps the worker's id;
    `kill(-1)` sent with that id reaches all such processes and nothing else.
    """
    if os.getuid() != 0:
        return
    helper = os.fork()
    if helper == 0:
        try:
            worker_id = PROCESS_MODE_ID_BASE + int(worker_pid)
            os.setresgid(worker_id, worker_id, worker_id)
            os.setresuid(worker_id, worker_id, worker_id)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    try:
        os.waitpid(helper, 0)  # with SIGCHLD ignored, this returns once it has ended
    except ChildProcessError:
        pass


def library_handles():
    """The standard library's folders, opened while still root.

    A worker given an id of its own may not be able to reach the interpreter's
    folder (a Python installed under /root); through its own open handles
    (`/proc/self/fd/N`) it reads the standard library and nothing beside it.
    The handles sit high until the worker's descriptors are in place.
    """
    handles = []
    for entry in sys.path:
        try:
            opened = os.open(entry, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue  # the zip archive that most installs do not have
        handles.append((entry, fcntl.fcntl(opened, fcntl.F_DUPFD, 200)))
        os.close(opened)
    return handles


def search_through_handles(library):
    """Imports, those of packages already loaded included, go through the handles at 5..."""
    places = {entry: f"/proc/self/fd/{n}" for n, (entry, _) in enumerate(library, start=5)}

    def moved(path):
        entry = max((e for e in places if path == e or path.startswith(e + "/")), key=len)
        return places[entry] + path[len(entry) :]

    sys.path[:] = list(places.values())
    sys.path_importer_cache.clear()
    for module in list(sys.modules.values()):
        locations = getattr(module, "__path__", None)
        if isinstance(locations, list):
            locations[:] = [
                moved(p) if any(p.startswith(e) for e in places) else p for p in locations
            ]


def become_own_user(work_dir):
    """Without namespaces: a root grader's worker takes an id of its own and its folder."""
    if os.getuid() != 0:
        os.chdir(work_dir)  # the grader made this folder for this worker alone
        return
    worker_id = PROCESS_MODE_ID_BASE + os.getpid()
    os.chown(work_dir, worker_id, worker_id)
    os.chmod(work_dir, 0o700)
    os.chdir(work_dir)
    os.setgroups([])
    os.setresgid(worker_id, worker_id, worker_id)
    os.setresuid(worker_id, worker_id, worker_id)  # also clears every capability
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")


def own_disk(work_dir, size_mb):
    """Without namespaces, as root: the worker's folder is a tmpfs of its own, of --file-size-mb.

    In a mount namespace of the worker's own, the tmpfs is also mounted on
    /tmp, /var/tmp and /dev/shm, so all the worker writes there and in its
    folder is bounded together, and none of it is left on the machine when
    the worker ends. Returns the folder the worker is to work in (its own
    folder may be under /tmp, which the tmpfs then hides).
    """
    check(libc.unshare(CLONE_NEWNS), "unshare mount")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", work_dir, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size_mb}m,mode=700")
    handle = os.open(work_dir, os.O_PATH | os.O_DIRECTORY)
    folder = work_dir
    try:
        for shared in SHARED_FOLDERS:
            if os.path.isdir(shared) and not os.path.islink(shared):
                try:
                    mount(f"/proc/self/fd/{handle}", shared, None, MS_BIND)
                except OSError:
                    continue  # left as it is: Landlock, where there is one, keeps it read-only
                folder = "/tmp" if shared == "/tmp" else folder
    finally:
        os.close(handle)
    return folder


def can_mount_own_disk(folder):
    """Whether a worker without namespaces can be given a tmpfs of its own (tried in a child)."""
    probe = os.fork()
    if probe == 0:
        try:
            check(libc.unshare(CLONE_NEWNS), "unshare mount")
            mount(None, "/", None, MS_REC | MS_PRIVATE)
            mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, "size=4k")
        except OSError:
            os._exit(1)
        os._exit(0)
    return os.waitstatus_to_exitcode(os.waitpid(probe, 0)[1]) == 0


def sandbox_gaps(process_mode, confinement):
    """What workers here are not kept apart in, as the README's codes (tried in a child)."""
    gaps = ["same_user"] if process_mode and os.getuid() != 0 else []
    probe = os.fork()
    if probe == 0:
        own_ipc = not process_mode or libc.unshare(CLONE_NEWIPC) == 0
        refused = confinement["refuse_sharing_calls"](ipc_too=not own_ipc)
        os._exit((0 if own_ipc or refused else 1) | (0 if refused else 2))
    status = os.waitstatus_to_exitcode(os.waitpid(probe, 0)[1])
    if status & 1:
        gaps.append("shared_ipc")
    if status & 2:
        gaps.append("shared_keys")
    return gaps


def unconfined(landlock):
    """What Landlock cannot hold back here, for workers without namespaces."""
    gaps = []
    if landlock < 1:
        gaps.append("unconfined_files")
    if landlock < 4:
        gaps.append("unconfined_network")
    if landlock < 6 and os.getuid() != 0:
        gaps.append("unconfined_signals")
    return gaps


def become_worker(config, fds, worker, worker_id, confinement):
    """Runs in the worker: its own folders, limits and descriptors, then serve."""
    requests, answers, output = fds
    own_ipc = True
    library = []
    # The grader moves the worker into its cgroups, then sends one byte. A cgroup
    # namespace made after that is rooted at the worker's own group: /proc/self/cgroup
    # shows "/", not the grader's folders. Made while the worker may still (as root in
    # its user namespace, or as real root); elsewhere it stays as it is.
    os.read(requests, 1)
    libc.unshare(CLONE_NEWCGROUP)
    if worker_id is not False:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        # A process group of its own: kill(0) reaches the whole group of its sender,
        # PID namespaces or not, and the zygote's group holds every other worker.
        os.setsid()
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        size = f"size={config['limits']['file_size_mb']}m,mode=1777"
        mount("tmpfs", "/work", "tmpfs", MS_NOSUID | MS_NODEV, size)
        # /tmp is the same folder: all the worker writes, in both, is bounded together.
        mount("/work", "/tmp", None, MS_BIND)
        os.chdir("/work")
        if worker_id is None:
            drop_capabilities()
        else:
            os.setgroups([])
            os.setresgid(worker_id, worker_id, worker_id)
            os.setresuid(worker_id, worker_id, worker_id)  # also clears every capability
            libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    else:
        os.setsid()
        # Where root may, an IPC namespace of its own; elsewhere System V IPC is refused.
        own_ipc = libc.unshare(CLONE_NEWIPC) == 0
        if config["own_disk"]:
            try:
                config["work_dir"] = own_disk(config["work_dir"], config["limits"]["file_size_mb"])
            except OSError:
                pass  # the folder the grader made, bounded file by file (RLIMIT_FSIZE)
        if os.getuid() == 0:
            library = library_handles()
        # Confined while still able to open every path it is to be allowed.
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        confinement["confine"](config["landlock"], config["readable"], config["work_dir"])
        become_own_user(config["work_dir"])
    if worker_id is None:
        # Same id as the grader, but in a user namespace of its own: since Linux 5.3 its
        # user keyrings are that namespace's, not the grading user's.
        own_keyrings = confinement["kernel_version"]() >= (5, 3)
    else:
        own_keyrings = os.getuid() != config["grader_uid"]
    confinement["isolate_keyrings"](own_keyrings)
    confinement["refuse_sharing_calls"](ipc_too=worker_id is False and not own_ipc)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    requests = os.dup2(requests, 3)
    answers = os.dup2(answers, 4)
    for number, (_, handle) in enumerate(library, start=5):
        os.dup2(handle, number)
    os.closerange(5 + len(library), 65536)
    if library:
        search_through_handles(library)
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
        signal.signal(number, signal.SIG_DFL)
    os.environ.clear()
    home = "/work" if worker_id is not False else config["work_dir"]
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8"})
    apply_limits(config["limits"])
    sys.argv = ["submission"]
    try:
        worker["serve"](os.fdopen(requests, "r"), os.fdopen(answers, "w"))
    finally:
        os._exit(0)


def spawn(config, fds, worker, worker_id, confinement):
    """Fork a worker; in namespaces, it is PID 1 of its own PID namespace."""
    if worker_id is False:
        pid = os.fork()
        if pid == 0:
            become_worker(config, fds, worker, worker_id, confinement)
        return pid
    if CLONE_SYSCALL is not None and config["direct_clone"]:
        # Like fork (this process runs no other thread), in the worker's own namespaces.
        flags = WORKER_NAMESPACES | signal.SIGCHLD
        pid = libc.syscall(CLONE_SYSCALL, flags, 0, 0, 0, 0)
        if pid == 0:
            become_worker(config, fds, worker, worker_id, confinement)
        check(min(pid, 0), "clone")
        return pid
    report_read, report_write = os.pipe()
    middle = os.fork()
    if middle == 0:
        # The new PID namespace applies to the next child, which becomes its PID 1 (in
        # IPC and network namespaces of its own too):
        # when it ends, the kernel ends every process left in the namespace. This
        # process stays to tie the worker's life to the zygote's.
        os.close(report_read)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        check(libc.unshare(WORKER_NAMESPACES), "unshare pid")
        pid = os.fork()
        if pid == 0:
            os.close(report_write)
            become_worker(config, fds, worker, worker_id, confinement)
        os.write(report_write, str(pid).encode())
        for fd in fds:
            os.close(fd)
        os.waitpid(pid, 0)
        os._exit(0)
    os.close(report_write)
    pid = int(os.read(report_read, 32) or b"0")
    os.close(report_read)
    return pid


# Standard modules a chunking exercise often imports, loaded once here rather than in
# every worker (each worker is a fork of this process).
PRELOADED = (
    "bisect",
    "collections",
    "copy",
    "dataclasses",
    "functools",
    "itertools",
    "math",
    "re",
    "string",
    "textwrap",
    "typing",
    "unicodedata",
)
# The seed of the random numbers every worker starts from.
RANDOM_SEED = 0


def main():
    # The worker's code is run once here, so every forked worker starts with it
    # (and the modules it imports) already in memory.
    worker = {"__name__": "chunklab_worker"}
    exec(compile(sys.argv[1], "chunklab_worker", "exec"), worker)
    for name in PRELOADED:
        __import__(name)
    # Every worker starts from the same random numbers, as from the same string hashing:
    # code that draws them (a notebook's demo, a shuffle) runs alike in every worker of a
    # submission and in every run, so a worker started again defines what the first did.
    random = __import__("random")
    random.seed(RANDOM_SEED)
    config = json.loads(sys.argv[2])
    config["grader_uid"] = os.getuid()
    # The folders of the minimal root are made for workers to pass through, whatever the
    # grader's own umask (077 where it keeps its files to itself).
    os.umask(0o022)
    # The kit's fixed texts, read now (before the namespaces hide the files): every
    # worker holds them from its start, and a request only names one.
    for name, path in config.get("texts", {}).items():
        with open(path, encoding="utf-8") as text:
            worker["KIT_TEXTS"][name] = text.read()
    confinement = {"__name__": "chunklab_confinement"}
    exec(compile(sys.argv[3], "chunklab_confinement", "exec"), confinement)
    allow_list = {"__name__": "chunklab_allow_list"}
    exec(compile(sys.argv[4], "chunklab_allow_list", "exec"), allow_list)
    sys.argv[1:] = []
    control = socket.socket(fileno=config["control_fd"])
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    # False: no namespaces; None: namespaces, workers keep the zygote's id; an int:
    # namespaces, workers switch to that id.
    worker_id = False
    problem = ""
    # Worked out once, before leaving the machine's file system: what a worker may read.
    allowed = allow_list["allow_list"]()
    if config["namespaces"]:
        try:
            worker_id = enter_namespaces()
            build_minimal_root(config["root_dir"], allowed)
        except OSError as error:
            worker_id, problem = False, str(error)
    if worker_id is False:
        visible = [*allowed["folders"], *allowed["files"]]
        hidden = {os.path.realpath(p) for p in allowed["hidden"]}
        config["landlock"] = confinement["version"]() if config["use_landlock"] else 0
        config["readable"] = confinement["readable_paths"](visible, hidden)
    gaps = sandbox_gaps(worker_id is False, confinement)
    if worker_id is False:
        gaps += unconfined(config["landlock"])
        config["own_disk"] = config["own_disk"] and can_mount_own_disk(config["root_dir"])
        gaps += [] if config["own_disk"] else ["disk_per_file"]
    # Workers are reaped by the kernel; the grader learns of their end from their pipes.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    # What is in memory now is shared with every worker: kept out of the garbage
    # collector's sight, a worker does not copy those pages by merely walking them.
    gc.freeze()
    hello = {
        "isolation": "process" if worker_id is False else "namespaces",
        # Each worker has an id of its own, whose leftover processes can be ended.
        "own_ids": worker_id is False and os.getuid() == 0,
        "problem": problem,
        "gaps": gaps,
    }
    control.sendall((json.dumps(hello) + "\n").encode())
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 1024, 3)
        except OSError:
            break
        if not message:
            break
        request = json.loads(message)
        if "end_user_of" in request:
            end_user_of(request["end_user_of"])
            control.sendall(b"0\n")
            continue
        config["work_dir"] = request["work_dir"]
        try:
            pid = spawn(config, fds, worker, worker_id, confinement)
        except OSError as error:
            pid = -(error.errno or 1)
        for fd in fds:
            os.close(fd)
        control.sendall(f"{pid}\n".encode())


main()
