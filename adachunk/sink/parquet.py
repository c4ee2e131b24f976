"""``chunks.parquet``: chunk records streamed into one Parquet file with the record schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..datatypes import METRIC_KEYS
from .files import close_and_replace, temp_path, write_error
from .records import arrow_schema


class ParquetWriter:
    """Streams chunk records into a Parquet file (:func:`~adachunk.sink.records.arrow_schema`),
    written under a temporary name and renamed on :meth:`close`.

    Raises:
        InputError: ``ADA307`` when the file cannot be written.
    """

    def __init__(self, path: Path):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.pa, self.path = pa, path
        self.tmp = temp_path(path)
        self.schema = arrow_schema()
        try:
            self.writer = pq.ParquetWriter(str(self.tmp), self.schema)
        except OSError as exc:
            raise write_error(path, exc) from None

    def add(self, records: list[dict[str, Any]]) -> None:
        """Append one document's records."""
        if not records:
            return
        cols = {f.name: [r.get(f.name) for r in records] for f in self.schema}
        cols["scores"] = [{k: (r.get("scores") or {}).get(k) for k in METRIC_KEYS} for r in records]
        try:
            self.writer.write_table(self.pa.table(cols, schema=self.schema))
        except OSError as exc:
            raise write_error(self.path, exc) from None

    def close(self) -> None:
        """Finish the file and move it into place."""
        close_and_replace(self.writer.close, self.tmp, self.path)
