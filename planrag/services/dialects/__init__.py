"""The use cases only the HTTP API dialects of spec 000, 003 and 004 serve (their routers in
`planrag/app/routers/spec*.py`): JSON documents with spec 000 ids, metadata-rich document search,
spec 003's retrieval pipeline, spec 000's prompt and rerank services and collection view.

Nothing outside the dialects imports from here; these services build on the shared ones
(`planrag/services/retrieval.py`, `ingestion.py`, `access.py` …), never the other way round.
`DialectServices` (`dialect_services.py`) is the bundle the runtime wires."""
