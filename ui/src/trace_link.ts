// The address of a run's trace view, kept apart from the view so that the chat and the threads
// view link to it without loading it.

export function traceHref(threadId: string, runId?: string | null): string {
  const params = new URLSearchParams({ thread: threadId });
  if (runId) params.set("run", runId);
  return `#/trace?${params}`;
}
