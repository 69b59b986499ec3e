// 그래프: an entity's neighbourhood (hops selectable) drawn with Cytoscape.js; clicking a node
// lists the chunks it was extracted from. Loaded lazily (Cytoscape stays out of the first load).

import { useQuery } from "@tanstack/react-query";
import cytoscape, { type Core } from "cytoscape";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { useOutletContext } from "react-router";

import { getEntitySources, getGraph } from "../../api/endpoints";
import type { GraphNode, GraphView } from "../../api/types";
import { ErrorMessage } from "../../components/ErrorMessage";
import { useT } from "../../i18n/i18n";
import { ko, type MessageKey } from "../../i18n/messages";
import { colourOf, placeEdgeLabels, shownLabelBoxes } from "./graphLabels";
import type { KbContext } from "./KbLayout";

export function toElements(view: GraphView): cytoscape.ElementDefinition[] {
  const ids = new Set(view.nodes.map((n) => n.id));
  return [
    ...view.nodes.map((n) => ({
      data: {
        id: n.id,
        label: n.name,
        type: n.type,
        colour: colourOf(n.type),
        size: 18 + Math.min(30, 4 * Math.sqrt(n.sources)),
        center: n.id === view.center ? 1 : 0,
      },
    })),
    ...view.edges
      .filter((e) => ids.has(e.source) && ids.has(e.target))
      .map((e, i) => ({
        data: { id: `e${i}`, source: e.source, target: e.target, label: e.type, dx: 0, dy: 0 },
      })),
  ];
}

