// A page rendering a graph's generative UI as LangGraph's guide does: `useStream` collecting the
// UI messages a run pushes (`onCustomEvent` with `uiMessageReducer`, then the state's `ui` key)
// and a `LoadExternalComponent` for each, which asks the server for the component
// (`POST /ui/{assistantId}`) and runs the script it names. Written for
// tests/ui/test_generative_ui.py, which drives `window.genui` from Playwright.
//
// Query parameters: apiUrl, assistantId.
import { useStream } from "@langchain/langgraph-sdk/react";
import {
  LoadExternalComponent,
  type UIMessage,
  uiMessageReducer,
} from "@langchain/langgraph-sdk/react-ui";
import { useEffect, useRef } from "react";
import { createRoot } from "react-dom/client";

type State = { city?: string; ui?: UIMessage[] };

const params = new URLSearchParams(location.search);
const apiUrl = params.get("apiUrl") ?? "";
const assistantId = params.get("assistantId") ?? "";

interface GenUiApi {
  ask: (city: string) => void;
  status: () => { loading: boolean; error: string | null; ui: UIMessage[] };
}

declare global {
  interface Window {
    genui: GenUiApi;
  }
}

function App() {
  const stream = useStream<State, { CustomEventType: UIMessage }>({
    apiUrl,
    assistantId,
    onCustomEvent: (event, options) => {
      options.mutate((prev) => ({ ...prev, ui: uiMessageReducer(prev.ui ?? [], event) }));
    },
  });
  const latest = useRef(stream);
  latest.current = stream;

  useEffect(() => {
    window.genui = {
      ask: (city) => latest.current.submit({ city }, { streamMode: ["values", "custom"] }),
      status: () => ({
        loading: latest.current.isLoading,
        error: latest.current.error == null ? null : String(latest.current.error),
        ui: latest.current.values.ui ?? [],
      }),
    };
  }, []);

  return (
    <div>
      {(stream.values.ui ?? []).map((message) => (
        <LoadExternalComponent
          key={message.id}
          stream={stream}
          message={message}
          fallback={<span>loading component</span>}
        />
      ))}
    </div>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
