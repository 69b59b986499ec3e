"""SPARQL 1.1 endpoints: an embedded `pyoxigraph` store, or any SPARQL 1.1 protocol server by URL
(Apache Jena Fuseki, `oxigraph serve`), with separate query and update URLs.

Values never become query text by string splicing: a query is a fixed template whose `$values`
marker is replaced by `VALUES` clauses of RDF terms (IRIs and typed literals) serialised by
pyoxigraph, which validates IRIs and escapes literals. Data is inserted as terms too.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Protocol

import httpx
import pyoxigraph as ox

from planrag.core.errors import StoreUnavailable

Term = ox.NamedNode | ox.Literal
Bindings = dict[str, list[Term]]
Row = dict[str, Any]

XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"


def render(template: str, bindings: Bindings, graph: ox.NamedNode | None = None) -> str:
    """The template with `$values` replaced by one `VALUES ?var { term … }` clause per binding
    and `$graph` by the named graph's IRI. Variable names come from code; every value is a term
    serialised by pyoxigraph. (The graph is a constant, not a VALUES variable: oxigraph scans
    every graph for `GRAPH ?g`, 100× slower.)"""
    clauses = []
    for name, terms in bindings.items():
        if not name.isidentifier():
            raise ValueError(f"bad SPARQL variable name {name!r}")
        clauses.append(f"VALUES ?{name} {{ {' '.join(str(t) for t in terms)} }}")
    text = template.replace("$values", " ".join(clauses))
    return text.replace("$graph", str(graph)) if graph is not None else text


def render_rows(
    template: str, names: tuple[str, ...], rows: list[tuple[Term, ...]], graph: ox.NamedNode
) -> str:
    """The template with `$values` replaced by one `VALUES (?a ?b …) { (t t …) … }` clause (rows
    of terms bound together, serialised by pyoxigraph) and `$graph` by the named graph's IRI."""
    if not all(name.isidentifier() for name in names):
        raise ValueError(f"bad SPARQL variable names {names!r}")
    if any(len(row) != len(names) for row in rows):
        raise ValueError("every VALUES row needs one term per variable")
    head = " ".join(f"?{name}" for name in names)
    body = " ".join(f"({' '.join(str(t) for t in row)})" for row in rows)
    return template.replace("$values", f"VALUES ({head}) {{ {body} }}").replace(
        "$graph", str(graph)
    )


def shown(bindings: Bindings) -> dict[str, list[str]]:
    """Bindings as plain values, for query metadata."""
    return {name: [t.value for t in terms] for name, terms in bindings.items()}


def _python(term: Any) -> Any:
    if isinstance(term, ox.Literal) and term.datatype.value == XSD_INTEGER:
        return int(term.value)
    return term.value


class SparqlEndpoint(Protocol):
    def select(self, query: str) -> list[Row]:
        """Rows of variable → Python value (IRIs as strings, xsd:integer as int)."""
        ...

    def update(self, update: str) -> None: ...

    def insert(self, quads: list[ox.Quad]) -> None: ...

    def close(self) -> None: ...


class EmbeddedSparql:
    """A pyoxigraph store in a directory (one read-write process per directory), opened lazily."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._store: ox.Store | None = None
        self._lock = threading.Lock()

    def _open(self) -> ox.Store:
        with self._lock:
            if self._store is None:
                self._path.mkdir(parents=True, exist_ok=True)
                try:
                    self._store = ox.Store(str(self._path))
                except OSError as exc:
                    raise StoreUnavailable(
                        f"the graph store at {self._path} cannot be opened ({exc}); is another"
                        " planrag process using this data dir? Use a SPARQL server"
                        " (PLANRAG_SPARQL__QUERY_URL) for several processes"
                    ) from exc
            return self._store

    def select(self, query: str) -> list[Row]:
        solutions = self._open().query(query)
        assert isinstance(solutions, ox.QuerySolutions)
        names = [v.value for v in solutions.variables]
        rows = []
        for solution in solutions:
            row = {}
            for name in names:
                term = solution[name]
                if term is not None:
                    row[name] = _python(term)
            rows.append(row)
        return rows

    def update(self, update: str) -> None:
        self._open().update(update)

    def insert(self, quads: list[ox.Quad]) -> None:
        self._open().extend(quads)  # one transaction

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.flush()
                self._store = None


class RemoteSparql:
    """The SPARQL 1.1 protocol over HTTP: queries to `query_url`, updates to `update_url`
    (Fuseki: /{dataset}/query and /{dataset}/update; oxigraph serve: /query and /update)."""

    def __init__(
        self,
        query_url: str,
        update_url: str,
        *,
        user: str = "",
        password: str = "",
        timeout_s: float = 30.0,
    ) -> None:
        self._query_url = query_url
        self._update_url = update_url
        auth = httpx.BasicAuth(user, password) if user else None
        self._http = httpx.Client(timeout=timeout_s, auth=auth)

    def _post(self, url: str, form: dict[str, str], accept: str) -> httpx.Response:
        try:
            response = self._http.post(url, data=form, headers={"Accept": accept})
        except httpx.HTTPError as exc:
            raise StoreUnavailable(f"SPARQL endpoint {url} unreachable: {exc}") from exc
        if response.status_code >= 400:
            raise StoreUnavailable(
                f"SPARQL endpoint {url} answered {response.status_code}: {response.text[:300]}"
            )
        return response

    def select(self, query: str) -> list[Row]:
        response = self._post(self._query_url, {"query": query}, "application/sparql-results+json")
        rows = []
        for binding in response.json()["results"]["bindings"]:
            row = {}
            for name, term in binding.items():
                value: Any = term["value"]
                if term.get("datatype") == XSD_INTEGER:
                    value = int(value)
                row[name] = value
            rows.append(row)
        return rows

    def update(self, update: str) -> None:
        self._post(self._update_url, {"update": update}, "*/*")

    def insert(self, quads: list[ox.Quad]) -> None:
        if not quads:
            return
        body = " ".join(
            f"GRAPH {q.graph_name} {{ {q.subject} {q.predicate} {q.object} }}" for q in quads
        )
        self.update(f"INSERT DATA {{ {body} }}")

    def close(self) -> None:
        self._http.close()
