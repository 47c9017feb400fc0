"""`encryption.path`: what the database holds is what the user's handlers returned, what the
API returns is plaintext.

A live server with an `Encryption` whose handlers XOR with a per-tenant key (the tenant comes
from the `X-Encryption-Context` header, so reading data back with another context than it
was written with would give garbage). Driven through `langgraph_sdk`; then every row of every
table is read straight from the database (SQLite or PostgreSQL, `OLG_TEST_BACKEND`) and must
not contain the plaintext.
"""

from __future__ import annotations

import base64
import contextlib
import json
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from langgraph_sdk.client import LangGraphClient

from tests.fixtures.backend import POSTGRES, POSTGRES_REDIS, ServerDatabase, selected
from tests.fixtures.sdk import sdk_client
from tests.fixtures.server import ServerProcess, serving, write_config

pytestmark = pytest.mark.e2e

ENCRYPTION = """
import asyncio
import base64
import json

from langgraph_sdk import Encryption, EncryptionContext

encryption = Encryption()
KEYS = {"": b"default-key", "acme": b"acme-secret-key"}
PREFIX = "xor:"
PLAIN = {"owner"}


def _key(ctx: EncryptionContext) -> bytes:
    return KEYS[ctx.metadata.get("tenant", "")]


def _xor(data: bytes, key: bytes) -> bytes:
    return bytes(b ^ key[i % len(key)] for i, b in enumerate(data))


@encryption.encrypt.blob
async def encrypt_blob(ctx: EncryptionContext, blob: bytes) -> bytes:
    if ctx.metadata.get("slow"):
        await asyncio.sleep(0.001)  # as a call to a key service would
    return b"XOR" + _xor(blob, _key(ctx))


@encryption.decrypt.blob
async def decrypt_blob(ctx: EncryptionContext, blob: bytes) -> bytes:
    assert blob.startswith(b"XOR"), blob[:10]
    return _xor(blob[3:], _key(ctx))


@encryption.encrypt.json
async def encrypt_json(ctx: EncryptionContext, data: dict) -> dict:
    return {
        k: v if k in PLAIN else PREFIX + base64.b64encode(
            _xor(json.dumps(v).encode(), _key(ctx))
        ).decode()
        for k, v in data.items()
    }


@encryption.decrypt.json
async def decrypt_json(ctx: EncryptionContext, data: dict) -> dict:
    return {
        k: json.loads(_xor(base64.b64decode(v[len(PREFIX):]), _key(ctx)))
        if isinstance(v, str) and v.startswith(PREFIX)
        else v
        for k, v in data.items()
    }
"""

#: Plaintexts a test writes; none may be found in the database.
SECRETS = (
    "Zanzibar-thread-meta",
    "Quixote-name",
    "Marmalade-greeting",
    "Obsidian-run-meta",
    "Tangerine-assistant-meta",
    "Pumpernickel-config",
    "Gondola-request",
    "Saffron-answer",
    "Walrus-cron-input",
    "Cardamom-prompt",
)


def _tenant(name: str) -> dict[str, str]:
    context = base64.b64encode(json.dumps({"tenant": name}).encode()).decode()
    return {"X-Encryption-Context": context}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServerProcess]:
    (tmp_path / "encryption.py").write_text(ENCRYPTION)
    config = write_config(tmp_path, encryption={"path": "./encryption.py:encryption"})
    # Queue mode refuses encryption (test_queue_mode_refuses_it): its pass runs these tests on
    # PostgreSQL in one process, the other backend encryption has.
    backend = POSTGRES if selected() == POSTGRES_REDIS else None
    with serving(tmp_path, config, backend=backend) as server:
        yield server


@pytest.fixture
async def client(served: ServerProcess) -> AsyncIterator[LangGraphClient]:
    async with sdk_client(served.url, headers=_tenant("acme")) as lg_client:
        yield lg_client


