"""What grader tests hold: the submission, reached only through JSON messages.

A grader test's `submission` is a `SubmissionProxy`. It never holds the
submission's objects: a call becomes a request to a backend (a worker
process when grading, the same process for a student's self-check), and the
answer comes back as plain data. Exceptions the submission raises come back
by name and are raised again here as the builtin type they derive from, so
`pytest.raises(ValueError)` works in grader tests.
"""

from __future__ import annotations

import builtins
import hmac
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chunklab.contract import (
    Backend,
    CallTimedOut,
    SubmissionRaised,
    WorkerCrashed,
    answer_bytes,
)
from chunklab.kit_texts import KitText, call_arguments
from chunklab.sandbox.worker_main import MAX_REPR, digest_of_bytes
from chunklab.suite_run.tried_answers import AskedFirst, TriedAnswers, sent_arguments
from chunklab.suites.checks import shorten
from chunklab.text import first_of, terminal_safe

__all__ = ["CallTimedOut", "NotPlainData", "SubmissionProxy", "SubmissionRaised", "WorkerCrashed"]


@dataclass(frozen=True, eq=False)
class NotPlainData:
    """A returned value that is not plain data (a tuple, an object of a custom class).

    Equal only to itself, so no check can mistake it for the expected value.
    """

    type_name: str
    text: str

    def __repr__(self) -> str:
        article = "an" if self.type_name[:1].lower() in "aeiou" else "a"
        return f"<{article} {self.type_name}: {self.text}>"


def decode(value: Any) -> Any:
    kind = type(value)
    if kind is list:
        # The common answer, a list of strings, needs no work.
        if all(type(item) is str for item in value):
            return value
        return [decode(item) for item in value]
    if kind is dict:
        if len(value) == 2 and "$unplain" in value and "repr" in value:
            return NotPlainData(stand_in_text(value["$unplain"], 100), stand_in_text(value["repr"]))
        return {key: decode(item) for key, item in value.items()}
    return value


def stand_in_text(text: object, limit: int = MAX_REPR) -> str:
    """A stand-in's text as the worker makes it (a string, cut); anything else is not shown.

    Both its type's name and its repr are the submission's choice: escaped, they start
    no line of the feedback wherever they are shown.
    """
    return terminal_safe(first_of(text, limit)) if type(text) is str else "?"


def answer_value(answer: dict[str, Any]) -> Any:
    """The value a call returned; only a tagged answer holds stand-ins to decode."""
    return decode(answer["ok"]) if answer.get("tagged") else answer["ok"]


def exception_from(raised: dict[str, Any]) -> Exception:
    """The submission's exception, as the nearest builtin type made from a message alone.

    Some builtin exceptions take more than a message (UnicodeDecodeError takes
    five arguments, ExceptionGroup two): those come back as their nearest
    ancestor that takes one (ValueError), so that `pytest.raises` still works.
    """
    name, message = str(raised["type"]), str(raised["message"])
    builtin = getattr(builtins, str(raised.get("builtin", "")), None)
    if isinstance(builtin, type) and issubclass(builtin, Exception):
        text = message if name == builtin.__name__ else f"{name}: {message}"
        for kind in builtin.__mro__:
            try:
                return kind(text)
            except TypeError:
                continue
    return SubmissionRaised(name, message)


def describe_call(message: dict[str, Any]) -> str:
    shown = [shorten(a, 120) for a in call_arguments(message)]
    shown += [f"{k}={shorten(v, 120)}" for k, v in message.get("kwargs", {}).items()]
    return f"{message['name']}({', '.join(shown)})"


def call_message(
    op: str, name: str, args: tuple, kwargs: dict[str, Any], handle: int | None = None
) -> dict[str, Any]:
    """The request for a call; a fixed text of the kit among the arguments is only named."""
    message: dict[str, Any] = {"op": op, "name": name, "args": list(args), "kwargs": kwargs}
    if handle is not None:
        message["handle"] = handle
    for arg in args:
        # Only a call with a fixed text (or a document, which may hold one) is rewritten:
        # a class makes hundreds of thousands of calls, few of them with either.
        if isinstance(arg, (KitText, dict)):
            return with_texts_named(message, args)
    return message


