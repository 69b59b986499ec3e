// Readable graph drawings: node colours by entity type (one colour per type, with a legend), and
// edge labels placed so no two overlap. After the layout, each edge label is tried at its
// midpoint, then shifted above/below/aside; the first spot free of the labels already placed
// (and, if possible, of nodes and their names) is kept. A label with no free spot is hidden and
// shown when its edge is hovered or one of its nodes is selected (placed first then).

import type { Core, EdgeSingular } from "cytoscape";

/** Spec 004's entity types, each with its own colour; any other type gets OTHER_COLOUR. */
export const TYPE_COLOURS: Record<string, string> = {
  PERSON: "#2f5bea",
  ORGANIZATION: "#e8590c",
  PRODUCT: "#2b8a3e",
  PLACE: "#862e9c",
  EVENT: "#c92a2a",
  DATE: "#0b7285",
  CONCEPT: "#868e96",
};
export const OTHER_COLOUR = "#495057";

export function colourOf(type: string): string {
  return TYPE_COLOURS[type.toUpperCase()] ?? OTHER_COLOUR;
}

export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export function overlaps(a: Box, b: Box): boolean {
  return a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
}

const GAP = 2;
const LABEL_ONLY = {
  includeNodes: false,
  includeEdges: false,
  includeLabels: true,
  includeMainLabels: true,
  includeSourceLabels: false,
  includeTargetLabels: false,
  includeOverlays: false,
  includeUnderlays: false,
} as const;

const shift = (box: Box, dx: number, dy: number): Box => ({
  x1: box.x1 + dx, y1: box.y1 + dy, x2: box.x2 + dx, y2: box.y2 + dy,
});

/** Offsets to try for a label of this size: the midpoint, then above/below, then aside. */
function candidates(w: number, h: number): [number, number][] {
  const up = h + GAP;
  const side = w / 2 + GAP;
  return [
    [0, 0], [0, -up], [0, up], [0, -2 * up], [0, 2 * up],
    [side, 0], [-side, 0], [side, -up], [-side, -up], [side, up], [-side, up],
  ];
}

function labelBox(edge: EdgeSingular): Box | null {
  const box = edge.boundingBox(LABEL_ONLY);
  if (!(box.w > 0 && box.h > 0)) return null;
  return { x1: box.x1, y1: box.y1, x2: box.x2, y2: box.y2 };
}

/** Places every edge label (the `priority` edges first) and hides those with no free spot.
 *  Returns how many were hidden. */
export function placeEdgeLabels(cy: Core, priority: Set<string> = new Set()): number {
  cy.batch(() => {
    cy.edges().removeClass("label-hidden");
    cy.edges().data({ dx: 0, dy: 0 });
  });
  const nodes: Box[] = cy.nodes().map((n) => {
    const b = n.boundingBox({ includeLabels: true, includeOverlays: false });
    return { x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2 };
  });
  const edges = cy.edges().toArray() as EdgeSingular[];
  edges.sort((a, b) => Number(priority.has(b.id())) - Number(priority.has(a.id())));
  const placed: Box[] = [];
  const offsets = new Map<string, [number, number] | null>();
  for (const edge of edges) {
    const base = labelBox(edge);
    if (base === null) continue;
    const tries = candidates(base.x2 - base.x1, base.y2 - base.y1);
    const free = (avoidNodes: boolean) =>
      tries.find(([dx, dy]) => {
        const box = shift(base, dx, dy);
        return !placed.some((p) => overlaps(p, box)) && !(avoidNodes && nodes.some((n) => overlaps(n, box)));
      });
    const spot = free(true) ?? free(false) ?? null;
    offsets.set(edge.id(), spot);
    if (spot) placed.push(shift(base, spot[0], spot[1]));
  }
  let hidden = 0;
  cy.batch(() => {
    for (const edge of edges) {
      const spot = offsets.get(edge.id());
      if (spot === undefined) continue;
      if (spot === null) {
        edge.addClass("label-hidden");
        hidden += 1;
      } else {
        edge.data({ dx: spot[0], dy: spot[1] });
      }
    }
  });
  return hidden;
}

/** The rendered boxes of the edge labels shown (for the page's tests and for debugging). */
export function shownLabelBoxes(cy: Core): (Box & { id: string })[] {
  return cy
    .edges()
    .filter((e) => !e.hasClass("label-hidden"))
    .map((e) => {
      const b = e.renderedBoundingBox(LABEL_ONLY);
      return { id: e.id(), x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2 };
    })
    .filter((b) => b.x2 > b.x1 && b.y2 > b.y1);
}
