# solrace's server image: the package is installed when the image is built (pinned by
# deploy/constraints.txt), never when a container starts. It runs as a non-root user and
# keeps only its spill file (writes Redis could not take at shutdown) under /data.
FROM python:3.11-slim

WORKDIR /src
COPY pyproject.toml README.md deploy/constraints.txt ./
COPY protocol ./protocol
COPY server ./server
COPY client ./client
COPY solrace ./solrace
RUN pip install --no-cache-dir --constraint constraints.txt . \
    && useradd --system --uid 10001 --home-dir /data --create-home solrace \
    && rm -rf /src

USER solrace
WORKDIR /data
ENV SOLRACE_HOST=0.0.0.0 \
    SOLRACE_PORT=8765 \
    SOLRACE_SPILL_FILE=/data/solrace-spill.jsonl \
    PYTHONUNBUFFERED=1
EXPOSE 8765
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=2)"]
STOPSIGNAL SIGTERM
CMD ["solrace", "serve"]
