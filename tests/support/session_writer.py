"""An application writing through a real SDK session until told to stop (for online tests).

    python -m tests.support.session_writer sql|redis URL PREFIX_OR_TABLE FOLDER

Once FOLDER/go exists, appends one item at a time to sessions ``session-0`` ..
``session-9`` and reads each session back, in a loop, until FOLDER/stop exists;
creates FOLDER/running after its first append and read; then prints
``{"appended": [...], "errors": [...], "reads": N}`` on stdout. (Started early,
it is ready to write as soon as FOLDER/go appears.)
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

# Between two writes: about 100 writes a second, far more than an agent writes,
# without taking a whole core from the migration under test.
PAUSE = 0.005


async def _loop(kind: str, url: str, prefix: str, folder: Path) -> dict[str, Any]:
    appended: list[str] = []
    errors: list[str] = []
    reads = 0
    if kind == "redis":
        import redis.asyncio as aioredis
        from agents.extensions.memory import RedisSession

        client = aioredis.Redis.from_url(url)

        def session(sid: str) -> Any:
            return RedisSession(sid, redis_client=client, key_prefix=prefix)

        close = client.aclose
    else:
        from agents.extensions.memory import SQLAlchemySession
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine(url)

        def session(sid: str) -> Any:
            return SQLAlchemySession(sid, engine=engine)

        close = engine.dispose
    go, running, stop = folder / "go", folder / "running", folder / "stop"
    while not go.exists() and not stop.exists():
        await asyncio.sleep(0.01)
    n = 0
    while not stop.exists():
        sid = f"session-{n % 10}"
        text = f"appended-{n}"
        try:
            await session(sid).add_items([{"role": "user", "content": text}])
            appended.append(text)
            items = await session(sid).get_items(limit=3)
            reads += 1
            if {"role": "user", "content": text} not in items:
                errors.append(f"{text} not read back")
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        if n == 0:
            running.touch()
        n += 1
        await asyncio.sleep(PAUSE)
    await close()
    return {"appended": appended, "errors": errors, "reads": reads}


def main() -> int:
    kind, url, prefix, folder = sys.argv[1:5]
    print(json.dumps(asyncio.run(_loop(kind, url, prefix, Path(folder)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
