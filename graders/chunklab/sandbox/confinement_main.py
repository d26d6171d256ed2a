"""What a worker may reach and share: files, network and signals; keyrings and IPC.

Like `zygote_main.py`, this runs in the zygote as source text (standard
library only).

Every worker starts with a fresh session keyring, and a seccomp filter
refuses the kernel keyring calls (and System V IPC where the worker has no
IPC namespace of its own): nothing one worker leaves there reaches the next.

Where user namespaces are missing, Linux's Landlock (5.13 and later, no
privilege needed) still confines a worker: it may read what the allow-list
names (`allow_list_main.py`: the interpreter, the shared libraries it needs,
the standard library without its installed packages), read and write its
own folder, and nothing else: not the kit, the other
submissions, the output folder, the cache of drawn inputs, nor another
process's /proc. From Landlock version 4 it may open no TCP connection;
from version 6 it may signal no process outside itself.
"""

import ctypes
import os
import re

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446  # the same on x86_64 and aarch64
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
READ = EXECUTE | READ_FILE | READ_DIR
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
PR_SET_NO_NEW_PRIVS = 38
KEYCTL_GET_KEYRING_ID = 0
KEYCTL_JOIN_SESSION_KEYRING = 1
KEYCTL_SETPERM = 5
KEYCTL_CLEAR = 7
KEYCTL_GET_PERSISTENT = 22
KEY_SPEC_SESSION_KEYRING = -3
KEY_SPEC_USER_KEYRING = -4
KEY_SPEC_USER_SESSION_KEYRING = -5
KEYCTL_SYSCALL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
# For the seccomp filter: the architecture's audit id; the kernel keyring calls
# (add_key, request_key, keyctl); the System V IPC calls (shmget, semget, msgget).
SECCOMP_ARCH = {
    "x86_64": (0xC000003E, (248, 249, 250), (29, 64, 68)),
    "aarch64": (0xC00000B7, (217, 218, 219), (194, 190, 186)),
}.get(os.uname().machine)
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

libc = ctypes.CDLL(None, use_errno=True)


class RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def version():
    """Landlock's version on this machine, 0 where it is missing."""
    if os.uname().machine not in ("x86_64", "aarch64"):
        return 0
    found = libc.syscall(CREATE_RULESET, None, ctypes.c_size_t(0), CREATE_RULESET_VERSION)
    return max(found, 0)


def readable_paths(visible, hidden):
    """What to allow reading: (path, whole) pairs, with no `hidden` folder in a whole one.

    Landlock only allows; it cannot take a folder back from beneath an allowed
    one. So a folder holding a hidden one is allowed entry by entry, and
    itself only for listing (which Python's imports need): the hidden folder's
    names can be listed, none of its files read.
    """
    allowed = []
    for top in visible:
        top = os.path.realpath(top)
        if not os.path.exists(top) or top in hidden:
            continue
        if not any(path.startswith(top + "/") for path in hidden):
            allowed.append((top, True))
            continue
        with os.scandir(top) as entries:
            children = [entry.path for entry in entries]
        allowed += [(top, False), *readable_paths(children, hidden)]
    return allowed


def add_rule(ruleset, path, rights):
    try:
        handle = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = PathBeneath(rights, handle)
        libc.syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0)
    finally:
        os.close(handle)


def confine(abi, readable, own_folder):
    """Confine this process (and what it starts) for good; False where Landlock is missing."""
    if abi < 1:
        return False
    handled = (1 << 13) - 1
    handled |= (REFER if abi >= 2 else 0) | (TRUNCATE if abi >= 3 else 0)
    handled |= IOCTL_DEV if abi >= 5 else 0
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    attr = RulesetAttr(handled, net, scoped)
    ruleset = libc.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        return False
    try:
        for path, whole in readable:
            add_rule(ruleset, path, READ & handled if whole else READ_DIR)
        for device in DEVICES:
            add_rule(ruleset, device, READ_FILE | WRITE_FILE)
        add_rule(ruleset, own_folder, handled)
        return libc.syscall(RESTRICT_SELF, ruleset, 0) == 0
    finally:
        os.close(ruleset)


def kernel_version():
    numbers = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return (int(numbers[1]), int(numbers[2])) if numbers else (0, 0)


def keyctl(*args):
    return libc.syscall(KEYCTL_SYSCALL, *[ctypes.c_long(a) for a in args])


def isolate_keyrings(own_keyrings):
    """A new session keyring, and the keyrings every process of this user shares locked.

    The user, user-session and persistent keyrings belong to a user id, not a
    process: a worker could leave a key there for the next one. Cleared and
    locked (no permission for anyone), they carry nothing from one worker to
    another. They are left alone when the worker runs as the grading user.
    """
    if KEYCTL_SYSCALL is None:
        return
    keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0)
    if not own_keyrings:
        return
    shared = [keyctl(KEYCTL_GET_KEYRING_ID, spec, 1) for spec in SHARED_KEYRINGS]
    shared.append(keyctl(KEYCTL_GET_PERSISTENT, -1, KEY_SPEC_SESSION_KEYRING))
    for keyring in shared:
        if keyring > 0:
            keyctl(KEYCTL_CLEAR, keyring)
            keyctl(KEYCTL_SETPERM, keyring, 0)


SHARED_KEYRINGS = (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING)


class SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint32),
    ]


class SockProgram(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def refuse_sharing_calls(ipc_too):
    """A seccomp filter: the kernel keyring calls (and, when asked, System V IPC) fail.

    A key outlives the worker that made it until the kernel collects it, and
    the next worker runs as the same user: a key it can read by number would
    carry data over. An exercise needs no key, so no worker can make one.
    Without an IPC namespace of its own, System V IPC is refused the same way.
    """
    if SECCOMP_ARCH is None:
        return False
    arch, refused = SECCOMP_ARCH[0], list(SECCOMP_ARCH[1])
    if ipc_too:
        refused += SECCOMP_ARCH[2]
    load, jump_equal, jump_above, give = 0x20, 0x15, 0x35, 0x06
    allow, error = 0x7FFF0000, 0x00050000 | 1  # EPERM
    program = [
        (load, 0, 0, 4),  # the architecture of the call
        (jump_equal, 1, 0, arch),
        (give, 0, 0, error),  # another architecture's calls (32-bit ones): refused
        (load, 0, 0, 0),  # the call's number
        (jump_above, 0, 1, 0x3FFFFFFF),  # x32 calls on x86_64 carry this bit
        (give, 0, 0, error),
    ]
    for position, number in enumerate(refused):
        program.append((jump_equal, len(refused) - position, 0, number))
    program += [(give, 0, 0, allow), (give, 0, 0, error)]
    filters = (SockFilter * len(program))(*[SockFilter(*step) for step in program])
    fprog = SockProgram(len(program), filters)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    return libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0
