"""Output sinks: chunk records (JSONL/Parquet) and vector stores (LanceDB embedded, Qdrant)."""
