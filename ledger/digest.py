"""SHA-256, SHA-1 and UUID version 5 without importing hashlib.

hashlib loads its OpenSSL binding (about 3 ms), which is a tenth of what a one-shot write adds to its
libraries' import (issue 17). CPython's own small modules compute the same digests; hashlib is the fallback
where they are missing. `uuid5` is `uuid.uuid5` over that SHA-1 (uuid.uuid5 imports hashlib on first call).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from uuid import UUID

if TYPE_CHECKING:
    from hashlib import sha1, sha256
else:
    try:
        from _sha256 import sha256  # CPython 3.11
    except ImportError:  # pragma: no cover - CPython 3.12+ names it _sha2; other Pythons use hashlib's
        try:
            from _sha2 import sha256
        except ImportError:
            from hashlib import sha256
    try:
        from _sha1 import sha1
    except ImportError:  # pragma: no cover
        from hashlib import sha1

__all__ = ["sha1", "sha256", "uuid5"]


def uuid5(namespace: UUID, name: str) -> UUID:
    """The same UUID as `uuid.uuid5(namespace, name)`."""
    digest: Any = sha1(namespace.bytes + name.encode("utf-8")).digest()
    return UUID(bytes=digest[:16], version=5)
