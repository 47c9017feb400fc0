# One image for every process of a deployment: `olg serve`, `olg worker`, `olg db upgrade`.
# See docs/deploy.md; compose.yaml runs it with PostgreSQL and Redis.
#
#   docker build -t open-langgraph .                                  # the bundled agents too
#   docker build -t open-langgraph --build-arg OLG_EXTRAS=postgres .  # the server alone
#
# The project is installed by scripts/_bootstrap.sh, the script CI's ./scripts/test installs
# with, so the image holds what CI tests. OLG_EXTRAS is the extras argument that script gets:
# `postgres` (PostgreSQL and Redis: queue mode) plus, by default, `bundled`: the agents of
# open_langgraph.json with their tools and the embedded default model (local/qwen2.5-coder-1.5b,
# 1.1 GB of pinned, hash-checked parts), so they answer with nothing to download and no API
# key, as after ./scripts/serve. With `postgres` alone the image serves your own graphs (mount
# or copy a langgraph.json and its code in an image built on this one). Nothing is downloaded
# at run time.
# The store's semantic search (store.index) works on SQLite as is (this Python loads sqlite-vec;
# elsewhere the `vector` extra brings pysqlite3, which can);
# on PostgreSQL the database server needs pgvector (compose.yaml's image has it). Offline
# embeddings (`local:all-minilm-l6-v2`) need the `embeddings-local` extra: see docs/store.md.
# `observability` (the Langfuse and OpenTelemetry SDKs, imported only when LANGFUSE_LOGGING or
# OTEL_EXPORTER_OTLP_ENDPOINT turn them on) is in by default: see docs/observability.md.
FROM python:3.11-slim-bookworm

# libgomp1: the OpenMP runtime the llama.cpp binding of the embedded model links against.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 \
    && rm -rf /var/lib/apt/lists/*

ENV OLG_VENV=/opt/olg/venv \
    PATH=/opt/olg/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    OLG_HOST=0.0.0.0 \
    OLG_PORT=8123 \
    OLG_DB=/var/lib/olg/olg.db \
    OLG_MODEL_CACHE=/var/lib/olg/models
WORKDIR /app

# Dependencies first, in a layer that changes only with pyproject.toml. The project is
# installed editable (what _bootstrap.sh does), so the source copied afterwards is what runs.
# The README is read into the package metadata only; the real one arrives with the source.
# Bytecode is compiled now because the runtime user cannot write into the virtualenv.
ARG OLG_EXTRAS=postgres,bundled,observability
COPY pyproject.toml ./
COPY scripts/_bootstrap.sh scripts/
COPY src/open_langgraph/__init__.py src/open_langgraph/
RUN touch README.md \
    && UV_NO_CACHE=1 UV_COMPILE_BYTECODE=1 PIP_NO_CACHE_DIR=1 \
    bash scripts/_bootstrap.sh "$OLG_EXTRAS"

COPY . .
RUN python -m compileall -q src graphs examples \
    && useradd --uid 10001 --user-group --no-create-home --home-dir /var/lib/olg \
    --shell /usr/sbin/nologin olg \
    && mkdir -p /var/lib/olg/models \
    && chown -R olg:olg /var/lib/olg

# /var/lib/olg holds the SQLite database of `olg serve` without --database-url and the
# embedded model, assembled there from its installed parts on first use (about 9 s here):
# mount a volume on it so both survive the container.
USER olg
EXPOSE 8123
CMD ["olg", "serve"]