def _stored_text(database: ServerDatabase) -> bytes:
    """Every value of every row of every table, as bytes (bytea and BLOB as they are)."""
    chunks: list[bytes] = []

    def add(value: Any) -> None:
        if isinstance(value, bytes | bytearray | memoryview):
            chunks.append(bytes(value))
        elif value is not None:
            chunks.append(json.dumps(value, default=str).encode())

    if not database.is_postgres:
        with contextlib.closing(sqlite3.connect(database.path)) as db:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            for table in tables:
                for row in db.execute(f'SELECT * FROM "{table}"'):
                    for value in row:
                        add(value)
    else:
        assert database.url is not None
        with psycopg.connect(database.url, autocommit=True) as db:
            tables = [
                r[0]
                for r in db.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                ).fetchall()
            ]
            for table in tables:
                for row in db.execute(f'SELECT * FROM "{table}"').fetchall():  # type: ignore[arg-type]
                    for value in row:
                        add(value)
    return b"\n".join(chunks)


async def test_the_api_returns_plaintext_and_the_database_holds_none(
    served: ServerProcess, client: LangGraphClient
) -> None:
    assistant = await client.assistants.create(
        "greeter",
        config={"configurable": {"note": "Pumpernickel-config"}},
        metadata={"label": "Tangerine-assistant-meta"},
    )
    thread = await client.threads.create(
        metadata={"topic": "Zanzibar-thread-meta", "owner": "alice"}
    )
    thread_id = thread["thread_id"]
    assert thread["metadata"] == {"topic": "Zanzibar-thread-meta", "owner": "alice"}

    parts = [
        part
        async for part in client.runs.stream(
            thread_id,
            assistant["assistant_id"],
            input={"name": "Quixote-name"},
            context={"greeting": "Marmalade-greeting"},
            metadata={"note": "Obsidian-run-meta"},
            stream_mode="values",
        )
    ]
    final = [p.data for p in parts if p.event == "values"][-1]
    assert final == {"name": "Quixote-name", "text": "Marmalade-greeting Quixote-name."}

    # Everything read back, from the stored records, checkpoints and run events.
    got = await client.assistants.get(assistant["assistant_id"])
    assert got["config"]["configurable"]["note"] == "Pumpernickel-config"
    assert got["metadata"] == {"label": "Tangerine-assistant-meta"}
    thread = await client.threads.get(thread_id)
    assert thread["metadata"]["topic"] == "Zanzibar-thread-meta"
    assert thread["values"] == final
    state = await client.threads.get_state(thread_id)
    assert state["values"] == final
    assert state["metadata"]["note"] == "Obsidian-run-meta"
    history = await client.threads.get_history(thread_id)
    assert history[0]["values"] == final
    (run,) = await client.runs.list(thread_id)
    assert run["metadata"]["note"] == "Obsidian-run-meta"
    assert run["metadata"]["topic"] == "Zanzibar-thread-meta"  # the thread's, merged in
    assert run["kwargs"]["input"] == {"name": "Quixote-name"}
    assert run["kwargs"]["context"]["greeting"] == "Marmalade-greeting"
    replayed = [
        p.data async for p in client.runs.join_stream(thread_id, run["run_id"], last_event_id="-1")
    ]
    assert final in replayed
    # A filter on a key the handler leaves in plaintext still matches.
    found = await client.threads.search(metadata={"owner": "alice"})
    assert [t["thread_id"] for t in found] == [thread_id]
    copied = await client.threads.copy(thread_id)
    assert (await client.threads.get_state(copied["thread_id"]))["values"] == final
    # A run's trace holds its prompts: sealed as its events are.
    chat = await client.threads.create()
    question = {"messages": [{"role": "user", "content": "What is Cardamom-prompt?"}]}
    chat_run = await client.runs.create(chat["thread_id"], "streaming_chat", input=question)
    await client.runs.join(chat["thread_id"], chat_run["run_id"])
    trace = await client.http.get(f"/threads/{chat['thread_id']}/runs/{chat_run['run_id']}/trace")
    prompts = [s["prompt"] for s in trace["spans"] if s["kind"] == "model"]
    assert prompts and prompts[0]["messages"][0]["content"] == "What is Cardamom-prompt?"

    stored = _stored_text(served.database)
    assert b"alice" in stored  # the dump sees the rows: the plaintext key is there
    for secret in SECRETS:
        assert secret.encode() not in stored, f"{secret} is stored in plaintext"


