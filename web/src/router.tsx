// Client routes. The server answers every non-API GET with index.html, so these deep links work.

import { lazy, Suspense, type ReactNode } from "react";
import { createBrowserRouter, type RouteObject } from "react-router";

import { Layout } from "./components/Layout";
import { AskPage } from "./pages/AskPage";
import { Dashboard } from "./pages/Dashboard";
import { DocumentsTab } from "./pages/kb/DocumentsTab";
import { KbLayout } from "./pages/kb/KbLayout";
import { PlaygroundTab } from "./pages/kb/PlaygroundTab";
import { SettingsTab } from "./pages/kb/SettingsTab";
import { NotFound } from "./pages/NotFound";
import { PlanInspector } from "./pages/PlanInspector";
import { SignIn } from "./pages/SignIn";
import { TraceDetail } from "./pages/TraceDetail";
import { TracesPage } from "./pages/TracesPage";

// Cytoscape is large: the graph view loads only when opened, outside the first-load bundle.
const GraphTab = lazy(() => import("./pages/kb/GraphTab"));
const suspended = (node: ReactNode) => <Suspense fallback={<p>…</p>}>{node}</Suspense>;

export const routes: RouteObject[] = [
  {
    path: "/",
    element: <Layout />,
    children: [
      { index: true, element: <Dashboard /> },
      {
        path: "kb/:kbId",
        element: <KbLayout />,
        children: [
          { index: true, element: <DocumentsTab /> },
          { path: "settings", element: <SettingsTab /> },
          { path: "test", element: <PlaygroundTab /> },
          { path: "graph", element: suspended(<GraphTab />) },
        ],
      },
      { path: "ask", element: <AskPage /> },
      { path: "plan", element: <PlanInspector /> },
      { path: "traces", element: <TracesPage /> },
      { path: "traces/:traceId", element: <TraceDetail /> },
      { path: "signin", element: <SignIn /> },
      { path: "*", element: <NotFound /> },
    ],
  },
];

export const router = createBrowserRouter(routes);
