"""OpenAI Batch API plumbing: the JSONL request file, the output-file parser and the state file that
makes a submitted batch resumable (SEAL, Appendix D: "we are using OpenAI's batch API. The pipeline
prepares requests for the entire dataset and sends them to the API for deferred processing. Once
ready, the results are pulled ... checks that the entry's format matches ... re-run ad-hoc when there
is a mismatch").

File format (https://platform.openai.com/docs/guides/batch): one request per line,
``{"custom_id", "method": "POST", "url": endpoint, "body"}``; output lines
``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["request_lines", "parse_output", "BatchState", "TERMINAL", "PENDING"]

PENDING = ("validating", "in_progress", "finalizing", "cancelling")
TERMINAL = ("completed", "failed", "expired", "cancelled")


def request_lines(endpoint: str, bodies: Sequence[dict], custom_ids: Sequence[str]) -> str:
    """The Batch API input file (JSONL) for ``bodies`` posted to ``endpoint`` ("/v1/chat/completions"
    or "/v1/completions")."""
    if len(bodies) != len(custom_ids):
        raise ValueError(f"{len(bodies)} bodies but {len(custom_ids)} custom ids")
    if len(set(custom_ids)) != len(custom_ids):
        raise ValueError("custom_id values must be unique within a batch")
    return "".join(
        json.dumps({"custom_id": c, "method": "POST", "url": endpoint, "body": b}) + "\n"
        for c, b in zip(custom_ids, bodies)
    )


def parse_output(text: str) -> dict[str, tuple[dict | None, str | None]]:
    """Map each ``custom_id`` of a Batch API output (or error) file to ``(response body, None)`` or
    ``(None, error message)``. Blank lines are skipped; a malformed line raises ValueError naming it."""
    out: dict[str, tuple[dict | None, str | None]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            cid = rec["custom_id"]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise ValueError(f"batch output line {n} is not a batch result: {line[:80]!r}") from e
        resp = rec.get("response") or {}
        err = rec.get("error")
        code = resp.get("status_code")
        if err:
            out[cid] = (None, err.get("message", str(err)) if isinstance(err, dict) else str(err))
        elif code != 200:
            body = resp.get("body") or {}
            msg = (body.get("error") or {}).get("message") if isinstance(body, dict) else None
            out[cid] = (None, f"status {code}: {msg or body}")
        else:
            out[cid] = (resp.get("body"), None)
    return out


class BatchState:
    """A JSON file with the submitted batches of one request set (their ids and which requests each
    holds), written atomically after every submission, so a rerun after a kill polls the same
    batches instead of submitting (and paying for) them again."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.chunks: list[dict[str, Any]] = []
        if self.path.exists():
            self.chunks = json.loads(self.path.read_text())["chunks"]

    def add(self, start: int, stop: int, batch_id: str, input_file_id: str) -> None:
        self.chunks.append({"start": start, "stop": stop, "batch_id": batch_id, "input_file_id": input_file_id})
        self.save()

    def covered(self) -> set[int]:
        return {c["start"] for c in self.chunks}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".batch-")
        with os.fdopen(fd, "w") as f:
            json.dump({"chunks": self.chunks}, f)
        os.replace(tmp, self.path)

    def clear(self) -> None:
        self.chunks = []
        self.path.unlink(missing_ok=True)
