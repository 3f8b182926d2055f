# PostgreSQL from Debian's packages, on loopback, in a throw-away data folder. Source this file.
PGPORT="${PGPORT:-54329}"

start_postgres() {
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql >/dev/null
  fi
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  PGDATA=$(mktemp -d /tmp/ledger-pg.XXXXXX)
  chown postgres "$PGDATA"
  su postgres -s /bin/sh -c "$PGBIN/initdb -D $PGDATA -A trust -U postgres --no-sync" >/dev/null
  su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $PGDATA -l $PGDATA/server.log -w -o '-c listen_addresses=127.0.0.1 -p $PGPORT -k $PGDATA -c fsync=off -c max_connections=200' start" >/dev/null
  export PGBIN PGDATA PGPORT
  echo "PostgreSQL $($PGBIN/postgres --version | awk '{print $3}') on 127.0.0.1:$PGPORT"
}

stop_postgres() {
  su postgres -s /bin/sh -c "$PGBIN/pg_ctl -D $PGDATA -m immediate stop" >/dev/null 2>&1 || true
  rm -rf "$PGDATA"
}
