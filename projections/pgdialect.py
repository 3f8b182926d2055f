"""SQLAlchemy's psycopg dialect, set up in one round trip instead of nine (projections/db.py names it for PostgreSQL).

On its first connection SQLAlchemy asks the server, one statement each inside a transaction, for its version, the
current schema, the default isolation level, `standard_conforming_strings` and the hstore type. Here the version and
`standard_conforming_strings` come from what the server reported when the connection was made, the schema and the
isolation level from one autocommit query, and hstore (which the read models never use) is not looked up
(`use_native_hstore=False` where the engine is made). Loaded by SQLAlchemy's dialect registry only for PostgreSQL.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg


class LedgerDialect(PGDialect_psycopg):
    """psycopg's dialect, its first-connection facts read in one query."""

    supports_statement_cache = True
    _facts: tuple[str, str] = ("public", "read committed")

    def initialize(self, connection: Any) -> None:
        """The schema and isolation level in one statement, outside a transaction; then SQLAlchemy's own setup."""
        driver = connection.connection.driver_connection
        was = driver.autocommit
        driver.autocommit = True  # the first connection is idle here: no BEGIN for one read of two settings
        try:
            with driver.cursor() as cur:
                cur.execute("SELECT current_schema(), current_setting('transaction_isolation')")
                row = cur.fetchone()
        finally:
            driver.autocommit = was
        self._facts = (row[0], row[1])
        super().initialize(connection)

    def _get_server_version_info(self, connection: Any) -> tuple[int, ...]:
        v = int(connection.connection.driver_connection.info.server_version)  # 180001 (18.1), 90624 (9.6.24)
        major = v // 10000
        return (major, v % 10000) if major >= 10 else (major, v // 100 % 100, v % 100)

    def _get_default_schema_name(self, connection: Any) -> str:
        return self._facts[0]

    def get_default_isolation_level(self, dbapi_conn: Any) -> Any:
        return self._facts[1].upper()

    def _set_backslash_escapes(self, connection: Any) -> None:
        value = connection.connection.driver_connection.info.parameter_status("standard_conforming_strings")
        if value is None:  # not reported: ask, as SQLAlchemy does
            super()._set_backslash_escapes(connection)
            return
        self._backslash_escapes = value == b"off"
