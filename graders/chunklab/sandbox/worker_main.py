"""The code that runs inside a worker: executes a submission, answers calls.

This module is self-contained (standard library only) because the worker
receives it as source text: a worker never imports chunklab, so it never
holds grader, test or solution code. Requests and answers are JSON; every
value a submission returns is checked to be plain data before it leaves.
"""

import ast
import builtins
import hashlib
import itertools
import json
import marshal
import math
import os
import re
import select
import signal
import sys
import threading
import time
import traceback
import types

PLAIN_SCALARS = (str, bool, type(None))
# An int is plain below this size: any larger may not turn into digits (Python refuses
# past `sys.get_int_max_str_digits()`, which a submission may lower to 640).
INT_BOUND = 10**639
ONLY_STR = {str}
PLAIN_KINDS = {*PLAIN_SCALARS, int, float, list, dict}
# The most values one level of an answer is looked at in at once (see `is_plain`).
MOST_LEVEL_ITEMS = 1 << 20
MAX_REPR = 300
MAX_DEPTH = 60
# What an answer's digest is made of: marshal's format 2 writes equal values of exact
# builtin types as equal bytes (no back-references, no mark of an interned string), as
# the grader's side does (contract.DIGEST_FORMAT).
DIGEST_FORMAT = 2
MAX_MESSAGE = 500
# What a submission may import: Python's standard library, and the helper modules
# that travel with it (named in the load request).
STANDARD_LIBRARY = frozenset(sys.stdlib_module_names) | {"__main__"}
# The kit's fixed texts by name (the long documents), read by the zygote before any
# worker is forked: a request names one in place of sending it (its "texts").
KIT_TEXTS: dict = {}


# Where the builtins that `site` and IPython add come from.
ADDED_BUILTINS = ("_sitebuiltins", "IPython", "ipykernel")


# A cell is stopped once loading has spent this share of its own time, so that the cells
# after it (a notebook's definitions may come after a slow demo) still have time to run.
SLOW_CELL_SHARE = 0.8
# The answers to the inputs to try, read from the child that made them, at most (the
# grader takes no answer larger than this), and how much is read at a time.
MOST_TRY_BYTES = 32 * 1024 * 1024
# A try's timer goes off again this long (or its own limit, if longer) after a first
# time: code that caught the first stop and went on is then stopped for good.
LEAST_TRY_AGAIN = 0.05
# How often the worker looks whether the child making the tries has ended.
TRY_LOOK_SECONDS = 0.01
READ_SIZE = 1 << 16


class CellTooSlow(BaseException):
    """A cell ran past what is left of the load's own time; it is stopped, the others run."""


def stop_slow_cell(signum, frame):
    raise CellTooSlow()


def stop_try_timers():
    """Stop a try's two timers."""
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)


class CellTimer:
    """Stops a cell (raising `CellTooSlow` in it) once the load has spent its share of time.

    The load's own time is the process's CPU time, as the grader counts it. Only a
    worker (the submission's whole process, on its main thread) has such a timer.
    """

    def __init__(self, seconds, whole_process):
        usable = whole_process and seconds and threading.current_thread() is threading.main_thread()
        self.seconds = seconds
        self.limit = seconds * SLOW_CELL_SHARE if usable else None
        self.started = time.process_time()
        self.previous = signal.signal(signal.SIGPROF, stop_slow_cell) if usable else None

    def left(self):
        """The own time a cell may take now, or None when nothing is timed."""
        if self.limit is None:
            return None
        return self.limit - (time.process_time() - self.started)

    def start(self, seconds):
        if seconds is not None:
            signal.setitimer(signal.ITIMER_PROF, max(seconds, 0.001))

    def stop(self):
        if self.limit is not None:
            signal.setitimer(signal.ITIMER_PROF, 0)

    def close(self):
        self.stop()
        if self.previous is not None:
            signal.signal(signal.SIGPROF, self.previous)


def slow_cell_problem(cell, timer, ran):
    done = "was stopped" if ran else "was not run"
    return {
        "cell": cell["index"],
        "kind": "too_slow",
        "line": None,
        "message": f"{cell['label']} {done}: running your code took longer than "
        f"{timer.seconds:.2g} seconds before any test could start; look for a loop or a long "
        "computation outside your functions (a demo should take a moment).",
    }