def with_texts_named(message: dict[str, Any], args: tuple) -> dict[str, Any]:
    named: list[list[Any]] = []
    sent = []
    for n, arg in enumerate(args):
        if isinstance(arg, KitText):
            named.append([n, arg.name])
            arg = None
        elif isinstance(arg, dict) and any(isinstance(v, KitText) for v in arg.values()):
            # A document whose body is a fixed text: the field is named, not sent.
            named += [[n, key, v.name] for key, v in arg.items() if isinstance(v, KitText)]
            arg = {key: None if isinstance(v, KitText) else v for key, v in arg.items()}
        sent.append(arg)
    if named:
        message["args"] = sent
        message["texts"] = named
    return message


class Calls:
    """Where proxies send their calls: the submission's functions and classes by name."""

    _handles_made = 0

    def _send(self, message: dict[str, Any], most_seconds: float | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def _new_handle(self) -> int:
        self._handles_made += 1
        return self._handles_made

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name[:1].isupper():
            return ClassProxy(self, name)
        return FunctionProxy(self, name)


class SubmissionProxy(Calls):
    """The lesson's function or class, as grader tests see it."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        # Answers to calls sent ahead (see `ahead`), waiting for the test to make them.
        self._answered: deque[tuple[dict[str, Any], dict[str, Any] | Exception]] = deque()
        # The answers of the inputs to try, asked before any hidden check; once the tests
        # are done, every call is answered from them (see `tried_answers.py`).
        self._tried = TriedAnswers()
        self._reading_tried = False

    def begin_test(self, call_seconds: float | None = None) -> None:
        """A new grader test starts: a backend may forget an earlier test's timeout.

        `call_seconds` is the limit the test states for each of its calls, if any
        (its `call_seconds` marker), in place of the limit fitted to the call.
        """
        self._answered.clear()
        self._backend.begin_test(call_seconds)

    def ask_tries_first(self, calls: AskedFirst) -> None:
        """Ask the submission `calls` (every call the searches for inputs to try may make),
        before any hidden check, and keep the answers."""
        numbers_given = self._handles_made
        self._handles_made += calls.objects
        self._tried.ask(self._backend, calls, numbers_given)

    def answer_from_tries(self) -> None:
        """From now on every call is answered from the answers `ask_tries_first` kept, and
        none reaches the submission: the searches run after the hidden checks."""
        self._answered.clear()
        self._reading_tried = True

    def ahead(self) -> CallsAhead:
        """Calls the test is about to make, sent together: `with submission.ahead() as later:`.

        Inside the block, `later` takes the same calls as the proxy (functions,
        classes, methods of the objects it returns) and only notes them; at the
        end of the block they go to the submission in one message. When the test
        then makes those calls, in that order, their answers are already here.
        A call that differs is sent as usual, so sending ahead changes how fast a
        test runs, never what it finds.
        """
        return CallsAhead(self)

    def _send_ahead(self, messages: list[dict[str, Any]]) -> None:
        if not messages or self._reading_tried:
            return
        try:
            outcomes = self._backend.request_many(messages)
        except (CallTimedOut, WorkerCrashed):
            return  # the calls themselves will meet the same error, with their input named
        # Fewer outcomes than messages when a call timed out or ended the worker.
        self._answered = deque(zip(messages, outcomes, strict=False))

    def _answer(self, message: dict[str, Any], most_seconds: float | None) -> dict[str, Any]:
        if self._reading_tried:
            return self._tried.answer(message)
        if self._answered:
            sent, outcome = self._answered.popleft()
            if sent == message:
                if isinstance(outcome, Exception):
                    self._backend.met(outcome)
                    raise outcome
                return outcome
            self._answered.clear()
        if most_seconds is not None:
            self._backend.cap_next_call(most_seconds)
        return self._backend.request(message)

    def _send(self, message: dict[str, Any], most_seconds: float | None = None) -> dict[str, Any]:
        """The answer to a call; `most_seconds` lowers its own time limit (see
        `Backend.cap_next_call`)."""
        try:
            answer = self._answer(message, most_seconds)
        except (CallTimedOut, WorkerCrashed) as exc:
            raise type(exc)(f"Input: {describe_call(message)}\n{exc}") from None
        if "raised" in answer:
            error = exception_from(answer["raised"])
            # Lets the grader's feedback name the call even when a test did not expect it.
            error.chunklab_call = describe_call(message)  # type: ignore[attr-defined]
            raise error
        return answer


def value_expecting(send: Send, message: dict[str, Any], expected: Any) -> Any:
    """What a call returns, asked for first as a digest of its answer (see `measured_expecting`)."""
    return measured_expecting(send, message, expected)[0]


Send = Callable[..., dict[str, Any]]


def measured_expecting(
    send: Send,
    message: dict[str, Any],
    expected: Any,
    *,
    most_seconds: float | None = None,
) -> tuple[Any, float | None]:
    """What a call returns, asked for first as a digest of its answer, and the CPU time the
    call took as its backend measured it (None where it cannot).

    When the digest is that of `expected`, `expected` itself is the value and the
    answer never crosses (a long document's answer is megabytes); otherwise the
    worker sends the answer it kept, within what is left of the call's time (the
    sandbox counts the two requests as one call). The key is new for every call and
    covers the whole answer, so a digest cannot be made up without the answer: a
    right digest is a right answer. `most_seconds` lowers the call's own time limit.

    Only `expected` (the reference's answer) is ever compared: the time includes
    sending an answer that is not it, so which answers cross must depend on the
    submission alone, never on what earlier submissions answered.
    """
    key = secrets.token_hex(32)
    answer = send({**message, "digest": key}, most_seconds)
    cpu_seconds = answer.get("cpu_seconds")
    if "digest" not in answer:
        return answer_value(answer), cpu_seconds
    given = str(answer["digest"]).encode()
    size = answer.get("size")
    try:
        expected_bytes = expected_answer_bytes(expected)
    except ValueError:
        expected_bytes = None  # not an answer a worker sends: no digest can be its digest
    # The worker's size of its answer's bytes spares a digest of a megabyte where it
    # differs; a size that lies only makes a right answer cross whole.
    if (
        expected_bytes is not None
        and (size is None or len(expected_bytes) == size)
        and hmac.compare_digest(given, digest_of_bytes(key, expected_bytes).encode())
    ):
        return expected, cpu_seconds
    try:
        kept = send({"op": "kept", "name": message["name"]})
    except (CallTimedOut, WorkerCrashed) as error:
        # Named as the call it finishes, not as the request for its answer.
        _, _, why = str(error).partition("\n")
        raise type(error)(f"Input: {describe_call(message)}\n{why}") from None
    # The request for the kept answer is part of the call: its time is the call's too (code
    # that answers a made-up digest and works only when asked for the answer is timed so).
    kept_seconds = kept.get("cpu_seconds")
    if cpu_seconds is not None and kept_seconds is not None:
        cpu_seconds += kept_seconds
    return answer_value(kept), cpu_seconds


@dataclass(frozen=True)
class Returned:
    """What a call returned, and its arguments as the call left them when it changed them."""

    value: Any
    changed: bool = False
    # The arguments, [args, kwargs], as the call left them (only when it changed them).
    left: Any = None


def value_and_inputs(send: Send, message: dict[str, Any]) -> Returned:
    """What a call returns, and whether it changed the arguments it was given.

    The worker runs the call on its own copy of the arguments, made from the JSON
    sent, and answers with a digest of that copy after the call, keyed anew for
    this call: nothing can work the digest out before the key arrives. Equal to
    the digest of what was sent, the arguments are as they were; otherwise the
    worker is asked for them, so that feedback can show what changed.
    """
    key = secrets.token_hex(32)
    answer = send({**message, "inputs": key})
    value = answer_value(answer)
    sent = sent_arguments(message)
    if hmac.compare_digest(str(answer["inputs"]).encode(), digest_of_bytes(key, sent).encode()):
        return Returned(value)
    left = answer_value(send({"op": "held", "name": message["name"]}))
    return Returned(value, changed=True, left=left)


def expected_answer_bytes(expected: Any) -> bytes:
    """What a digest of an answer of `expected` is made of, made once per expected value."""
    known = EXPECTED_ANSWERS.get(id(expected))
    if known is None or known[0] is not expected:
        if len(EXPECTED_ANSWERS) >= MOST_EXPECTED_ANSWERS:
            EXPECTED_ANSWERS.clear()
        known = EXPECTED_ANSWERS[id(expected)] = (expected, answer_bytes(expected))
    return known[1]


# Expected answers are long documents' answers, the same few objects for a whole class:
# keyed by identity, holding the object so its id is not reused. A lesson's long calls,
# each draw of each text: at most some thirty, of a megabyte or two each.
EXPECTED_ANSWERS: dict[int, tuple[Any, bytes]] = {}
MOST_EXPECTED_ANSWERS = 32


class CallProxy:
    """A function or method living in the worker: calling it makes a request."""

    __name__: str

    def _calls(self) -> Calls:
        raise NotImplementedError

    def _message(self, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return answer_value(self._calls()._send(self._message(args, kwargs)))

    def expecting(self, expected: Any) -> Callable[..., Any]:
        """This function or method, called so that an answer equal to `expected` need not cross."""

        def call(*args: Any, **kwargs: Any) -> Any:
            return value_expecting(self._calls()._send, self._message(args, kwargs), expected)

        call.__name__ = self.__name__
        call.__wrapped__ = self  # type: ignore[attr-defined]  # feedback reaches the backend
        return call

    def measuring(
        self, expected: Any, most_seconds: float | None = None
    ) -> Callable[..., tuple[Any, float | None]]:
        """As `expecting`, giving also the CPU time each call took in the submission's worker;
        `most_seconds` lowers each call's own limit."""

        def call(*args: Any, **kwargs: Any) -> tuple[Any, float | None]:
            return measured_expecting(
                self._calls()._send,
                self._message(args, kwargs),
                expected,
                most_seconds=most_seconds,
            )

        call.__name__ = self.__name__
        call.__wrapped__ = self  # type: ignore[attr-defined]
        return call

    def watching_inputs(self) -> Callable[..., Returned]:
        """This function or method, called so that it also says whether it changed its arguments."""

        def call(*args: Any, **kwargs: Any) -> Returned:
            return value_and_inputs(self._calls()._send, self._message(args, kwargs))

        call.__name__ = self.__name__
        call.__wrapped__ = self  # type: ignore[attr-defined]  # feedback reaches the backend
        return call


class FunctionProxy(CallProxy):
    def __init__(self, proxy: Calls, name: str) -> None:
        self._proxy = proxy
        self.__name__ = name

    def _calls(self) -> Calls:
        return self._proxy

    def _message(self, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
        return call_message("call", self.__name__, args, kwargs)


class ClassProxy:
    def __init__(self, proxy: Calls, name: str) -> None:
        self._proxy = proxy
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> InstanceProxy:
        handle = self._proxy._new_handle()
        self._proxy._send(call_message("new", self.__name__, args, kwargs, handle))
        return InstanceProxy(self._proxy, handle, self.__name__)


class InstanceProxy:
    """An object living in the worker, held by a handle; its methods are calls."""

    def __init__(self, proxy: Calls, handle: int, class_name: str) -> None:
        self._proxy = proxy
        self._handle = handle
        self._class_name = class_name

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return MethodProxy(self, name)

    def __repr__(self) -> str:
        return f"<{self._class_name} instance>"


class MethodProxy(CallProxy):
    def __init__(self, instance: InstanceProxy, name: str) -> None:
        self._instance = instance
        self.__name__ = name

    def _calls(self) -> Calls:
        return self._instance._proxy

    def _message(self, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
        return call_message("method", self.__name__, args, kwargs, self._instance._handle)


class CallsAhead(Calls):
    """Notes calls as the proxy would make them; sends them all when the block ends.

    The same proxies make the messages, so a noted call is exactly the call the
    test will make; what a noted call returns is only a placeholder (None, or an
    object whose methods are noted too).
    """

    def __init__(self, proxy: SubmissionProxy) -> None:
        self._proxy = proxy
        self._messages: list[dict[str, Any]] = []
        # The numbers the proxy will give the objects the test creates, in order.
        self._handles_made = proxy._handles_made

    def __enter__(self) -> CallsAhead:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if exc_info[0] is None:
            self._proxy._send_ahead(self._messages)

    def _send(self, message: dict[str, Any], most_seconds: float | None = None) -> dict[str, Any]:
        self._messages.append(message)
        return {"ok": None}

    def on(self, instance: InstanceProxy) -> InstanceProxy:
        """An object the test already holds, whose method calls are noted here."""
        return InstanceProxy(self, instance._handle, instance._class_name)