export default function GraphTab() {
  const t = useT();
  const { kb } = useOutletContext<KbContext>();
  const [entityInput, setEntityInput] = useState("");
  const [entity, setEntity] = useState<string | null>(null);
  const [hops, setHops] = useState(1);
  const [selected, setSelected] = useState<GraphNode | null>(null);
  const graph = useQuery({
    queryKey: ["graph", kb.id, entity, hops],
    queryFn: () => getGraph(kb.id, entity, hops),
    enabled: kb.graph_backend !== "none",
  });
  const sources = useQuery({
    queryKey: ["entity-sources", kb.id, selected?.id],
    queryFn: () => getEntitySources(kb.id, selected!.id),
    enabled: selected !== null,
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSelected(null);
    setEntity(entityInput.trim() || null);
  };

  if (kb.graph_backend === "none") return <p className="muted">{t("graph.none")}</p>;
  return (
    <div className="graph-tab">
      <h2>{t("kb.graph")}</h2>
      <form className="row" onSubmit={submit}>
        <label>
          {t("graph.entity")}
          <input name="entity" value={entityInput} data-testid="graph-entity"
            onChange={(e) => setEntityInput(e.target.value)} />
        </label>
        <label>
          {t("graph.hops")}
          <select value={hops} onChange={(e) => setHops(Number(e.target.value))}>
            {[1, 2, 3].map((h) => <option key={h} value={h}>{h}</option>)}
          </select>
        </label>
        <button type="submit" className="primary">{t("graph.show")}</button>
      </form>
      <ErrorMessage error={graph.error} />
      {graph.data?.truncated && <p className="warn">{t("graph.truncated")}</p>}
      {graph.data?.nodes.length === 0 && <p className="muted">{t("graph.empty")}</p>}
      <p className="muted small">{t("graph.clickNode")}</p>
      {graph.data && (
        <GraphCanvas view={graph.data}
          onSelect={(id) => setSelected(graph.data.nodes.find((n) => n.id === id) ?? null)} />
      )}
      {graph.data && <Legend view={graph.data} />}
      {graph.data && (
        <ul className="entity-list" data-testid="entity-list">
          {[...graph.data.nodes].sort((a, b) => b.sources - a.sources).map((n) => (
            <li key={n.id}>
              <button type="button" className={selected?.id === n.id ? "chip active" : "chip"}
                onClick={() => setSelected(n)}>
                {n.name} <span className="muted small">{n.type} · {n.sources}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {graph.data && graph.data.edges.length > 0 && <Relations view={graph.data} />}
      {selected && (
        <section data-testid="entity-sources">
          <h3>{t("graph.sources", { name: selected.name })}</h3>
          <ErrorMessage error={sources.error} />
          <ol className="passages">
            {sources.data?.sources.map((s) => (
              <li key={s.chunk_id} className="passage">
                <div className="muted small">{s.document_name}</div>
                <pre className="chunk-text">{s.text}</pre>
              </li>
            ))}
          </ol>
        </section>
      )}
    </div>
  );
}

/** The view's relations, each with the sentence it was read from and who found it. */
function Relations({ view }: { view: GraphView }) {
  const t = useT();
  const names = new Map(view.nodes.map((n) => [n.id, n.name]));
  return (
    <section>
      <h3>{t("graph.relations")}</h3>
      <ul className="relation-list" data-testid="relation-list">
        {view.edges.map((e, i) => (
          <li key={i} data-testid="relation" data-type={e.type}>
            <span>
              {names.get(e.source) ?? e.source} —{e.type}→ {names.get(e.target) ?? e.target}
            </span>
            {e.sentence && <q className="muted small" data-testid="relation-sentence">{e.sentence}</q>}
            {e.extracted_by && (
              <span className="chip small" data-testid="relation-extracted-by">
                {t("graph.extractedBy", { by: e.extracted_by })}
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** One swatch per entity type in the view, in the colour its nodes are drawn with. */
function Legend({ view }: { view: GraphView }) {
  const t = useT();
  const typeName = (type: string) => {
    const key = `entityType.${type.toUpperCase()}`;
    return key in ko ? t(key as MessageKey) : type;
  };
  const counts = new Map<string, number>();
  for (const n of view.nodes) counts.set(n.type, (counts.get(n.type) ?? 0) + 1);
  if (counts.size === 0) return null;
  return (
    <ul className="graph-legend" data-testid="graph-legend">
      {[...counts].map(([type, count]) => (
        <li key={type} data-testid="legend-item" data-type={type}>
          <span className="swatch" data-testid="legend-swatch" style={{ background: colourOf(type) }} />
          {typeName(type)} ({count})
        </li>
      ))}
    </ul>
  );
}

const LAYOUT = {
  name: "cose",
  animate: false,
  randomize: false,
  fit: true,
  padding: 40,
  // Room for the labels: longer edges and stronger repulsion than cose's defaults (32, 2048).
  idealEdgeLength: () => 190,
  nodeRepulsion: () => 90000,
  nodeOverlap: 40,
  gravity: 0.4,
  numIter: 2500,
  componentSpacing: 120,
} as const;

/** An entity's neighbourhood in rings around it (one per hop: no neighbour sits on the centre's
 *  labels); the most connected entities, with no centre, by force-directed layout. */
function layoutFor(cy: Core, view: GraphView): cytoscape.LayoutOptions {
  if (view.nodes.length < 2) return { name: "grid", fit: true, padding: 40 };
  const center = view.center ? cy.getElementById(view.center) : null;
  if (!center || center.empty()) return LAYOUT;
  const hops = new Map<string, number>();
  cy.elements().bfs({
    roots: center,
    directed: false,
    visit: (node, _edge, _previous, _index, depth) => {
      hops.set(node.id(), depth);
    },
  });
  const deepest = Math.max(0, ...hops.values());
  return {
    name: "concentric",
    fit: true,
    padding: 40,
    animate: false,
    minNodeSpacing: 70,
    concentric: (node) => deepest + 1 - (hops.get(node.id()) ?? deepest + 1),
    levelWidth: () => 1,
  } as cytoscape.ConcentricLayoutOptions;
}

function GraphCanvas(props: { view: GraphView; onSelect: (id: string) => void }) {
  const container = useRef<HTMLDivElement>(null);
  const onSelect = useRef(props.onSelect);
  onSelect.current = props.onSelect;
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const cy: Core = cytoscape({
      container: element,
      elements: toElements(props.view),
      maxZoom: 1.6,
      minZoom: 0.2,
      style: [
        {
          selector: "node",
          style: {
            label: "data(label)",
            "background-color": "data(colour)",
            width: "data(size)",
            height: "data(size)",
            "font-size": 12,
            "text-valign": "bottom",
            "text-margin-y": 3,
          },
        },
        { selector: "node[center = 1]", style: { "border-width": 3, "border-color": "#111" } },
        {
          selector: "edge",
          style: {
            label: "data(label)",
            "font-size": 10,
            color: "#343a40",
            "text-margin-x": (edge: cytoscape.EdgeSingular) => Number(edge.data("dx")),
            "text-margin-y": (edge: cytoscape.EdgeSingular) => Number(edge.data("dy")),
            "text-background-color": "#fcfcfd",
            "text-background-opacity": 0.9,
            "text-background-padding": "1px",
            width: 1.5,
            "line-color": "#adb5bd",
            "target-arrow-color": "#adb5bd",
            "target-arrow-shape": "triangle",
            "curve-style": "bezier",
          },
        },
        { selector: "edge.label-hidden", style: { "text-opacity": 0, "text-background-opacity": 0 } },
        {
          selector: "edge.hover",
          style: { "text-opacity": 1, "text-background-opacity": 1, "z-index": 10, "line-color": "#495057" },
        },
      ],
    });
    const report = () => {
      element.dataset.labelBoxes = JSON.stringify(shownLabelBoxes(cy));
      element.dataset.hiddenLabels = String(cy.edges(".label-hidden").length);
      element.dataset.nodeColours = JSON.stringify(
        cy.nodes().map((n) => ({
          name: n.data("label"),
          type: n.data("type"),
          colour: n.style("background-color"),
        })),
      );
    };
    const place = (priority?: Set<string>) => {
      placeEdgeLabels(cy, priority);
      report();
    };
    cy.layout(layoutFor(cy, props.view)).run();
    place();
    cy.on("tap", "node", (event) => {
      onSelect.current(event.target.id());
      place(new Set(event.target.connectedEdges().map((e: cytoscape.EdgeSingular) => e.id())));
    });
    cy.on("mouseover", "edge", (event) => event.target.addClass("hover"));
    cy.on("mouseout", "edge", (event) => event.target.removeClass("hover"));
    return () => cy.destroy();
  }, [props.view]);
  return <div ref={container} className="graph-canvas" data-testid="graph-canvas"
    data-nodes={props.view.nodes.length} />;
}
