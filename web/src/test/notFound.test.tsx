import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";

import { I18nProvider } from "../i18n/i18n";
import { routes } from "../router";

afterEach(cleanup);

const open = (path: string) =>
  render(
    <I18nProvider>
      <QueryClientProvider client={new QueryClient()}>
        <RouterProvider router={createMemoryRouter(routes, { initialEntries: [path] })} />
      </QueryClientProvider>
    </I18nProvider>,
  );

describe("an unknown route", () => {
  it("shows our own page inside the frame, with the navigation", () => {
    open("/no/such/page");
    const page = screen.getByTestId("not-found");
    expect(page.textContent).toContain("페이지를 찾을 수 없습니다");
    expect(page.textContent).toContain("/no/such/page");
    expect(screen.getByRole("link", { name: "지식 베이스 목록으로" }).getAttribute("href")).toBe("/");
    expect(screen.getByRole("link", { name: "질문하기" })).toBeTruthy(); // the navigation
    expect(document.body.textContent).not.toContain("Hey developer");
  });
});
