// The host side of a generative UI bundle, as the JS SDK's react-ui defines it: a component
// bundle the server builds (src/open_langgraph/genui/bundle.mjs) does not carry React; it asks
// the page for it through `globalThis[Symbol.for("LGUI_REQUIRE")]`, then hands the component
// and the element to render it in to `globalThis[Symbol.for("LGUI_EXT_STORE")].respond`.
//
// This module is its own chunk, imported only when a thread has UI messages: React stays out
// of the page's main script. It installs both globals and renders each component in a React
// root of its own, inside an error boundary so a component that throws shows the fallback.

import * as React from "react";
import * as ReactDOM from "react-dom";
import { createRoot, type Root } from "react-dom/client";
import * as JsxRuntime from "react/jsx-runtime";

type Props = Record<string, unknown>;

/** What the page asked for under one shadow root id, and what to tell it. */
interface Expected {
  /** The props as they are when the bundle calls back (a push may have changed them since). */
  props: () => Props;
  /** The component rendered (first paint done or not): the fallback is not needed. */
  mounted: () => void;
  /** The component threw while rendering. */
  failed: (error: unknown) => void;
}

/** A component rendered in the chat: its props can change (a push with the same id). */
export interface MountedComponent {
  update(props: Props): void;
  unmount(): void;
}

const REQUIRE = Symbol.for("LGUI_REQUIRE");
const REQUIRE_EXTRA = Symbol.for("LGUI_REQUIRE_EXTRA");
const EXT_STORE = Symbol.for("LGUI_EXT_STORE");

const expected = new Map<string, Expected>();
const mounted = new Map<string, MountedComponent>();

/** Hooks of the SDK that need a React `useStream` the built-in chat does not have. */
function notHere(name: string): () => never {
  return () => {
    throw new Error(`${name} is not available in Open LangGraph's built-in chat (/ui)`);
  };
}

/** Keeps a throwing component from taking its root down: the card shows the fallback. */
class Boundary extends React.Component<{ failed: (error: unknown) => void; children?: React.ReactNode }, { error: boolean }> {
  state = { error: false };

  static getDerivedStateFromError() {
    return { error: true };
  }

  componentDidCatch(error: unknown) {
    this.props.failed(error);
  }

  render() {
    return this.state.error ? null : this.props.children;
  }
}

function respond(shadowRootId: string, component: React.ComponentType<Props>, target: HTMLElement): void {
  const wanted = expected.get(shadowRootId);
  if (!wanted) return; // the card was removed before its script arrived
  expected.delete(shadowRootId);
  const root: Root = createRoot(target);
  const draw = (props: Props) =>
    root.render(React.createElement(Boundary, { failed: wanted.failed }, React.createElement(component, props)));
  draw(wanted.props());
  mounted.set(shadowRootId, {
    update: draw,
    unmount: () => {
      mounted.delete(shadowRootId);
      root.unmount();
    },
  });
  wanted.mounted();
}

let installed = false;

/** Installs the two globals bundles use (once). */
export function install(): void {
  if (installed) return;
  installed = true;
  const scope = globalThis as Record<symbol, unknown>;
  scope[REQUIRE] = (name: string): unknown => {
    if (name === "react") return React;
    if (name === "react-dom") return ReactDOM;
    if (name === "react/jsx-runtime") return JsxRuntime;
    if (name === "@langchain/langgraph-sdk/react") return { useStream: notHere("useStream") };
    if (name === "@langchain/langgraph-sdk/react-ui") {
      return {
        useStreamContext: notHere("useStreamContext"),
        LoadExternalComponent: notHere("LoadExternalComponent"),
      };
    }
    const extra = scope[REQUIRE_EXTRA] as Record<string, unknown> | undefined;
    if (extra && name in extra) return extra[name];
    throw new Error(`a generative UI bundle needs ${name}, which the page does not provide`);
  };
  scope[EXT_STORE] = { respond };
}

/** Wait for the bundle to render a component under `shadowRootId`, with `props`. */
export function expect(shadowRootId: string, props: () => Props, mountedNow: () => void, failed: (e: unknown) => void): void {
  expected.set(shadowRootId, { props, mounted: mountedNow, failed });
}

/** The component rendered under `shadowRootId`, once its bundle has called back. */
export function rendered(shadowRootId: string): MountedComponent | undefined {
  return mounted.get(shadowRootId);
}

/** Stop waiting for a component that will not come (its card is gone, or its script failed). */
export function forget(shadowRootId: string): void {
  expected.delete(shadowRootId);
  mounted.get(shadowRootId)?.unmount();
}
