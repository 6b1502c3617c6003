"""What the control API and the client raise."""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass
from typing import List, Sequence


@dataclass(frozen=True)
class Issue:
    """One validation problem: a JSON path into the request body and what is wrong there."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ControlError(Exception):
    """The control API answered with an error status.

    ``status`` is the HTTP status, ``error`` the server's message (its JSON ``error``,
    or the body text when the body is not that JSON), ``issues`` the validation problems
    (a list of Issue, empty unless a body failed validation), ``body`` the raw answer.
    """

    def __init__(self, status: int, error: str, issues: Sequence[Issue] = (), *,
                 method: str = "", url: str = "", body: bytes = b"") -> None:
        self.status = status
        self.error = error
        self.issues: List[Issue] = list(issues)
        self.method = method
        self.url = url
        self.body = body
        super().__init__(status, error, self.issues)

    def __str__(self) -> str:
        where = f" ({self.method} {self.url})" if self.method else ""
        text = f"HTTP {self.status}{where}: {self.error}"
        for issue in self.issues:
            text += f"\n  {issue}"
        return text

    @classmethod
    def from_response(cls, status: int, body: bytes, *, method: str = "", url: str = "") -> "ControlError":
        text = body.decode("utf-8", errors="replace")
        error = text.strip() or http.client.responses.get(status, "error")
        issues: List[Issue] = []
        try:
            parsed = json.loads(text) if text.strip() else None
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            if isinstance(parsed.get("error"), str):
                error = parsed["error"]
            for item in parsed.get("issues") or []:
                if isinstance(item, dict):
                    issues.append(Issue(str(item.get("path", "")), str(item.get("message", ""))))
                else:
                    issues.append(Issue("", str(item)))
        return cls(status, error, issues, method=method, url=url, body=body)


class ControlConnectionError(ConnectionError):
    """The control server could not be reached (not running, wrong port, timed out)."""


class WaitTimeout(AssertionError):
    """wait_for() gave up: nothing satisfied the predicate in time."""
