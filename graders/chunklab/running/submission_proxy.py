"""What grader tests hold: the submission, reached only through JSON messages.

The `submission` fixture is a `SubmissionProxy`. It never holds the
submission's objects: a call becomes a request to a backend (a worker
process when grading, the same process for a student's self-check), and the
answer comes back as plain data. Exceptions the submission raises come back
by name and are raised again here as the builtin type they derive from, so
`pytest.raises(ValueError)` works in grader tests.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any, Protocol

from chunklab.running.call_errors import CallTimedOut, SubmissionRaised, WorkerCrashed
from chunklab.suites.checks import shorten

__all__ = ["CallTimedOut", "NotPlainData", "SubmissionProxy", "SubmissionRaised", "WorkerCrashed"]


class Backend(Protocol):
    """Sends one request to wherever the submission runs and returns the answer."""

    def request(self, message: dict[str, Any]) -> dict[str, Any]: ...


@dataclass(frozen=True, eq=False)
class NotPlainData:
    """A returned value that is not plain data (a tuple, an object of a custom class).

    Equal only to itself, so no check can mistake it for the expected value.
    """

    type_name: str
    text: str

    def __repr__(self) -> str:
        return f"<a {self.type_name}: {self.text}>"


def decode(value: Any) -> Any:
    kind = type(value)
    if kind is list:
        # The common answer, a list of strings, needs no work.
        if all(type(item) is str for item in value):
            return value
        return [decode(item) for item in value]
    if kind is dict:
        if len(value) == 2 and "$unplain" in value and "repr" in value:
            return NotPlainData(str(value["$unplain"]), str(value["repr"]))
        return {key: decode(item) for key, item in value.items()}
    return value


def answer_value(answer: dict[str, Any]) -> Any:
    """The value a call returned; only a tagged answer holds stand-ins to decode."""
    return decode(answer["ok"]) if answer.get("tagged") else answer["ok"]


def exception_from(raised: dict[str, Any]) -> Exception:
    name, message = str(raised["type"]), str(raised["message"])
    builtin = getattr(builtins, str(raised.get("builtin", "")), None)
    if isinstance(builtin, type) and issubclass(builtin, Exception):
        text = message if name == builtin.__name__ else f"{name}: {message}"
        return builtin(text)
    return SubmissionRaised(f"{name}: {message}")


def describe_call(message: dict[str, Any]) -> str:
    shown = [shorten(a, 120) for a in message.get("args", [])]
    shown += [f"{k}={shorten(v, 120)}" for k, v in message.get("kwargs", {}).items()]
    return f"{message['name']}({', '.join(shown)})"


class SubmissionProxy:
    """The lesson's function or class, as grader tests see it."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self.last_arguments: list[Any] | None = None

    def begin_test(self) -> None:
        """A new grader test starts: a backend may forget an earlier test's timeout."""
        begin = getattr(self._backend, "begin_test", None)
        if begin is not None:
            begin()

    def _send(self, message: dict[str, Any]) -> dict[str, Any]:
        try:
            answer = self._backend.request(message)
        except (CallTimedOut, WorkerCrashed) as exc:
            raise type(exc)(f"Input: {describe_call(message)}\n{exc}") from None
        after = answer.get("args_after")
        self.last_arguments = (
            decode(after)
            if after is not None
            else [message.get("args", []), message.get("kwargs", {})]
        )
        if "raised" in answer:
            error = exception_from(answer["raised"])
            # Lets the grader's feedback name the call even when a test did not expect it.
            error.chunklab_call = describe_call(message)  # type: ignore[attr-defined]
            raise error
        return answer

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name[:1].isupper():
            return ClassProxy(self, name)
        return FunctionProxy(self, name)


class FunctionProxy:
    def __init__(self, proxy: SubmissionProxy, name: str) -> None:
        self._proxy = proxy
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        answer = self._proxy._send(
            {"op": "call", "name": self.__name__, "args": list(args), "kwargs": kwargs}
        )
        return answer_value(answer)


class ClassProxy:
    def __init__(self, proxy: SubmissionProxy, name: str) -> None:
        self._proxy = proxy
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> InstanceProxy:
        answer = self._proxy._send(
            {"op": "new", "name": self.__name__, "args": list(args), "kwargs": kwargs}
        )
        return InstanceProxy(self._proxy, int(answer["handle"]), self.__name__)


class InstanceProxy:
    """An object living in the worker, held by a handle; its methods are calls."""

    def __init__(self, proxy: SubmissionProxy, handle: int, class_name: str) -> None:
        self._proxy = proxy
        self._handle = handle
        self._class_name = class_name

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return MethodProxy(self, name)

    def __repr__(self) -> str:
        return f"<{self._class_name} instance>"


class MethodProxy:
    def __init__(self, instance: InstanceProxy, name: str) -> None:
        self._instance = instance
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        answer = self._instance._proxy._send(
            {
                "op": "method",
                "handle": self._instance._handle,
                "name": self.__name__,
                "args": list(args),
                "kwargs": kwargs,
            }
        )
        return answer_value(answer)
