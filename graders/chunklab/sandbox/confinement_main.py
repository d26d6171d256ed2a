"""Landlock for workers without namespaces: files, network and signals they may reach.

Like `zygote_main.py`, this runs in the zygote as source text (standard
library only). Where user namespaces are missing, Linux's Landlock (5.13
and later, no privilege needed) still confines a worker: it may read the
system's libraries and Python's standard library (not its installed
packages), read and write its own folder, and nothing else: not the kit,
the other submissions, the output folder, the cache of drawn inputs, nor
another process's /proc. From Landlock version 4 it may open no TCP
connection; from version 6 it may signal no process outside itself.
"""

import ctypes
import os

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
