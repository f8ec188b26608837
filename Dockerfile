# semisync: one image for the master and the slaves (the command picks the preset: both run one server).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /app
COPY pyproject.toml setup.py README.md ./
COPY protocol ./protocol
COPY binlog ./binlog
COPY engine ./engine
COPY semisync ./semisync
COPY server ./server
COPY master ./master
COPY slave ./slave
COPY node ./node
COPY config ./config
COPY cli ./cli
COPY pipeline ./pipeline
# gcc + libc6-dev + zlib1g-dev + libsqlite3-dev only while pip builds the compiled parts (engine/_lexer.c, engine/_walframes.c, binlog/_syncer.c,
# protocol/_eventscan.c, protocol/_framing.c, protocol/_rows.c, slave/_receiver.c, pipeline/_binlog_scan.c), removed in the same layer; without them the
# image would run their pure-Python fallbacks.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev zlib1g-dev libsqlite3-dev \
    && pip install --no-cache-dir . \
    && (cd / && python -c "import engine._lexer, engine._walframes, binlog._syncer, protocol._eventscan, protocol._framing, protocol._rows, slave._receiver") \
    && apt-get purge -y --auto-remove gcc libc6-dev zlib1g-dev libsqlite3-dev \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 --shell /usr/sbin/nologin semisync \
    && mkdir -p /data \
    && chown semisync:semisync /data

USER semisync
VOLUME ["/data"]
EXPOSE 3306 9104

# Healthy when the daemon answers on its MySQL port (SEMISYNC_PORT, default 3306).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["sh", "-c", "semisync status --host 127.0.0.1 --port ${SEMISYNC_PORT:-3306} --user root --password \"$SEMISYNC_ROOT_PASSWORD\" >/dev/null"]

ENTRYPOINT ["semisync"]
CMD ["master", "--datadir", "/data", "--bind-address", "0.0.0.0"]
