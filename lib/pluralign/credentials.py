"""Credentials stay out of files: :func:`check_secrets` finds, anywhere in a parameter file's values, one that looks
like an API key or token, or a text under a key that names a secret (``api_key``, ``hf_token``). A secret comes from
the environment only, named by a ``<key>_env`` parameter where one is supported (``api_key_env: OPENAI_API_KEY``)."""

from __future__ import annotations

import math
import re
from collections import Counter

__all__ = ["check_secrets", "looks_like_secret"]

#: keys that name a secret, as a word of the key (``hf_token``, ``api_key``, ``secret``; not ``tokenizer``): their
#: value must come from the environment (``<key>_env`` names the variable)
SECRET_KEY = re.compile(r"(?:^|[_-])(?:api[_-]?keys?|secrets?|token|passwords?)(?:$|[_-])", re.I)
#: values that look like credentials whatever their key: provider key prefixes, or long high-entropy tokens
SECRET_VALUE = re.compile(
    r"^(sk-[A-Za-z0-9_-]{16,}|sk-proj-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|"
    r"xox[baprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|"
    r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})$"
)


def looks_like_secret(value) -> bool:
    """A known API-key shape, or a token of 32+ letters / digits with three character classes and high
    entropy (not a path, not a Hub id, not prose)."""
    v = value.strip() if isinstance(value, str) else ""
    if SECRET_VALUE.match(v):
        return True
    if not re.fullmatch(r"[A-Za-z0-9_\-+=]{32,}", v) or not all(re.search(c, v) for c in ("[a-z]", "[A-Z]", "[0-9]")):
        return False
    return -sum(n / len(v) * math.log2(n / len(v)) for n in Counter(v).values()) > 4.0


def check_secrets(obj, where: str = "") -> str | None:
    """Why ``obj`` (a parameter file's mapping) may not be read, or None: the first value, at any depth, that looks
    like a credential, or a text under a key that names a secret (a number is none: ``token_budget: 4096``)."""
    items = obj.items() if isinstance(obj, dict) else ((None, v) for v in obj) if isinstance(obj, list) else ()
    for k, v in items:
        name = where.rstrip(".") if k is None else f"{where}{k}"
        named = k is not None and SECRET_KEY.search(str(k)) and not str(k).endswith("_env")
        if looks_like_secret(v) or named and isinstance(v, str) and v:
            return (
                f"parameter '{name}' looks like a secret; secrets come from the environment only: export it "
                f"(e.g. MY_API_KEY=...) and name the variable with '{name.rpartition('.')[2]}_env' where the parameter "
                "supports it"
            )
        if found := check_secrets(v, where if k is None else f"{name}."):
            return found
    return None
