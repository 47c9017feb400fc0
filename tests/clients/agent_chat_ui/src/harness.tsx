// A page that talks to a LangGraph server the way Agent Chat UI does: the JS SDK's own
// `useStream` React hook with Agent Chat UI's options, and the same `submit` calls for sending,
// regenerating, editing and answering a human-in-the-loop review; the thread list through the
// SDK's `Client`; agent-inbox's "Mark as Resolved" state update. Written for
// tests/ui/test_agent_chat_ui.py, which drives `window.chat` from Playwright.
//
// Query parameters: apiUrl, assistantId, graphId (threads are listed by metadata.graph_id).
import { Client, type Message } from "@langchain/langgraph-sdk";
import { useStream } from "@langchain/langgraph-sdk/react";
import { useEffect, useRef, useState } from "react";
import { createRoot } from "react-dom/client";

type State = { messages: Message[] };
type Stream = ReturnType<typeof useStream<State>>;

const params = new URLSearchParams(location.search);
const apiUrl = params.get("apiUrl") ?? "";
const assistantId = params.get("assistantId") ?? "";
const graphId = params.get("graphId") ?? assistantId;
const client = new Client({ apiUrl });

// Options of every submit in Agent Chat UI's thread view.
const SUBMIT = { streamMode: ["values" as const], streamSubgraphs: true, streamResumable: true };

interface ChatApi {
  threadId: () => string | null;
  status: () => { loading: boolean; error: string | null; messages: Message[]; interrupts: unknown[] };
  send: (text: string) => void;
  regenerate: (messageId: string) => void;
  edit: (messageId: string, text: string) => void;
  resume: (resume: unknown) => void;
  resolve: () => void;
  inboxResolve: () => Promise<void>;
  switchThread: (threadId: string | null) => void;
  listThreads: () => Promise<string[]>;
}

declare global {
  interface Window {
    chat: ChatApi;
  }
}

function errorText(error: unknown): string | null {
  if (error == null) return null;
  return error instanceof Error ? error.message : JSON.stringify(error);
}

function App() {
  const [threadId, setThreadId] = useState<string | null>(null);
  const stream: Stream = useStream<State>({
    apiUrl,
    assistantId,
    threadId,
    fetchStateHistory: true,
    onThreadId: setThreadId,
  });
  const latest = useRef(stream);
  latest.current = stream;
  const threadIdRef = useRef(threadId);
  threadIdRef.current = threadId;

  useEffect(() => {
    const parentOf = (messageId: string) => {
      const s = latest.current;
      const message = s.messages.find((m) => m.id === messageId);
      if (!message) throw new Error(`no message ${messageId}`);
      return s.getMessagesMetadata(message)?.firstSeenState?.parent_checkpoint;
    };
    window.chat = {
      threadId: () => threadIdRef.current,
      status: () => ({
        loading: latest.current.isLoading,
        error: errorText(latest.current.error),
        messages: latest.current.messages,
        interrupts: latest.current.interrupts ?? [],
      }),
      send: (text) => {
        const message: Message = { id: crypto.randomUUID(), type: "human", content: text };
        latest.current.submit(
          { messages: [message] },
          {
            ...SUBMIT,
            optimisticValues: (prev) => ({ ...prev, messages: [...(prev.messages ?? []), message] }),
          },
        );
      },
      regenerate: (messageId) => {
        latest.current.submit(undefined, { ...SUBMIT, checkpoint: parentOf(messageId) });
      },
      edit: (messageId, text) => {
        const message: Message = { type: "human", content: text };
        latest.current.submit({ messages: [message] }, { ...SUBMIT, checkpoint: parentOf(messageId) });
      },
      // Agent Chat UI's approve / edit / reject / respond: `submit({}, {command: {resume}})`.
      resume: (resume) => {
        latest.current.submit({} as State, { command: { resume } });
      },
      // Agent Chat UI's "Mark as Resolved".
      resolve: () => {
        latest.current.submit({} as State, { command: { goto: "__end__" } });
      },
      // agent-inbox's "Mark as Resolved".
      inboxResolve: async () => {
        const id = threadIdRef.current;
        if (!id) throw new Error("no thread");
        await client.threads.updateState(id, { values: null, asNode: "__end__" });
      },
      switchThread: (id) => setThreadId(id),
      listThreads: async () => {
        const threads = await client.threads.search({ metadata: { graph_id: graphId }, limit: 100 });
        return threads.map((t) => t.thread_id);
      },
    };
  }, []);

  return (
    <main>
      <p id="thread">{threadId ?? "new"}</p>
      <p id="state">{stream.isLoading ? "loading" : "idle"}</p>
      <ol id="messages">
        {stream.messages.map((m, i) => (
          <li key={m.id ?? i} data-type={m.type}>
            {typeof m.content === "string" ? m.content : JSON.stringify(m.content)}
          </li>
        ))}
      </ol>
    </main>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