class ImportBlocked(ModuleNotFoundError):
    """The submission imported a module outside the standard library."""


def blocked_message(modules):
    names = ", ".join(modules)
    what = "a module" if len(modules) == 1 else "modules"
    return (
        f"your code imports {names}: {what} outside Python's standard library. "
        "Submissions may use the standard library only (even a module installed here "
        "is not there when your work is graded): remove the import and write that part "
        "with the standard library."
    )


def syntax_tree(source, label):
    """The cell's syntax tree. CPython 3.11 keeps the depth count of its AST builder in
    one place per interpreter, so a conversion that starts inside another (a finalizer
    the garbage collector runs mid-way) ends with a false "recursion depth mismatch"
    SystemError; the count starts afresh at every call, so once more gives the tree."""
    try:
        return compile(source, label, "exec", ast.PyCF_ONLY_AST)
    except SystemError as exc:
        if "recursion depth mismatch" not in str(exc):
            raise
        return compile(source, label, "exec", ast.PyCF_ONLY_AST)


def outside_imports(tree, allowed):
    """The modules an AST imports that are not allowed: anywhere, even in a try or a function.

    Relative imports (`from . import x`) name the submission's own modules. A
    module named by a literal string (`__import__("x")`, `importlib.import_module("x")`)
    counts as imported.
    """
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and imported_by_name(node):
            names = [node.args[0].value]
        else:
            continue
        found += [n for n in names if n.split(".")[0] not in allowed and n not in found]
    return found


def imported_by_name(call):
    """Whether a call imports the module its first argument names, as a literal string."""
    function = call.func
    name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    return (
        name in ("__import__", "import_module")
        and bool(call.args)
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
        and not call.args[0].value.startswith(".")
    )


def plain_builtins():
    """The builtins of a bare interpreter: none of those `site` or IPython add (exit, display).

    A worker has no others, so code run in a self-check finds the same names.
    """
    return {
        name: value
        for name, value in vars(builtins).items()
        if not str(getattr(value, "__module__", "")).startswith(ADDED_BUILTINS)
    }


def guarded_import(allowed, guard, real_import=builtins.__import__):
    """`__import__` for the submission: an import decided at run time meets the same policy."""

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name.split(".")[0] not in allowed:
            guard.refuse(name, by_submission=True)
        return guard.view(real_import(name, globals, locals, fromlist, level))

    return __import__


class GuardedModule(types.ModuleType):
    """A module as the submission sees it: its import functions meet the policy.

    Needed where a module outside the policy is already imported (a self-check
    in the grader's own process): `importlib.import_module` would hand it out
    without asking any finder.
    """

    def __init__(self, real, overrides):
        super().__init__(real.__name__, real.__doc__)
        self.__dict__.update(overrides)
        self.__dict__["__real_module"] = real

    def __getattr__(self, name):
        return getattr(self.__dict__["__real_module"], name)


class ImportGuard:
    """A `sys.meta_path` finder that refuses every module outside the policy.

    The submission's `__import__` checks names, but `importlib` and a module's
    own `__builtins__` do not pass through it; every import that reaches a
    finder does. In a worker it guards the whole process once loading begins;
    in the grader's process (a self-check) only the thread running a request.
    A refused import raises `ImportBlocked`; one the submission's own code made
    (not a standard module's optional import) is remembered, so load reports
    `import_blocked` even if the code caught the error.
    """

    def __init__(self, allowed, whole_process):
        self.allowed = allowed
        self.whole_process = whole_process
        self.threads = set()
        self.refused = []
        self.views = {}

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.allowed:
            return None
        if not self.whole_process and threading.get_ident() not in self.threads:
            return None
        self.refuse(name, by_submission=not imported_by_standard_module())
        return None

    def refuse(self, name, by_submission):
        if by_submission and name not in self.refused:
            self.refused.append(name)
        raise ImportBlocked(blocked_message([name]), name=name)

    def view(self, module):
        """`importlib` and `builtins` with guarded import functions; other modules as they are."""
        guarded = GUARDED_FUNCTIONS.get(getattr(module, "__name__", None))
        if guarded is None or not isinstance(module, types.ModuleType):
            return module
        if module.__name__ not in self.views:
            overrides = {name: self.guarded(getattr(module, name)) for name in guarded}
            self.views[module.__name__] = GuardedModule(module, overrides)
        return self.views[module.__name__]

    def guarded(self, function):
        def checked(name, *args, **kwargs):
            if isinstance(name, str) and not name.startswith("."):
                if name.split(".")[0] not in self.allowed:
                    self.refuse(name, by_submission=True)
            return function(name, *args, **kwargs)

        checked.__name__ = function.__name__
        return checked

    def __enter__(self):
        self.threads.add(threading.get_ident())
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc_info):
        self.threads.discard(threading.get_ident())
        if not self.whole_process and not self.threads and self in sys.meta_path:
            sys.meta_path.remove(self)


