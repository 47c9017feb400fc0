"""Keeping secrets out of logs: URLs lose their credentials, API-key-like strings are masked.

Webhook URLs often carry a token (`?token=...`, `https://user:pass@host/`, a Slack-style
secret path segment), and provider errors quote API keys. Logs are read by more people and
kept longer than the config, so every log line the server writes goes through
`RedactingFilter` (installed on the server's log handlers), and code that logs a URL on
purpose passes it through `redact_url` first.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"

# Prefixes of well-known credentials: OpenAI/Anthropic (sk-, sk-ant-), Tavily, LangSmith,
# GitHub, Slack, AWS access keys, Google API keys, Hugging Face, Groq.
_KEY_PATTERN = re.compile(
    r"\b(sk-(?:ant-|proj-)?|tvly-|lsv2_(?:pt|sk)_|gh[pousr]_|xox[abpors]-|AKIA|AIza|hf_|gsk_)"
    r"[A-Za-z0-9_\-]{8,}"
)
_BEARER = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)
_SECRET_ASSIGNMENT = re.compile(
    r"\b((?:api[_-]?key|access[_-]?token|token|secret|password|passwd|signature|sig)"
    r"[\"']?\s*[=:]\s*[\"']?)[^\s\"'&,;]{4,}",
    re.IGNORECASE,
)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s\"'<>]+")
# A path segment of 16+ characters mixing letters and digits reads like a token
# (hooks.slack.com/services/T.../B.../<secret>), not like a route name.
_TOKEN_SEGMENT = re.compile(r"^(?=.*[0-9])(?=.*[A-Za-z])[A-Za-z0-9_\-]{16,}$")


def redact_url(url: str) -> str:
    """`url` without its userinfo, query values, fragment and token-like path segments."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return _redact_loose(url)
    if not parts.scheme or not host:
        return _redact_loose(url)
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc = f"{netloc}:{port}"
    if parts.username is not None or parts.password is not None:
        netloc = f"{MASK}@{netloc}"
    path = "/".join(
        MASK if _TOKEN_SEGMENT.match(segment) else segment for segment in parts.path.split("/")
    )
    query = urlencode(
        [(key, MASK) for key, _ in parse_qsl(parts.query, keep_blank_values=True)], safe="*"
    )
    return urlunsplit((parts.scheme, netloc, path, query, ""))


def _redact_loose(text: str) -> str:
    """For a URL that does not parse: drop everything after the path."""
    return re.split(r"[?#]", text, maxsplit=1)[0] + (f"?{MASK}" if re.search(r"[?#]", text) else "")


def redact_text(text: str) -> str:
    """`text` with URLs redacted and anything that looks like a credential masked."""
    text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    text = _KEY_PATTERN.sub(lambda m: m.group(1) + MASK, text)
    text = _BEARER.sub(lambda m: f"{m.group(1)} {MASK}", text)
    return _SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + MASK, text)


class RedactingFilter(logging.Filter):
    """Rewrites each record's message (and traceback text) through `redact_text`.

    A handler filter sees every record the handler emits, including those propagated from
    libraries (httpx logs each request's full URL at INFO).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is logging's problem, not ours
            return True
        record.msg = redact_text(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        return True


_LOGGERS = ("", "uvicorn", "uvicorn.error", "uvicorn.access")


def install_log_redaction() -> None:
    """Put `RedactingFilter` on the handlers of the root and uvicorn loggers (once each)."""
    for name in _LOGGERS:
        for handler in logging.getLogger(name).handlers:
            if not any(isinstance(f, RedactingFilter) for f in handler.filters):
                handler.addFilter(RedactingFilter())