async def test_interrupts_resumes_and_crons_round_trip(
    served: ServerProcess, client: LangGraphClient
) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(thread_id, "hitl", input={"request": "Gondola-request"})
    waiting = await client.threads.get(thread_id)
    assert waiting["status"] == "interrupted"
    (interrupt,) = next(iter(waiting["interrupts"].values()))
    assert interrupt["value"] == {"question": "approve Gondola-request?"}
    done = await client.runs.wait(thread_id, "hitl", command={"resume": "Saffron-answer"})
    assert done["decision"] == "Gondola-request: Saffron-answer"

    cron = await client.crons.create_for_thread(
        thread_id, "counter", schedule="0 9 * * *", input={"count": 1, "note": "Walrus-cron-input"}
    )
    (found,) = await client.crons.search(thread_id=thread_id)
    assert found["cron_id"] == cron["cron_id"]
    assert found["payload"]["input"]["note"] == "Walrus-cron-input"

    stored = _stored_text(served.database)
    for secret in ("Gondola-request", "Saffron-answer", "Walrus-cron-input"):
        assert secret.encode() not in stored, f"{secret} is stored in plaintext"


async def test_data_is_decrypted_with_the_context_it_was_written_with(
    served: ServerProcess,
) -> None:
    """Written by tenant `acme` (its key), read back by a request naming no tenant; a blob
    handler that awaits (as a key service call would) works too."""
    slow = {"tenant": "acme", "slow": True}
    header = {"X-Encryption-Context": base64.b64encode(json.dumps(slow).encode()).decode()}
    async with sdk_client(served.url, headers=header) as writer:
        thread = await writer.threads.create(metadata={"topic": "Zanzibar-thread-meta"})
        await writer.runs.wait(thread["thread_id"], "greeter", input={"name": "Quixote-name"})

    async with sdk_client(served.url) as reader:
        state = await reader.threads.get_state(thread["thread_id"])
        assert state["values"]["text"] == "hello Quixote-name."
        assert (await reader.threads.get(thread["thread_id"]))["metadata"] == {
            "topic": "Zanzibar-thread-meta",
            "graph_id": "greeter",
            "assistant_id": state["metadata"]["assistant_id"],
        }
    assert b"Quixote-name" not in _stored_text(served.database)


async def test_a_malformed_context_header_is_a_422(served: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=served.url) as http:
        response = await http.post(
            "/threads", json={}, headers={"X-Encryption-Context": "not base64 json"}
        )
    assert response.status_code == 422
    assert "X-Encryption-Context" in response.json()["detail"]


def _serve(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "open_langgraph.cli",
            "serve",
            "--config",
            str(tmp_path / "open_langgraph.json"),
            "--db",
            str(tmp_path / "x.db"),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("./missing.py:encryption", "file './missing.py' does not exist"),
        ("./encryption.py:nothing", "has no attribute 'nothing'"),
        ("./encryption.py:KEYS", "is a dict, not a langgraph_sdk.Encryption"),
        ("./encryption.py", "must be 'path/to/file.py:attribute'"),
    ],
)
def test_a_bad_path_stops_start_up_with_one_line(tmp_path: Path, target: str, problem: str) -> None:
    (tmp_path / "encryption.py").write_text(ENCRYPTION)
    write_config(tmp_path, encryption={"path": target})
    completed = _serve(tmp_path)
    assert completed.returncode == 2, completed.stderr
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1, completed.stderr
    assert "`encryption.path`" in lines[0] or "`encryption`" in lines[0]
    assert problem in lines[0]


def test_an_encrypting_handler_without_its_decrypting_one_is_refused(tmp_path: Path) -> None:
    (tmp_path / "encryption.py").write_text(ENCRYPTION.replace("@encryption.decrypt.blob\n", ""))
    write_config(tmp_path, encryption={"path": "./encryption.py:encryption"})
    completed = _serve(tmp_path)
    assert completed.returncode == 2, completed.stderr
    assert "has @encrypt.blob but no @decrypt.blob" in completed.stderr


def test_queue_mode_refuses_it(tmp_path: Path) -> None:
    (tmp_path / "encryption.py").write_text(ENCRYPTION)
    write_config(tmp_path, encryption={"path": "./encryption.py:encryption"})
    completed = _serve(
        tmp_path,
        "--database-url",
        "postgresql://nobody@127.0.0.1:1/none",
        "--redis-url",
        "redis://127.0.0.1:1/0",
    )
    assert completed.returncode == 2, completed.stderr
    assert "not supported in queue mode" in completed.stderr