# The import functions a submission reaches through a module.
GUARDED_FUNCTIONS = {"importlib": ("import_module", "__import__"), "builtins": ("__import__",)}
# The standard library's folder; its third-party packages are not standard.
STANDARD_FOLDER = os.path.dirname(os.__file__) + os.sep


def imported_by_standard_module():
    """Whether the code asking for the module (past the import machinery) is a standard module."""
    frame = sys._getframe(2)
    while frame is not None:
        file_name = frame.f_code.co_filename
        machinery = file_name.startswith("<frozen importlib") or (
            os.sep + "importlib" + os.sep in file_name and file_name.startswith(STANDARD_FOLDER)
        )
        if not machinery and frame.f_globals is not globals():
            return file_name.startswith(STANDARD_FOLDER) and "-packages" not in file_name
        frame = frame.f_back
    return False


def without_addresses(text):
    """`text` without memory addresses: they differ between runs, and feedback must not."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", text)


def safe_repr(value):
    try:
        text = repr(value)
    except BaseException as exc:  # a hostile __repr__ must not stop the worker
        text = f"<{type(value).__name__} whose repr() raised {type(exc).__name__}>"
    if not isinstance(text, str):
        text = f"<{type(value).__name__}>"
    text = without_addresses(text)
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


def is_plain(value, depth=0):
    """True when JSON carries `value` exactly: the common answer needs no copy and no tags.

    Looked at a level of nesting at a time, each level's values sorted by type at C
    speed: a long document's answer is a list of thousands of chunk dicts.
    """
    if type(value) is list and set(map(type, value)) <= ONLY_STR:
        return True  # most answers are chunks: what the levels below would find, at once
    level = [value]
    while level:
        kinds = set(map(type, level))
        if not kinds <= PLAIN_KINDS:
            return False
        if float in kinds and not all(map(math.isfinite, (v for v in level if type(v) is float))):
            return False
        if int in kinds and not all(map(int_fits, of_kind(level, kinds, int))):
            return False
        lists = of_kind(level, kinds, list)
        dicts = of_kind(level, kinds, dict)
        if (lists or dicts) and depth > MAX_DEPTH:
            return False
        if dicts and not set(map(type, itertools.chain.from_iterable(dicts))) <= ONLY_STR:
            return False
        below = [*itertools.chain.from_iterable(lists)]
        below += itertools.chain.from_iterable(map(dict.values, dicts))
        if len(below) > MOST_LEVEL_ITEMS:
            # Only a value that holds itself many times over grows this wide: one path
            # at a time then, which stops at the first too deep.
            return is_plain_path(value, depth)
        level, depth = below, depth + 1
    return True


def of_kind(level, kinds, kind):
    """The values of `level` whose type is exactly `kind`."""
    if kind not in kinds:
        return []
    return level if len(kinds) == 1 else [v for v in level if type(v) is kind]


def int_fits(value):
    return -INT_BOUND < value < INT_BOUND


def int_size(value):
    """An int too long to write out in digits, described by how many it has."""
    return f"an int of about {int(abs(value).bit_length() * math.log10(2)) + 1} digits"


def is_plain_path(value, depth=0):
    """`is_plain`, following one path into the value at a time."""
    kind = type(value)
    if kind in PLAIN_SCALARS:
        return True
    if kind is int:
        return int_fits(value)
    if kind is float:
        return math.isfinite(value)
    if depth > MAX_DEPTH:
        return False
    if kind is list:
        return all(is_plain_path(item, depth + 1) for item in value)
    if kind is dict:
        return all(
            type(key) is str and is_plain_path(item, depth + 1) for key, item in value.items()
        )
    return False


def encode(value, depth=0):
    """Plain data as JSON; anything else as a tagged description, never as itself."""
    kind = type(value)
    if depth > MAX_DEPTH:
        return {"$unplain": "too deeply nested value", "repr": "..."}
    if kind in PLAIN_SCALARS:
        return value
    if kind is int:
        return value if int_fits(value) else {"$unplain": "int", "repr": int_size(value)}
    if kind is float:
        return value if math.isfinite(value) else {"$unplain": "float", "repr": repr(value)}
    if kind is list:
        return [encode(item, depth + 1) for item in value]
    if kind is dict and all(isinstance(key, str) for key in value):
        # A key of a str subclass (a StrEnum member) is the string it holds, as a value is.
        return {str.__str__(key): encode(item, depth + 1) for key, item in value.items()}
    # A subclass of str or list is a string or a list, as the lessons ask: what it
    # holds crosses, read past any method it overrides.
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, list):
        return [encode(item, depth + 1) for item in list.copy(value)]
    return {"$unplain": kind.__name__, "repr": safe_repr(value)}


def answer_digest(key, value):
    """A digest of a returned value, keyed by the grader for this call, and the size of the
    bytes it is made of; None for a value that is not made only of exact builtin types (it
    crosses itself).

    The grader compares it with the digest of the answer it expects, so a long
    answer that is right need not cross. The key is new for every call and
    covers the whole answer: nothing about the digest can be worked out before
    the call, so only the right answer itself, made within the call, gives it.
    The bytes are `marshal`'s, which write exact builtin types only (a subclass
    is refused, and no method of the submission's runs) and are made at C speed:
    a long document's answer is some fifteen thousand dicts. The size only tells the
    grader whether the answer it expects is worth a digest (a megabyte or more): a wrong
    size can only make a right answer cross whole.
    """
    try:
        data = marshal.dumps(value, DIGEST_FORMAT)
    except (ValueError, MemoryError):
        return None
    return digest_of_bytes(key, data), len(data)


def inputs_digest(key, arguments):
    """A digest of the call's arguments as the call left them, keyed by the grader for this call.

    The grader sent them as JSON, and the worker made its own copy from that: the
    digest equals the grader's digest of what it sent only if the call changed
    nothing in them. An argument that no longer is JSON has changed.
    """
    try:
        data = json.dumps(arguments).encode()
    except (TypeError, ValueError, RecursionError):
        data = b"not the arguments sent"
    return digest_of_bytes(key, data)


def plain_answer(value):
    """A returned value as an answer: tagged when it holds values that are not plain data."""
    if is_plain(value):
        return {"ok": value}
    # The grader decodes only answers that hold stand-ins for non-plain values.
    return {"ok": encode(value), "tagged": True}


def digest_of_bytes(key, data):
    return hashlib.blake2b(data, key=bytes.fromhex(key)).hexdigest()


def short_text(text, limit=MAX_MESSAGE):
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_exception(exc):
    # The first builtin class in the exception's ancestry lets the grader re-raise
    # a ValueError subclass as a ValueError, so `pytest.raises` keeps working.
    builtin = next(
        (k.__name__ for k in type(exc).__mro__ if vars(builtins).get(k.__name__) is k),
        "Exception",
    )
    try:
        message = short_text(str(exc))
    except BaseException:
        message = "<the exception's message could not be read>"
    return {"type": type(exc).__name__, "builtin": builtin, "message": without_addresses(message)}


def student_traceback(exc, file_name):
    """The traceback lines that point into the submission, not into this worker."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == file_name]
    lines = traceback.format_list(frames[-5:])
    lines += traceback.format_exception_only(type(exc), exc)
    return short_text("".join(lines), 2000)


