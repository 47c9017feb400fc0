"""One serving process per SQLite file, held with an OS lock for as long as the process lives.

The run manager assumes it owns every unfinished run in its database. A second server on the
same file broke that: its start-up recovery marked the first one's live runs `error`,
cancelling through it found nothing to cancel, and the first later overwrote the status. An
exclusive `flock` on `<db>.lock` makes the second process stop before it touches anything.
The OS drops the lock when the process ends, however it ends, so a crash never leaves a
stale lock behind; the lock file itself may stay (it only holds the owner's pid).
"""

from __future__ import annotations

import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no flock; serve unlocked there
    fcntl = None  # type: ignore[assignment]


class DatabaseInUse(Exception):
    """Another process holds the database's lock."""

    def __init__(self, db: Path, owner_pid: str | None) -> None:
        owner = f"another process (pid {owner_pid})" if owner_pid else "another process"
        super().__init__(f"database {db} is in use by {owner}; stop it or pass another --db")


def lock_path(db: str | Path) -> Path:
    """`<db>.lock` beside the real file, so two spellings of one path share a lock."""
    resolved = Path(db).resolve()
    return resolved.with_name(resolved.name + ".lock")


class DatabaseLock:
    """The held lock of one database file; `release()` (or process exit) gives it up."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd

    @classmethod
    def acquire(cls, db: str | Path) -> DatabaseLock:
        """Take the database's lock now; raise `DatabaseInUse` if another process has it."""
        if str(db) == ":memory:" or fcntl is None:
            return cls(None)
        path = lock_path(db)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(fd, 32, 0).decode(errors="replace").strip() or None
            os.close(fd)
            raise DatabaseInUse(Path(db), owner) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(fd)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the only descriptor releases the lock
            self._fd = None

    def __enter__(self) -> DatabaseLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()