def import_blocked(modules):
    problem = {"kind": "import_blocked", "modules": modules, "message": blocked_message(modules)}
    return {"problems": [problem], "defined": []}


class Session:
    """One submission's namespace, its live objects, and the calls made into it."""

    def __init__(self, whole_process=False, texts=None):
        # A real module, so code that looks itself up in sys.modules (dataclasses,
        # pickle, typing) works as it would in a file.
        module = types.ModuleType("submission")
        sys.modules["submission"] = module
        self.namespace = module.__dict__
        self.handles = {}
        # The last value sent as a digest (in a 1-tuple), until the grader asks for it or
        # makes another call.
        self.kept = None
        # The arguments of the last call asked about them, as the call left them.
        self.held = None
        # A worker is the submission's whole process; the grader's own is not.
        self.whole_process = whole_process
        self.guard = ImportGuard(STANDARD_LIBRARY, whole_process)
        self.texts = KIT_TEXTS if texts is None else texts

    def load(self, cells, local_modules=(), seconds=None):
        """Run every cell; a cell that fails is reported and the others still run.

        A submission that imports a module outside the standard library runs no
        cell at all: its one problem is `import_blocked`, naming the modules.
        With `seconds` (the load's own time), a cell still running when most of it
        is spent is stopped and reported (`too_slow`), as is any cell after it
        that finds no time left; the cells after a stopped one still run.
        """
        allowed = STANDARD_LIBRARY | frozenset(local_modules)
        self.guard = ImportGuard(allowed, self.whole_process)
        self.namespace["__builtins__"] = {
            **plain_builtins(),
            "__import__": guarded_import(allowed, self.guard),
        }
        problems = []
        compiled = []
        blocked = []
        for cell in cells:
            label = cell["label"]
            try:
                tree = syntax_tree(cell["source"], label)
                blocked += [n for n in outside_imports(tree, allowed) if n not in blocked]
                compiled.append((cell, compile(tree, label, "exec")))
            except SyntaxError as exc:
                problems.append(
                    {
                        "cell": cell["index"],
                        "kind": "syntax_error",
                        "line": exc.lineno,
                        "message": f"{label}, line {exc.lineno}: {exc.msg}",
                    }
                )
            except (RecursionError, MemoryError):
                # Python's own parser gives up on code nested this deeply.
                problems.append(
                    {
                        "cell": cell["index"],
                        "kind": "syntax_error",
                        "line": None,
                        "message": f"{label}: the code nests too deeply for Python to read "
                        "(brackets or operators inside one another thousands of times); "
                        "write it flatter.",
                    }
                )
        if blocked:
            return import_blocked(blocked)
        timer = CellTimer(seconds, self.whole_process)
        try:
            problems += self.run_cells(compiled, timer)
        except ImportBlocked as exc:
            refused = self.guard.refused
            return import_blocked(refused + [exc.name] * (exc.name not in refused))
        finally:
            timer.close()
        if self.guard.refused:  # an import the code refused and then caught
            return import_blocked(list(self.guard.refused))
        problems.sort(key=lambda problem: problem["cell"])  # in the order of the cells
        defined = sorted(
            name
            for name, value in self.namespace.items()
            if not name.startswith("__") and (callable(value))
        )
        return {"problems": problems, "defined": defined}

    def run_cells(self, compiled, timer):
        """Run the compiled cells in turn; the problems of those that failed."""
        problems = []
        for cell, code in compiled:
            left = timer.left()
            if left is not None and left <= 0:
                problems.append(slow_cell_problem(cell, timer, ran=False))
                continue
            try:
                with self.guard:
                    timer.start(left)
                    try:
                        exec(code, self.namespace)
                    finally:
                        timer.stop()
            except CellTooSlow:
                problems.append(slow_cell_problem(cell, timer, ran=True))
            except ImportBlocked:
                raise
            except BaseException as exc:  # SystemExit and KeyboardInterrupt included
                problems.append(
                    {
                        "cell": cell["index"],
                        # Memory is an outcome of its own, not a name the code failed to define.
                        "kind": "out_of_memory" if isinstance(exc, MemoryError) else "raised",
                        "message": student_traceback(exc, cell["label"]),
                    }
                )
        return problems

    def call(self, request):
        kept, self.kept = self.kept, None
        if request["op"] == "kept":
            # The value a digest was made of: the grader expected another.
            return plain_answer(kept[0]) if kept is not None else {"ok": None}
        if request["op"] == "held":
            held, self.held = self.held, None
            return plain_answer(held)
        self.held = None
        asked_by_digest = "digest" in request
        answer = self.answer(request, as_value=asked_by_digest)
        if "inputs" in request and "ok" in answer:
            arguments = [request.get("args", []), request.get("kwargs", {})]
            self.held = arguments
            answer["inputs"] = inputs_digest(request["inputs"], arguments)
            if request.get("left"):
                # Asked with calls sent together, where no request for them can follow.
                answer["left"] = plain_answer(arguments)
        if asked_by_digest and "ok" in answer:
            digested = answer_digest(request["digest"], answer["ok"])
            if digested is None:
                return plain_answer(answer["ok"])
            self.kept = (answer["ok"],)
            return {"digest": digested[0], "size": digested[1]}
        return answer

    def tries(self, calls, seconds, after_a_stop, most_stops, wall_factor, end=None):
        """Answers to `calls`, made one after another, each stopped past `seconds` of own
        time, or `after_a_stop` once one was, and past `wall_factor` times that by the
        clock (a wait): a call stopped is answered {"stopped": True}. After `most_stops`
        of them no call is made.

        A call that goes on once stopped (it caught what the timer raised) is stopped
        for good when the timer goes off again: `end(answers)` is given the answers so
        far, the last one stopped, and ends the process. The inputs a failed hidden
        check may offer to try, all asked before the tests: one request and one answer
        for them all. The grader still bounds the whole.
        """
        timed = (
            end is not None
            and self.whole_process
            and threading.current_thread() is threading.main_thread()
        )
        answers, stops, fired = [], 0, [False]

        def stop(signum, frame):
            if fired[0]:
                end([*answers, {"stopped": True}])
            fired[0] = True
            raise CellTooSlow()

        previous = (
            [signal.signal(kind, stop) for kind in (signal.SIGPROF, signal.SIGALRM)]
            if timed
            else []
        )
        try:
            for call in calls:
                fired[0] = False
                if timed:
                    limit = after_a_stop if stops else seconds
                    again = max(limit, LEAST_TRY_AGAIN)
                    signal.setitimer(signal.ITIMER_PROF, limit, again)
                    signal.setitimer(signal.ITIMER_REAL, limit * wall_factor, again * wall_factor)
                try:
                    answer = self.call(call)
                finally:
                    if timed:
                        stop_try_timers()
                if fired[0]:
                    answers.append({"stopped": True})
                    stops += 1
                    if stops >= most_stops:
                        break
                else:
                    answers.append(answer)
        except CellTooSlow:
            answers.append({"stopped": True})  # stopped in the worker's own code, at its end
        finally:
            if timed:
                stop_try_timers()
                signal.signal(signal.SIGPROF, previous[0])
                signal.signal(signal.SIGALRM, previous[1])
        return {"answers": answers}

    def tries_apart(self, request, protocol=()):
        """The answer to a "tries" request, as a line of JSON: the calls are made in a child
        of this worker, so that nothing they leave in a process (a cache, a list kept at
        the top level) stays in the worker the tests then run in. Where the child cannot
        be made, or does not answer, none is answered."""
        asked = (
            request["calls"],
            request["seconds"],
            request["after_a_stop"],
            request["most_stops"],
            request["wall_factor"],
        )
        if not self.whole_process:
            return json.dumps(self.tries(*asked))  # no child, and no timer
        none = json.dumps({"answers": []})
        try:
            given, answered = os.pipe()
            child = os.fork()
        except OSError:
            return none
        if child == 0:
            try:
                os.close(given)
                # The worker's requests and answers are not the child's: nothing it runs
                # can read a request meant for the worker, or answer one.
                nothing = os.open(os.devnull, os.O_RDWR)
                for kept in protocol:
                    os.dup2(nothing, kept)
                out = os.fdopen(answered, "wb")

                def end(answers):
                    out.write(json.dumps({"answers": answers}).encode())
                    out.flush()
                    os._exit(0)

                end(self.tries(*asked, end=end)["answers"])
            finally:
                os._exit(1)
        os.close(answered)
        data, status = read_until_ended(given, child)
        line = b"".join(data)
        if status != 0 or b"\n" in line:
            return none
        return line.decode("utf-8", "replace")

    def arguments(self, request):
        """The call's positional arguments, each fixed text it names put in its place."""
        args = request.get("args", [])
        if "texts" in request:
            args = list(args)
            for place in request["texts"]:
                # [index, name]: the argument itself; [index, key, name]: a field of a
                # dict argument (a document's body).
                if len(place) == 3:
                    args[place[0]] = {**args[place[0]], place[1]: self.texts[place[2]]}
                else:
                    args[place[0]] = self.texts[place[1]]
        return args

    def answer(self, request, as_value=False):
        """The call's answer; with `as_value`, a returned value is left as it is (to be
        digested before it is made an answer)."""
        kwargs = request.get("kwargs", {})
        # The arguments are this worker's own copy, made from the grader's JSON: a call
        # asked about them (see `call`) is judged on a digest keyed anew for that call.
        answer = {}
        try:
            args = self.arguments(request)
            if request["op"] == "method":
                target = getattr(self.handles[request["handle"]], request["name"])
            else:
                target = self.namespace[request["name"]]
            with self.guard:
                result = target(*args, **kwargs)
            if request["op"] == "new":
                # The grader numbers the objects it asks for, so it can name one in a
                # later call before this answer has come back.
                self.handles[request["handle"]] = result
                answer["handle"] = request["handle"]
            else:
                answer = {"ok": result} if as_value else plain_answer(result)
        except BaseException as exc:  # the submission's exception is an answer, not a crash
            answer = {"raised": describe_exception(exc)}
        return answer


def read_until_ended(given, child):
    """What the child wrote to the pipe `given` until it ended (at most MOST_TRY_BYTES), and
    its exit status (-1 when it wrote more). The pipe is read until the child ends, not
    until the pipe does: a process the child started may hold it open."""
    data, size, status = [], 0, None
    try:
        while status is None and size <= MOST_TRY_BYTES:
            if select.select([given], [], [], TRY_LOOK_SECONDS)[0]:
                chunk = os.read(given, READ_SIZE)
                if not chunk:  # the pipe is closed: only the child's end is left to wait for
                    status = os.waitpid(child, 0)[1]
                    break
                data.append(chunk)
                size += len(chunk)
            ended, code = os.waitpid(child, os.WNOHANG)
            if ended:
                status = code
        while status is not None and size <= MOST_TRY_BYTES:
            if not select.select([given], [], [], 0)[0] or not (chunk := os.read(given, READ_SIZE)):
                break
            data.append(chunk)
            size += len(chunk)
        if size > MOST_TRY_BYTES:
            if status is None:
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
            return data, -1
        return data, status
    finally:
        os.close(given)


def send(answers, line):
    # What the submission printed goes to the grader's capped output pipe now,
    # not when the worker is ended.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    answers.write(line + "\n")
    answers.flush()


def serve(requests, answers):
    """Answer requests, one JSON line each, until the stream ends.

    A "calls" request holds several calls: each is answered as soon as it is
    done, so the grader still times every call on its own.
    """
    session = Session(whole_process=True)
    for line in requests:
        request = json.loads(line)
        if request["op"] == "load":
            cells, local_modules = request["cells"], request.get("local_modules", ())
            send(answers, json.dumps(session.load(cells, local_modules, request.get("seconds"))))
        elif request["op"] == "calls":
            for call in request["calls"]:
                send(answers, json.dumps(session.call(call)))
        elif request["op"] == "tries":
            send(answers, session.tries_apart(request, (requests.fileno(), answers.fileno())))
        else:
            send(answers, json.dumps(session.call(request)))


if __name__ == "__main__":
    serve(os.fdopen(int(sys.argv[1]), "r"), os.fdopen(int(sys.argv[2]), "w"))
